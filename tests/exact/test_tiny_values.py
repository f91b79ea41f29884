"""Tiny but nonzero δ and ε from the exact layer (issue #10 item 8): never rounded to 0, full relative digits.

References are computed here, independently of verialloc.exact, straight from the definitions:
* δ(ε) = Σ_ω [A(ω) − e^ε B(ω)]_+ over every outcome sequence ω ∈ {0,1}^t (F2), with A the allocation
  likelihood (1/t) Σ_i P(ω_i) ∏_{j≠i} Q(ω_j) (F23) or the Poisson product ∏ (λP + (1−λ)Q)(ω_i) (F46), B = Q^t,
  in mpmath at −log10(ε0) + 120 digits (far more than the 30 or 50 asked for);
* closed form tanh(ε0/2) for one randomized-response step at ε = 0;
* exact Fraction enumeration (TV distance, F2 at κ = 1) for rational pairs at ε = 0.
"""

from fractions import Fraction
from itertools import product

import mpmath as mp
import pytest

from verialloc import Config, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.discrete_profiles import discrete_delta, discrete_epsilon
from verialloc.mechanisms import DiscretePair, Gaussian, RandomizedResponse

EPS0 = ["1e-10", "1e-26", "1e-45", "1e-100", "1e-300"]
DIRECTIONS = ("remove", "add")


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def _atoms(p, q, t, scheme, lam):
    """[(A(ω), B(ω))] over all ω ∈ range(m)^t, from the definitions (no count vectors, no verialloc code)."""
    atoms = []
    for omega in product(range(len(p)), repeat=t):
        b = _prod(q[o] for o in omega)
        if scheme == "allocation":
            a = sum(p[omega[i]] * _prod(q[omega[j]] for j in range(t) if j != i) for i in range(t)) / t
        else:
            a = _prod(lam * p[o] + (1 - lam) * q[o] for o in omega)
        atoms.append((a, b))
    return atoms


def reference_rr(eps0: str, t: int, epsilon, direction: str, scheme="allocation", lam=None) -> mp.mpf:
    """δ(ε) of randomized response by sequence enumeration at −log10(ε0) + 120 digits."""
    with mp.workdps(int(-mp.log10(mp.mpf(eps0))) + 120):
        x = mp.exp(mp.mpf(eps0))
        p, q = [x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]
        lam = None if lam is None else mp.mpf(lam.numerator) / lam.denominator
        kappa = mp.exp(mp.mpf(epsilon.numerator) / epsilon.denominator)
        atoms = _atoms(p, q, t, scheme, lam)
        if direction == "add":
            atoms = [(b, a) for a, b in atoms]
        return +mp.fsum(max(a - kappa * b, 0) for a, b in atoms)


def close(value, reference, digits):
    with mp.workdps(digits + 20):
        return abs(value - reference) <= mp.mpf(10) ** -digits * abs(reference)


@pytest.mark.parametrize("eps0", EPS0)
def test_one_step_at_zero_is_tanh(eps0):
    """t = 1, ε = 0: δ = TV = tanh(ε0/2) in both directions (F2, I3), via the public API at 30 digits."""
    b = api.delta(Config(RandomizedResponse(eps0), steps=1), 0, digits=30)
    with mp.workdps(400):
        ref = mp.tanh(mp.mpf(eps0) / 2)
    assert b.lower == b.upper and b.lower > 0
    assert close(b.lower, ref, 30)
    for d in DIRECTIONS:
        assert close(discrete_delta(RandomizedResponse(eps0), "allocation", 1, 0, d), ref, 30)


@pytest.mark.parametrize("eps0", EPS0)
@pytest.mark.parametrize("t", [1, 2, 3, 4, 5])
def test_allocation_tiny_eps0_matches_enumeration(eps0, t):
    """Allocation, steps 1..5, both directions, ε ∈ {0, ε0/10, ε0/2, −ε0/3}: relative error ≤ 1e-30."""
    mech = RandomizedResponse(eps0)
    e0 = Fraction(eps0)
    for epsilon in (Fraction(0), e0 / 10, e0 / 2, -e0 / 3):
        for d in DIRECTIONS:
            ref = reference_rr(eps0, t, epsilon, d)
            value = discrete_delta(mech, "allocation", t, epsilon, d, digits=30)
            assert value > 0, (eps0, t, epsilon, d)
            assert close(value, ref, 30), (eps0, t, epsilon, d, value, ref)


