"""Quadrature of small schemes (F12, F25, F46) against closed forms, the §12.1 table and independent integrations.

Every reference number is computed here independently (closed forms re-typed from formulas.md, SciPy
integrations of the raw F25 / product integrands, Monte Carlo) or quoted from formulas.md §12.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, strategies as st
from scipy import integrate, optimize, special

from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.exact.quadrature import (
    MAX_DIGITS_T3,
    allocation_delta_quadrature,
    allocation_epsilon_quadrature,
    poisson_delta_quadrature,
    poisson_epsilon_quadrature,
)
from verialloc.mechanisms import Gaussian, Laplace, RandomizedResponse

DIRS = ("remove", "add")

# formulas.md §12.1: (σ, ε) -> (remove t=2, add t=2, single Gaussian F13); accurate to ~1e-6 relative
TABLE = {
    (0.5, 0): (0.59975061, 0.59975061, 0.68268949),
    (0.5, 0.5): (0.50209809, 0.49124799, 0.59918562),
    (0.5, 1): (0.40457750, 0.38033919, 0.50986166),
    (0.5, 2): (0.23232134, 0.18644915, 0.3318980),
    (1, 0): (0.29776223, 0.29776223, 0.38292492),
    (1, 0.5): (0.14917752, 0.14268697, 0.23842171),
    (1, 1): (0.059206501, 0.050197662, 0.12693674),
    (1, 2): (0.0047457776, 0.0020559245, 0.020923636),
    (2, 0): (0.14402832, 0.14402832, 0.19741265),
    (2, 0.5): (0.018326595, 0.017397486, 0.052440323),
    (2, 1): (0.00064612837, 0.00047900624, 0.0068295950),
    (2, 2): (2.8811863e-08, 1.9429956e-09, 9.4391686e-06),
}


# ------------------------------------------------------------------ independent references (float/SciPy)


def Phi(x):
    return 0.5 * special.erfc(-x / math.sqrt(2))


def f13(sigma, eps):
    """F13 re-typed: Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)."""
    return Phi(1 / (2 * sigma) - eps * sigma) - math.exp(eps) * Phi(-1 / (2 * sigma) - eps * sigma)


def f13_mp(sigma, eps):
    """F13 at the current mpmath precision; plain numbers are read through their decimal repr."""
    s, e = (x if isinstance(x, mp.mpf) else mp.mpf(str(x)) for x in (sigma, eps))
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def laplace_single(b, eps):
    """Laplace profile: 1 − e^{(ε − 1/b)/2} on [−1/b, 1/b], 0 above, 1 − e^ε below."""
    e0 = 1 / b
    if eps >= e0:
        return 0.0
    if eps < -e0:
        return -math.expm1(eps)
    return -math.expm1((eps - e0) / 2)


class Pair:
    """Density q of Q, U = e^ℓ with its inverse and range, and the non-smooth points, typed from the definitions."""

    def __init__(self, name, param):
        self.name, self.p = name, param
        if name == "gaussian":
            s = param
            self.q = lambda x: math.exp(-x * x / (2 * s * s)) / (s * math.sqrt(2 * math.pi))
            self.U = lambda x: math.exp((2 * x - 1) / (2 * s * s))
            self.Uinv = lambda u: s * s * math.log(u) + 0.5
            self.urange = (0.0, math.inf)
            self.breaks, self.lo, self.hi = [], -40 * s - 1, 40 * s + 2
        else:
            b = param
            self.q = lambda x: math.exp(-abs(x) / b) / (2 * b)
            self.U = lambda x: math.exp((abs(x) - abs(x - 1)) / b)
            self.Uinv = lambda u: (b * math.log(u) + 1) / 2
            self.urange = (math.exp(-1 / b), math.exp(1 / b))
            self.breaks, self.lo, self.hi = [0.0, 1.0], -60 * b, 60 * b + 1

    def where(self, u):
        """x with U(x) = u when u is strictly inside the range of U."""
        return [self.Uinv(u)] if self.urange[0] < u < self.urange[1] else []

    def quad(self, g, extra):
        pts = sorted({p for p in self.breaks + list(extra) if self.lo < p < self.hi})
        edges = [self.lo, *pts, self.hi]
        return sum(integrate.quad(g, a, b, epsabs=1e-15, epsrel=1e-12, limit=400)[0] for a, b in zip(edges, edges[1:]))

    def kink_points(self, c0):
        """Outer points where c0 − U(x) hits 0 or an end of the range of U (the inner kink appears/leaves)."""
        out = self.where(c0)
        for end in self.urange:
            if math.isfinite(end) and end > 0:
                out += self.where(c0 - end)
        return out


def brute_allocation_t2(pair, eps, direction):
    """F25 for t = 2 integrated directly: E_{Q²}[((U1+U2)/2 − κ)_+] or E[(1 − κ(U1+U2)/2)_+] (SciPy)."""
    k = math.exp(eps)
    c0 = 2 * k if direction == "remove" else 2 / k

    def inner(x1):
        u1 = pair.U(x1)
        if direction == "remove":
            g = lambda x2: pair.q(x2) * max(0.0, (u1 + pair.U(x2)) / 2 - k)  # noqa: E731
        else:
            g = lambda x2: pair.q(x2) * max(0.0, 1 - k * (u1 + pair.U(x2)) / 2)  # noqa: E731
        return pair.quad(g, pair.where(c0 - u1))

    return pair.quad(lambda x1: pair.q(x1) * inner(x1), pair.kink_points(c0))


def brute_poisson_t2(pair, lam, eps, direction):
    """H_κ(P_λ²‖Q²) (remove) / H_κ(Q²‖P_λ²) (add) from the product likelihood ratio a1·a2, a = 1 − λ + λU."""
    k = math.exp(eps)
    a = lambda x: 1 - lam + lam * pair.U(x)  # noqa: E731
    ainv = lambda A: pair.where((A - 1 + lam) / lam) if A > 1 - lam else []  # noqa: E731

    def inner(x1):
        a1 = a(x1)
        if direction == "remove":
            return pair.quad(lambda x2: pair.q(x2) * max(0.0, a1 * a(x2) - k), ainv(k / a1))
        return pair.quad(lambda x2: pair.q(x2) * max(0.0, 1 - k * a1 * a(x2)), ainv(1 / (k * a1)))

    pivot = k / (1 - lam) if direction == "remove" else 1 / (k * (1 - lam))
    return pair.quad(lambda x1: pair.q(x1) * inner(x1), ainv(pivot))


def lognormal_call(sigma, c):
    """E[(U − c)_+] for U = e^ℓ, ℓ ~ N(−μ, 2μ) under Q, μ = 1/(2σ²) (Black–Scholes form); 1 − c for c ≤ 0."""
    if c <= 0:
        return 1 - c
    mu = 1 / (2 * sigma**2)
    sd = math.sqrt(2 * mu)
    return Phi((mu - math.log(c)) / sd) - c * Phi((-mu - math.log(c)) / sd)


def lognormal_put(sigma, c):
    """E[(c − U)_+]; 0 for c ≤ 0."""
    if c <= 0:
        return 0.0
    mu = 1 / (2 * sigma**2)
    sd = math.sqrt(2 * mu)
    return c * Phi((math.log(c) + mu) / sd) - Phi((math.log(c) - mu) / sd)


def semi_brute_gaussian_t3(sigma, eps, direction):
    """F25, t = 3: SciPy over (x1, x2) with the third coordinate by the log-normal call/put formula."""
    pair = Pair("gaussian", sigma)
    k = math.exp(eps)
    s = 3 * k if direction == "remove" else 3 / k
    last = (lambda c: lognormal_call(sigma, c)) if direction == "remove" else (lambda c: lognormal_put(sigma, c))

    def inner(x1):
        c = s - pair.U(x1)
        return pair.quad(lambda x2: pair.q(x2) * last(c - pair.U(x2)), pair.where(c))

    v = pair.quad(lambda x1: pair.q(x1) * inner(x1), pair.where(s))
    return v / 3 if direction == "remove" else k * v / 3


def close(value_err, ref, rel):
    """value ± error agrees with a reference known to relative accuracy `rel`."""
    v, e = value_err
    return abs(float(v) - ref) <= float(e) + rel * abs(ref) + 1e-300


# ---------------------------------------------------------------------------------------- t = 1


@pytest.mark.parametrize("sigma", [0.3, 1, 2.5])
@pytest.mark.parametrize("eps", [-1.5, 0, 0.7, 3])
@pytest.mark.parametrize("direction", DIRS)
def test_t1_is_the_gaussian_closed_form(sigma, eps, direction):
    v, e = allocation_delta_quadrature(Gaussian(sigma), 1, eps, direction, digits=30)
    with mp.workdps(40):
        assert abs(v - f13_mp(sigma, eps)) <= e + mp.mpf(10) ** -35


@pytest.mark.parametrize("b", [0.5, 1, 3])
@pytest.mark.parametrize("eps", [-2.5, -0.2, 0, 0.4, 1.5])
@pytest.mark.parametrize("direction", DIRS)
def test_t1_is_the_laplace_closed_form(b, eps, direction):
    v, e = allocation_delta_quadrature(Laplace(b), 1, eps, direction, digits=20)
    assert abs(float(v) - laplace_single(b, eps)) <= float(e) + 1e-15


# ------------------------------------------------------------------------------ t = 2, §12.1 table


@pytest.mark.parametrize("key", sorted(TABLE))
def test_reference_table_t2(key):
    sigma, eps = key
    remove, add, single = TABLE[key]
    assert close(allocation_delta_quadrature(Gaussian(sigma), 2, eps, "remove", digits=15), remove, 2e-6)
    assert close(allocation_delta_quadrature(Gaussian(sigma), 2, eps, "add", digits=15), add, 2e-6)
    assert close(allocation_delta_quadrature(Gaussian(sigma), 1, eps, "remove", digits=15), single, 2e-6)


# --------------------------------------------------------------- independent integrations, t = 2, 3


@pytest.mark.parametrize(
    "name,param,eps",
    [
        ("gaussian", 0.7, 0.3),
        ("gaussian", 1.5, 1.2),
        ("gaussian", 1, -0.6),
        ("laplace", 1, 0.3),
        ("laplace", 0.5, 1.0),
        ("laplace", 2, -0.4),
    ],
)
@pytest.mark.parametrize("direction", DIRS)
def test_t2_matches_direct_2d_integration(name, param, eps, direction):
    mech = Gaussian(param) if name == "gaussian" else Laplace(param)
    ref = brute_allocation_t2(Pair(name, param), eps, direction)
    assert close(allocation_delta_quadrature(mech, 2, eps, direction, digits=12), ref, 1e-8)


def test_t3_gaussian_add_matches_semi_brute_force():
    ref = semi_brute_gaussian_t3(1.0, 1.0, "add")
    assert close(allocation_delta_quadrature(Gaussian(1), 3, 1, "add", digits=6), ref, 1e-8)


def monte_carlo_t3(mech_name, param, eps, direction, n=2_000_000, seed=7):
    """Plain Monte Carlo of F25 for t = 3: (mean, standard error)."""
    rng = np.random.default_rng(seed)
    if mech_name == "laplace":
        x = rng.laplace(0.0, param, (n, 3))
        u = np.exp((np.abs(x) - np.abs(x - 1)) / param).mean(axis=1)
    else:
        x = rng.normal(0.0, param, (n, 3))
        u = np.exp((2 * x - 1) / (2 * param**2)).mean(axis=1)
    k = math.exp(eps)
    y = np.maximum(u - k, 0) if direction == "remove" else np.maximum(1 - k * u, 0)
    return y.mean(), y.std() / math.sqrt(n)


@pytest.mark.slow
def test_t3_laplace_remove_inside_monte_carlo_ci():
    mean, se = monte_carlo_t3("laplace", 1.0, 0.3, "remove")
    v, e = allocation_delta_quadrature(Laplace(1), 3, 0.3, "remove", digits=6)
    assert abs(float(v) - mean) <= 5 * se + float(e)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,param,eps,direction",
    [
        ("laplace", 1.0, 0.3, "add"),
        ("laplace", 0.5, 1.2, "remove"),
        ("laplace", 0.5, 1.2, "add"),
        ("gaussian", 0.8, 0.4, "remove"),
        ("gaussian", 0.8, 0.4, "add"),
    ],
)
def test_t3_inside_monte_carlo_ci(name, param, eps, direction):
    mean, se = monte_carlo_t3(name, param, eps, direction)
    mech = Gaussian(param) if name == "gaussian" else Laplace(param)
    v, e = allocation_delta_quadrature(mech, 3, eps, direction, digits=6)
    assert abs(float(v) - mean) <= 5 * se + float(e)


@pytest.mark.slow
@pytest.mark.parametrize("sigma,eps", [(1.0, 1.0), (0.6, 0.2), (2.0, 0.5), (1.0, -0.5)])
@pytest.mark.parametrize("direction", DIRS)
def test_t3_gaussian_semi_brute_force_grid(sigma, eps, direction):
    ref = semi_brute_gaussian_t3(sigma, eps, direction)
    assert close(allocation_delta_quadrature(Gaussian(sigma), 3, eps, direction, digits=8), ref, 1e-8)


@pytest.mark.slow
def test_t3_tv_both_directions_equal():
    r = allocation_delta_quadrature(Gaussian(1), 3, 0, "remove", digits=8)
    a = allocation_delta_quadrature(Gaussian(1), 3, 0, "add", digits=8)
    assert abs(r[0] - a[0]) <= r[1] + a[1]


# ------------------------------------------------------------------------------------- identities


sigmas = st.sampled_from([0.4, 0.6, 1, 1.5, 2.5])
epsilons = st.sampled_from([-1.5, -0.5, 0, 0.25, 0.8, 1.6, 2.5])


@given(sigma=sigmas, eps=epsilons)
def test_i3_remove_add_duality_t2(sigma, eps):
    """I3: remove(ε) = 1 − κ + κ·add(−ε) for the allocation pair."""
    r, er = allocation_delta_quadrature(Gaussian(sigma), 2, eps, "remove", digits=12)
    a, ea = allocation_delta_quadrature(Gaussian(sigma), 2, -eps, "add", digits=12)
    k = mp.exp(eps)
    assert abs(r - (1 - k + k * a)) <= er + k * ea + mp.mpf(10) ** -12


@pytest.mark.parametrize("b,eps", [(1, 0.3), (0.5, -1.2), (2, 0.1)])
def test_i3_laplace_t2(b, eps):
    r, er = allocation_delta_quadrature(Laplace(b), 2, eps, "remove", digits=12)
    a, ea = allocation_delta_quadrature(Laplace(b), 2, -eps, "add", digits=12)
    k = mp.exp(eps)
    assert abs(r - (1 - k + k * a)) <= er + k * ea + mp.mpf(10) ** -12


@pytest.mark.parametrize("mech", [Gaussian("0.8"), Laplace(1)])
def test_tv_at_zero_equal_in_both_directions(mech):
    r, er = allocation_delta_quadrature(mech, 2, 0, "remove", digits=20)
    a, ea = allocation_delta_quadrature(mech, 2, 0, "add", digits=20)
    assert abs(r - a) <= er + ea


@given(sigma=sigmas, e1=epsilons, e2=epsilons, direction=st.sampled_from(DIRS))
def test_i1_bounds_and_monotone_in_epsilon_t2(sigma, e1, e2, direction):
    lo, hi = sorted((e1, e2))
    d_lo, err_lo = allocation_delta_quadrature(Gaussian(sigma), 2, lo, direction, digits=10)
    d_hi, err_hi = allocation_delta_quadrature(Gaussian(sigma), 2, hi, direction, digits=10)
    assert d_hi <= d_lo + err_lo + err_hi
    for eps, d, e in ((lo, d_lo, err_lo), (hi, d_hi, err_hi)):
        assert max(0, 1 - mp.exp(eps)) - e <= d <= 1 + e


@given(s1=sigmas, s2=sigmas, eps=epsilons, direction=st.sampled_from(DIRS), poisson=st.booleans())
def test_i5_monotone_in_sigma(s1, s2, eps, direction, poisson):
    small, large = sorted((s1, s2))

    def delta(s):
        if poisson:
            return poisson_delta_quadrature(Gaussian(s), 2, Fraction(1, 3), eps, direction, digits=10)
        return allocation_delta_quadrature(Gaussian(s), 2, eps, direction, digits=10)

    (a, ea), (b, eb) = delta(small), delta(large)
    assert b <= a + ea + eb


@pytest.mark.parametrize("eps", [-0.7, 0, 0.5, 1.3, 3])
@pytest.mark.parametrize("direction", DIRS)
def test_poisson_rate_one_two_steps_is_gaussian_over_sqrt2(eps, direction):
    v, e = poisson_delta_quadrature(Gaussian(1), 2, 1, eps, direction, digits=25)
    with mp.workdps(35):
        assert abs(v - f13_mp(1 / mp.sqrt(2), eps)) <= e + mp.mpf(10) ** -30


def mixture_single_step(sigma, lam, eps, direction):
    """∫ [λp + (1−λ)q − κq]_+ (remove) or ∫ [q − κ(λp + (1−λ)q)]_+ (add) by mpmath, split at the crossing."""
    s, lam, k = mp.mpf(sigma), mp.mpf(lam), mp.exp(eps)
    p = lambda x: mp.npdf(x, 1, s)  # noqa: E731
    q = lambda x: mp.npdf(x, 0, s)  # noqa: E731
    if direction == "remove":
        g = lambda x: max(0, lam * p(x) + (1 - lam) * q(x) - k * q(x))  # noqa: E731
        ratio = (k - 1 + lam) / lam  # p/q at the crossing
    else:
        g = lambda x: max(0, q(x) - k * (lam * p(x) + (1 - lam) * q(x)))  # noqa: E731
        ratio = (1 / k - 1 + lam) / lam
    pts = [-mp.inf, mp.inf]
    if ratio > 0:
        pts.insert(1, s**2 * mp.log(ratio) + mp.mpf(1) / 2)
    return mp.quad(g, pts)


@pytest.mark.parametrize("lam", ["0.1", "0.5", "0.9"])
@pytest.mark.parametrize("eps", [-1.0, -0.05, 0.4, 2.0])
@pytest.mark.parametrize("direction", DIRS)
def test_poisson_single_step_equals_mixture_integral(lam, eps, direction):
    v, e = poisson_delta_quadrature(Gaussian("1.3"), 1, lam, eps, direction, digits=20)
    with mp.workdps(25):
        ref = mixture_single_step(mp.mpf("1.3"), mp.mpf(lam), mp.mpf(str(eps)), direction)
    assert abs(v - ref) <= e + mp.mpf(10) ** -18


@pytest.mark.parametrize(
    "name,param,lam,eps",
    [
        ("gaussian", 1.0, 0.3, 0.5),
        ("gaussian", 1.0, 0.8, -0.3),
        ("gaussian", 0.6, 0.5, 1.5),
        ("laplace", 1.0, 0.4, 0.3),
        ("laplace", 0.5, 0.7, 1.1),
    ],
)
@pytest.mark.parametrize("direction", DIRS)
def test_poisson_t2_matches_direct_2d_integration(name, param, lam, eps, direction):
    mech = Gaussian(param) if name == "gaussian" else Laplace(param)
    ref = brute_poisson_t2(Pair(name, param), lam, eps, direction)
    assert close(poisson_delta_quadrature(mech, 2, str(lam), eps, direction, digits=12), ref, 1e-8)


def f42_bound(sigma, eps, t, sign=-1):
    """F42 re-typed: δ_{N_{√t σ}}(ε − (1 − 1/t)/(2σ²)); sign=+1 is the erroneous E6 variant."""
    return f13(math.sqrt(t) * sigma, eps + sign * (1 - 1 / t) / (2 * sigma**2))


@pytest.mark.parametrize("sigma", [0.5, 1, 2])
@pytest.mark.parametrize("eps", [-0.5, 0, 0.5, 1, 2])
def test_f42_add_bound_dominates_exact_add_t2(sigma, eps):
    v, e = allocation_delta_quadrature(Gaussian(sigma), 2, eps, "add", digits=12)
    assert float(v) - float(e) <= f42_bound(sigma, eps, 2)


def test_e6_sign_flipped_add_bound_is_violated():
    v, e = allocation_delta_quadrature(Gaussian(1), 2, 1, "add", digits=15)
    wrong = f42_bound(1, 1, 2, sign=+1)
    assert wrong == pytest.approx(0.0194973, rel=1e-5)
    assert wrong < float(v - e)
    assert float(v) == pytest.approx(0.050197662, rel=2e-6)


# ------------------------------------------------------------------------------------ ε queries


def exact(x: mp.mpf) -> Fraction:
    """The exact binary value of an mpf (no rounding at the ambient precision)."""
    man, exp = x.man_exp
    return (-1 if x < 0 else 1) * Fraction(man) * Fraction(2) ** exp


def check_bracket(delta_fn, target, lo, hi):
    """δ_upper(hi) ≤ target ≤ δ_lower(lo), in exact rationals: the code reads a float target as its shortest
    decimal (0.3 is 3/10, not the binary 0.29999999999999998889...), and a sum rounded at the ambient mpmath
    precision could hide a 1e-21 excess."""
    tgt = Fraction(target if isinstance(target, str) else repr(target))
    v_hi, e_hi = delta_fn(hi)
    v_lo, e_lo = delta_fn(lo)
    assert lo <= hi
    assert exact(v_hi) + exact(e_hi) <= tgt
    assert exact(v_lo) - exact(e_lo) >= tgt


@pytest.mark.parametrize("sigma,target", [(1, 1e-5), (0.5, 0.3), (3, 1e-9)])
def test_epsilon_single_gaussian_contains_root(sigma, target):
    lo, hi = allocation_epsilon_quadrature(Gaussian(sigma), 1, target, "remove", digits=20)
    root = optimize.brentq(lambda e: f13(sigma, e) - target, -20, 60, xtol=1e-15, rtol=1e-15)
    assert float(lo) - 1e-12 <= root <= float(hi) + 1e-12
    check_bracket(lambda e: allocation_delta_quadrature(Gaussian(sigma), 1, e, "remove", digits=20), target, lo, hi)


@pytest.mark.parametrize("direction,target", [("remove", 0.059206501), ("add", 0.050197662)])
def test_epsilon_t2_recovers_table_point(direction, target):
    lo, hi = allocation_epsilon_quadrature(Gaussian(1), 2, target, direction, digits=15)
    assert abs(float(lo + hi) / 2 - 1) < 1e-4  # §12.1: δ(1) = target to ~1e-6 relative
    check_bracket(lambda e: allocation_delta_quadrature(Gaussian(1), 2, e, direction, digits=15), target, lo, hi)


def test_epsilon_negative_when_target_exceeds_tv():
    lo, hi = allocation_epsilon_quadrature(Gaussian(1), 2, "0.5", "remove", digits=15)
    assert hi < 0
    check_bracket(lambda e: allocation_delta_quadrature(Gaussian(1), 2, e, "remove", digits=15), 0.5, lo, hi)


def test_epsilon_laplace_flat_region_is_exact():
    """Laplace single step: δ = 1 − e^ε below −1/b, so δ = 0.7 has root ln 0.3."""
    lo, hi = allocation_epsilon_quadrature(Laplace(1), 1, "0.7", "remove", digits=20)
    assert lo <= math.log(0.3) + 1e-15 and hi >= math.log(0.3) - 1e-15
    assert hi - lo < 1e-15


@pytest.mark.parametrize("steps,rate,direction", [(1, "0.3", "remove"), (2, "0.3", "add"), (2, 1, "remove")])
def test_epsilon_poisson_brackets_verify(steps, rate, direction):
    lo, hi = poisson_epsilon_quadrature(Gaussian(1), steps, rate, "1e-4", direction, digits=15)
    check_bracket(lambda e: poisson_delta_quadrature(Gaussian(1), steps, rate, e, direction, digits=15), "1e-4", lo, hi)
    if steps == 2 and rate == 1:  # two full Gaussian steps: F13 with σ/√2
        root = optimize.brentq(lambda e: f13(1 / math.sqrt(2), e) - 1e-4, 0, 30, xtol=1e-14)
        assert float(lo) - 1e-10 <= root <= float(hi) + 1e-10


@pytest.mark.slow
def test_epsilon_t3_brackets_verify():
    lo, hi = allocation_epsilon_quadrature(Gaussian(1), 3, "0.01", "remove", digits=6)
    check_bracket(lambda e: allocation_delta_quadrature(Gaussian(1), 3, e, "remove", digits=6), 0.01, lo, hi)


# ------------------------------------------------------------------------------------ validation


def test_unsupported_steps_name_the_parameter_and_range():
    with pytest.raises(UnsupportedRequest) as info:
        allocation_delta_quadrature(Gaussian(1), 4, 1, "remove")
    assert info.value.name == "steps" and "{1, 2, 3}" in str(info.value) and "PLD" in str(info.value)
    with pytest.raises(UnsupportedRequest) as info:
        poisson_epsilon_quadrature(Gaussian(1), 3, "0.1", "1e-5", "add")
    assert info.value.name == "steps" and "{1, 2}" in str(info.value)


def test_digits_cap_for_three_steps():
    with pytest.raises(UnsupportedRequest) as info:
        allocation_delta_quadrature(Gaussian(1), 3, 1, "remove", digits=MAX_DIGITS_T3 + 1)
    assert info.value.name == "digits"


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: allocation_delta_quadrature(Gaussian(1), 2, math.inf, "remove"), "epsilon"),
        (lambda: allocation_delta_quadrature(Gaussian(1), 2, math.nan, "remove"), "epsilon"),
        (lambda: allocation_delta_quadrature(Gaussian(1), 0, 1, "remove"), "steps"),
        (lambda: allocation_delta_quadrature(Gaussian(1), 2, 1, "both"), "direction"),
        (lambda: allocation_delta_quadrature(RandomizedResponse(1), 2, 1, "remove"), "mechanism"),
        (lambda: allocation_epsilon_quadrature(Gaussian(1), 2, 0, "remove"), "delta"),
        (lambda: allocation_epsilon_quadrature(Gaussian(1), 2, 1, "remove"), "delta"),
        (lambda: poisson_delta_quadrature(Gaussian(1), 2, 0, 1, "remove"), "rate"),
        (lambda: poisson_delta_quadrature(Gaussian(1), 2, "1.5", 1, "remove"), "rate"),
        (lambda: poisson_delta_quadrature(Gaussian(1), 2, "0.5", 1, "remove", digits=2), "digits"),
    ],
)
def test_invalid_parameters(call, name):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name


@pytest.mark.parametrize(
    "query, value, sigma", [("delta", 1, "1/1000"), ("epsilon", "1e-5", "1/1000"), ("epsilon", "1e-5", "1/30")]
)
def test_unresolved_quadrature_is_refused_not_returned(query, value, sigma):
    """At small σ the t = 2 integrand is too sharp: δ(1) came out as 1.22 ± 20 (clipped to the bracket [0, 1]) and
    ε(1e-5) as [0, 20942] at σ = 1/1000, [0, 547] (add) at σ = 1/30, all labelled quadrature. A bracket that wide
    is no answer: the exact method refuses and names pld (#14); below σ = 0.002 (never resolved) before it integrates,
    naming sigma."""
    from verialloc import api
    from verialloc.config import Config

    with pytest.raises(UnsupportedRequest, match="pld") as info:
        getattr(api, query)(Config(Gaussian(sigma), steps=2), value, method="exact", budget=300)
    assert info.value.name == ("sigma" if Fraction(sigma) < Fraction(1, 500) else "method")
