"""I2 (formulas.md §13.1, F2): the forms of the hockey-stick divergence agree — on verialloc's own values.

H_κ(P‖Q) = ∫[P − κQ]_+ = E_P[(1 − κe^{−ℓ})_+] = E_Q[(e^ℓ − κ)_+] + P(Q = 0) = sup_S P(S) − κQ(S)
         = ∫_0^1 F̄_L(ε − ln(1 − u)) du   (tail-integral form, [003] proof of Claim 4.2; L = L_{P,Q}, κ = e^ε).

Production code under test (each computes ONE form; the test evaluates the OTHER forms independently, in mpmath
at 50 digits, from the masses / densities):

* `api.delta(..., method="exact")` on a finite pair (steps = 1): the exact layer's Σ[A − κB]_+;
* `numeric.pld.pld.PLD.delta` on the atomic PLD of that pair: the functional E[(1 − κe^{−L})_+] + f(+∞);
* `Gaussian.delta` / `Laplace.delta` (closed forms F13 and the Laplace profile), both directions, against the
  tail-integral form of the loss law derived here from the densities (quadrature) and the E_Q form.

Bugs it catches: the printed E_Q form of [000]/[004] without the P(Q = 0) term (a pair with Q = 0 < P loses
that mass), a sign or factor slip in F13 (e.g. e^{−ε} for e^ε), a wrong kink in the Laplace profile, a PLD
that drops its +∞ atom or applies e^{+L} for e^{−L}.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, strategies as st

from verialloc import Config, DiscretePair, Gaussian, Laplace, api
from verialloc.numeric.pld.pld import PLD
from verialloc.testing.strategies import probability_pairs

DPS = 50
epsilons = st.integers(-24, 32).map(lambda n: Fraction(n, 8))


def mpq(x: Fraction) -> mp.mpf:
    return mp.mpf(x.numerator) / x.denominator


def forms(p, q, eps) -> dict:
    """The finite forms of F2 for H_{e^ε}(P‖Q), at the current precision (p, q: Fractions)."""
    kappa = mp.exp(mpq(eps))
    out = {"integral": mp.fsum(max(mpq(x) - kappa * mpq(y), 0) for x, y in zip(p, q))}
    # E_P form: e^{−ℓ} = Q/P on P > 0 (0 where Q = 0)
    out["E_P"] = mp.fsum(mpq(x) * max(1 - kappa * mpq(y) / mpq(x), 0) for x, y in zip(p, q) if x)
    # E_Q form plus the mass of P where Q = 0 (the term [000]/[004] omit)
    out["E_Q + P(Q=0)"] = mp.fsum(mpq(y) * max(mpq(x) / mpq(y) - kappa, 0) for x, y in zip(p, q) if y) + mp.fsum(
        mpq(x) for x, y in zip(p, q) if not y
    )
    # set form: the best subset
    best = mp.mpf(0)
    for mask in range(1 << len(p)):
        best = max(best, mp.fsum(mpq(x) - kappa * mpq(y) for i, (x, y) in enumerate(zip(p, q)) if mask >> i & 1))
    out["set"] = best
    # tail-integral form: ∫_0^1 F̄_L(ε − ln(1 − u)) du for the discrete law of L = ln(P/Q) under P, integrated
    # exactly piece by piece (F̄ is a step function of u with jumps at u = 1 − e^{ε − x})
    atoms = [(mp.log(mpq(x) / mpq(y)) if y else mp.inf, mpq(x)) for x, y in zip(p, q) if x]
    cuts = sorted({mp.mpf(0), mp.mpf(1)} | {1 - mp.exp(mpq(eps) - x) for x, _ in atoms if x != mp.inf and x > mpq(eps)})
    total = mp.mpf(0)
    for u0, u1 in zip(cuts, cuts[1:]):
        level = mpq(eps) - mp.log(1 - (u0 + u1) / 2)
        total += (u1 - u0) * mp.fsum(m for x, m in atoms if x > level)
    out["tail integral"] = total
    return out


def assert_close(value, ref, what, rel=mp.mpf(10) ** -25):
    assert abs(value - ref) <= rel * max(abs(ref), mp.mpf(10) ** -40), (what, value, ref)


@given(probability_pairs(max_atoms=5), epsilons, st.sampled_from(["remove", "add"]))
def test_exact_layer_value_equals_every_form_of_f2(pq, eps, direction):
    """I2 on the exact layer (30 digits): its H equals the E_P, E_Q + P(Q = 0), set and tail-integral forms."""
    p, q = pq
    a, b = (p, q) if direction == "remove" else (q, p)
    got = api.delta(Config(DiscretePair(p, q), steps=1), eps, direction=direction, method="exact", digits=30)
    with mp.workdps(DPS):
        for name, ref in forms(a, b, eps).items():
            assert_close(got.lower, ref, name)
            assert_close(got.upper, ref, name)


@given(probability_pairs(max_atoms=5), epsilons)
def test_pld_functional_equals_the_forms_of_f2(pq, eps):
    """I2 on `PLD.delta` (the functional H(L) = E[(1 − κe^{−L})_+] + f(+∞), [003] Def 2.2) of the atomic PLD of
    L_{P,Q} (float64 losses and masses): within 1e-13 of the mpmath forms."""
    p, q = pq
    finite: dict = {}  # atoms with equal likelihood ratio merged (exactly, by the rational ratio)
    for x, y in zip(p, q):
        if x and y:
            finite[x / y] = finite.get(x / y, 0) + x
    ratios = sorted(finite)
    pld = PLD(
        np.array([float(mp.log(mpq(r))) for r in ratios]),
        np.array([float(finite[r]) for r in ratios]),
        inf_mass=float(sum(x for x, y in zip(p, q) if not y)),
    )
    value = pld.delta(float(eps))
    with mp.workdps(DPS):
        for name, ref in forms(p, q, eps).items():
            assert abs(value - ref) <= 1e-13, (name, value, float(ref))


def gaussian_tail(sigma: Fraction, y, direction: str) -> mp.mpf:
    """F̄ of the loss law, derived here from the densities: remove ℓ(x) = (2x − 1)/(2σ²), x ~ N(1, σ²);
    add −ℓ(x), x ~ N(0, σ²)."""
    s = mpq(sigma)
    if direction == "remove":  # (2x − 1)/(2σ²) > y  ⟺  x > (1 + 2σ²y)/2
        return 1 - mp.ncdf(((1 + 2 * s**2 * y) / 2 - 1) / s)
    return mp.ncdf((1 - 2 * s**2 * y) / (2 * s))  # (1 − 2x)/(2σ²) > y  ⟺  x < (1 − 2σ²y)/2


def laplace_tail(b: Fraction, y, direction: str) -> mp.mpf:
    """F̄ of the loss law of Laplace(b), ℓ(x) = (|x| − |x − 1|)/b ∈ [−1/b, 1/b] (atoms at both ends)."""
    bb = mpq(b)
    if y < -1 / bb:
        return mp.mpf(1)
    if y >= 1 / bb:
        return mp.mpf(0)
    if direction == "remove":  # x ~ Lap(1, b): ℓ > y ⟺ x > c, c = (1 + yb)/2 ≤ 1
        c = (1 + y * bb) / 2
        return 1 - mp.exp((c - 1) / bb) / 2
    c = (1 - y * bb) / 2  # x ~ Lap(0, b): −ℓ > y ⟺ x < c, c ≥ 0
    return 1 - mp.exp(-c / bb) / 2


def tail_integral(tail, eps, jumps=()) -> mp.mpf:
    """∫_0^1 F̄(ε − ln(1 − u)) du by quadrature, split where the argument ε − ln(1 − u) crosses a jump of F̄ or one
    of the points `jumps` (also used to mark where a continuous F̄ falls steeply)."""
    e = mpq(eps)
    cuts = sorted({mp.mpf(0), mp.mpf(1)} | {1 - mp.exp(e - x) for x in jumps if x > e})
    return mp.quad(lambda u: tail(e - mp.log(1 - u)), cuts)


CONTINUOUS_EPS = [Fraction(-3, 2), Fraction(-1, 4), Fraction(0), Fraction(3, 8), Fraction(1), Fraction(5, 2)]


@pytest.mark.parametrize("sigma", [Fraction(1, 2), Fraction(5, 2)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_f13_equals_the_tail_integral_and_e_q_forms(sigma, direction):
    """I2 for the Gaussian (F13, F15): `Gaussian.delta` equals the tail-integral form of its own loss law and the
    E_Q form ∫ q(x)(e^{ℓ(x)} − κ)_+ dx (remove) / ∫ p(x)(e^{−ℓ(x)} − κ)_+ dx (add), to 20 digits."""
    mech = Gaussian(sigma)
    s = mpq(sigma)
    with mp.workdps(30):
        for eps in CONTINUOUS_EPS:
            value = mech.delta(eps, direction)
            mu = 1 / (2 * s**2)  # the loss law is N(μ, 2μ) (F15): split the quadrature at μ + j·sd
            marks = [mu + j * mp.sqrt(2 * mu) for j in range(-8, 9)]
            ref = tail_integral(lambda y: gaussian_tail(sigma, y, direction), eps, jumps=marks)
            assert abs(value - ref) <= mp.mpf(10) ** -20, (eps, value, ref)
            kappa = mp.exp(mpq(eps))
            loss = lambda x: (2 * x - 1) / (2 * s**2)  # noqa: E731
            kink = mp.mpf(1) / 2 + (1 if direction == "remove" else -1) * s**2 * mpq(eps)  # where ±ℓ(x) = ε
            cuts = sorted({-mp.inf, mp.mpf(1) / 2, kink, mp.inf})
            if direction == "remove":
                e_q = mp.quad(lambda x: mp.npdf(x, 0, s) * max(mp.exp(loss(x)) - kappa, 0), cuts)
            else:  # add: E_P[(e^{−ℓ} − κ)_+] is the E_Q form of H(Q‖P)
                e_q = mp.quad(lambda x: mp.npdf(x, 1, s) * max(mp.exp(-loss(x)) - kappa, 0), cuts)
            assert abs(value - e_q) <= mp.mpf(10) ** -15, (eps, value, e_q)


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(1), Fraction(3)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_laplace_profile_equals_the_tail_integral_form(scale, direction):
    """I2 for the Laplace pair (loss law with atoms at ±1/b): `Laplace.delta` equals the tail-integral form."""
    mech = Laplace(scale)
    top = 1 / mpq(scale)
    with mp.workdps(40):
        for eps in CONTINUOUS_EPS + [1 / scale, -1 / scale, Fraction(1, 2) / scale]:
            value = mech.delta(eps, direction)
            ref = tail_integral(lambda y: laplace_tail(scale, y, direction), eps, jumps=(top, -top))
            assert abs(value - ref) <= mp.mpf(10) ** -18, (eps, value, ref)  # quadrature error ~1e-19