def test_issue_examples():
    """The three reports of the issue: 5e-27, 1.875e-27 (CLI-sized inputs) and ε0 = 1e-40, t = 3, ε = 1e-41."""
    rr = RandomizedResponse("1e-26")
    with mp.workdps(60):
        assert close(api.delta(Config(rr, steps=1), 0).lower, mp.mpf("5e-27"), 25)
        assert close(reference_rr("1e-26", 5, Fraction(0), "add"), mp.mpf("1.875e-27"), 20)
    assert close(api.delta(Config(rr, steps=5), 0).lower, reference_rr("1e-26", 5, Fraction(0), "remove"), 30)
    b = api.delta(Config(RandomizedResponse("1e-45"), steps=1), 0, digits=30)
    assert close(b.lower, reference_rr("1e-45", 1, Fraction(0), "remove"), 30)
    tiny = api.delta(Config(RandomizedResponse("1e-40"), steps=3), "1e-41", digits=30)
    assert close(tiny.lower, max(reference_rr("1e-40", 3, Fraction(1, 10**41), d) for d in DIRECTIONS), 30)


@pytest.mark.parametrize("eps0", ["1e-45", "1e-300"])
def test_fifty_digits(eps0):
    """A δ around 1e-46 (and 1e-301) comes out with the 50 requested digits."""
    for t in (2, 5):
        for d in DIRECTIONS:
            ref = reference_rr(eps0, t, Fraction(0), d)
            assert close(discrete_delta(RandomizedResponse(eps0), "allocation", t, 0, d, digits=50), ref, 50)


@pytest.mark.parametrize("eps0", ["1e-10", "1e-45", "1e-300"])
def test_poisson_and_epochs_tiny(eps0):
    """Poisson λ = 1/2 (irrational largest loss) and allocation with 2 epochs, ε = 0 and ε0/4."""
    mech, lam, e0 = RandomizedResponse(eps0), Fraction(1, 2), Fraction(eps0)
    for t in (1, 3):
        for epsilon in (Fraction(0), e0 / 4):
            for d in DIRECTIONS:
                ref = reference_rr(eps0, t, epsilon, d, "poisson", lam)
                assert close(discrete_delta(mech, "poisson", t, epsilon, d, rate=lam), ref, 30)
    # two epochs of one allocation step = two independent RR steps = Poisson with λ = 1 over t = 2
    for d in DIRECTIONS:
        ref = reference_rr(eps0, 2, Fraction(0), d, "poisson", Fraction(1))
        assert close(discrete_delta(mech, "allocation", 1, 0, d, epochs=2), ref, 30)


def test_zero_only_when_proven():
    """δ = 0 exactly at and beyond the largest loss L* (k·ε0 for allocation), tiny and positive just below it."""
    for eps0 in ("1e-10", "1e-300"):
        e0 = Fraction(eps0)
        mech = RandomizedResponse(eps0)
        for t in (1, 3):
            for d in DIRECTIONS:
                assert discrete_delta(mech, "allocation", t, e0, d) == 0  # tie A = e^ε B on the extreme atom
                assert discrete_delta(mech, "allocation", t, 2 * e0, d) == 0
                assert discrete_delta(mech, "allocation", 3, 2 * e0, d, k=2) == 0
                below = e0 * (1 - Fraction(1, 10**6))
                ref = reference_rr(eps0, t, below, d)
                value = discrete_delta(mech, "allocation", t, below, d)
                assert value > 0 and close(value, ref, 30)
        # Poisson λ = 1/2: L* = t ln((1 + e^{ε0})/2) is irrational, just above it δ = 0, just below δ > 0
        with mp.workdps(400):
            star = 3 * mp.log1p(mp.expm1(mp.mpf(eps0)) / 2)
            above, under = (Fraction(mp.nstr(star * (1 + s), 380)) for s in (mp.mpf(10) ** -20, -(mp.mpf(10) ** -20)))
        assert discrete_delta(mech, "poisson", 3, above, "remove", rate="1/2") == 0
        assert close(
            discrete_delta(mech, "poisson", 3, under, "remove", rate="1/2"),
            reference_rr(eps0, 3, under, "remove", "poisson", Fraction(1, 2)),
            30,
        )
    same = DiscretePair(["1/3", "2/3"], ["1/3", "2/3"])
    assert discrete_delta(same, "allocation", 4, 0, "both") == 0


def test_rational_pair_at_zero_is_exact_tv():
    """p − q = ±10^-200: δ(0) = TV by exact Fraction enumeration, t = 1..4, allocation and Poisson."""
    h = Fraction(1, 10**200)
    p, q = [Fraction(1, 2) + h, Fraction(1, 2) - h], [Fraction(1, 2), Fraction(1, 2)]
    mech = DiscretePair(p, q)
    for t in (1, 2, 3, 4):
        for scheme, lam in (("allocation", None), ("poisson", Fraction(1, 3))):
            atoms = _atoms(p, q, t, scheme, lam)
            tv = sum(max(a - b, Fraction(0)) for a, b in atoms)
            assert tv == sum(max(b - a, Fraction(0)) for a, b in atoms) > 0
            with mp.workdps(300):
                ref = mp.mpf(tv.numerator) / tv.denominator
            for d in DIRECTIONS:
                assert close(discrete_delta(mech, scheme, t, 0, d, rate=lam), ref, 30)


def test_epsilon_tiny_and_exact_zero():
    """ε(δ) of size 1e-41 keeps its digits; ε = 0 exactly when delta = TV exactly (rational pair)."""
    mech = RandomizedResponse("1e-40")
    for d in DIRECTIONS:
        with mp.workdps(60):  # delta is read at the caller's precision, as the exact accountant does
            eps = discrete_epsilon(mech, "allocation", 3, "1e-41", d)
        api_eps = api.epsilon(Config(mech, steps=3), "1e-41", direction=d, digits=30)
        assert api_eps.lower == api_eps.upper and close(api_eps.lower, eps, 30)
        assert 0 < eps < mp.mpf("1e-40")
        with mp.workdps(200):
            assert close(reference_rr("1e-40", 3, Fraction(mp.nstr(eps, 60)), d), mp.mpf("1e-41"), 25)
    p, q = [Fraction(1, 2), Fraction(1, 2)], [Fraction(1, 3), Fraction(2, 3)]
    tv = sum(max(a - b, Fraction(0)) for a, b in _atoms(p, q, 3, "allocation", None))
    for d in DIRECTIONS:
        with mp.workdps(60):
            assert discrete_epsilon(DiscretePair(p, q), "allocation", 3, tv, d) == 0
        assert api.epsilon(Config(DiscretePair(p, q), steps=3), tv, direction=d).lower == 0


def test_unresolvable_raises_naming_the_parameter():
    """δ below 10^-4000 (ε0 = 10^-4000, the smallest number text accepts) is not returned as 0: UnsupportedRequest
    naming eps0. A Fraction beyond ~4000 digits (10^-4100) is refused at the door, like its text "1e-4100"."""
    with pytest.raises(
        UnsupportedRequest, match=r"^eps0=1.0e-4000 is not supported here: delta\(epsilon=0\) is positive"
    ):
        discrete_delta(RandomizedResponse(Fraction(1, 10**4000)), "allocation", 1, 0, "remove")
    with pytest.raises(InvalidParameter, match="at most 4000 digits"):
        RandomizedResponse(Fraction(1, 10**4100))


def test_gaussian_composition_route_keeps_tiny_digits():
    """Gaussian, t = 1: F13 cancels for large σ; δ(0) = 2Φ(1/(2σ)) − 1 = erf(1/(2√2σ)) must keep 30 digits."""
    for sigma in ("1e30", "1e50"):
        b = api.delta(Config(Gaussian(sigma), steps=1), 0, digits=30)
        with mp.workdps(200):
            ref = mp.erf(1 / (2 * mp.sqrt(2) * mp.mpf(sigma)))
        assert b.lower > 0 and close(b.lower, ref, 30)
    eps = api.epsilon(Config(Gaussian("1e50"), steps=1), "1e-52", digits=30).lower
    with mp.workdps(200):
        sigma, e = mp.mpf("1e50"), mp.mpf(eps)
        back = mp.ncdf(1 / (2 * sigma) - e * sigma) - mp.exp(e) * mp.ncdf(-1 / (2 * sigma) - e * sigma)
        assert close(back, mp.mpf("1e-52"), 25)
