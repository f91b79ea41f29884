"""Issue #13: the relative float budget of the geometric-grid allocation (Algs 1–5 of [003]; F52, F53, E15, E17).

`GeometricDist.rel`/`.error` promise: every mass and atom m̂ of a `conv` output is within rel·m + (a share of the
ℓ1 bound `error`) of its value m in exact arithmetic — the same placement, exact sums and products of the float
input masses. Checked here independently of the code's own arithmetic:

* per entry of `conv` and of the t-fold `self_conv`: m is rebuilt in exact rationals, every pair sum placed by
  brute force (ln(e^{a+iα} + e^{b+jα}) at 40 digits, ceil for "upper", floor for "lower"; E15) — `conv`'s offset
  table, windows and tie tolerance are not used. Inputs may carry their own rel/ℓ1 perturbations, realized at
  the extreme of what they declare;
* end to end: `allocation_pld_geometric` for the Gaussian at δ down to 1e-60 against the exact layer (F13 at
  t = 1, F25 quadrature at t = 2): upper ε ≥ exact ε ≥ lower ε, and the bracket is tight (< 2 % at α = 1e-2),
  so a budget grown pessimistic again (ℓ1 ≈ 1e-11 ≫ δ) would fail;
* the inputs (Alg. 6, F53): `_discretize`'s masses and ±inf atoms for the Gaussian (σ = 0.5, 1, 2; tails down
  to β = 1e-60) against the exact law at 60 digits, each within its returned error bound (the loss law's
  accuracy contract, not a flat few ulps: scipy's ndtr is off by ~2z²·u in the tails), and `_relative_input`'s
  (rel, ℓ1) split covering them; at t = 1 every upper output mass ≥ its exact discretized mass, lower ≤.

The random conv inputs keep their pair products in the normal float range (≥ 1e-300): there each entry is within
rel·m alone, and conv's ℓ1 `error` for exact inputs is only its underflow allowance (5·pairs + 4n)·TINY; one
test makes a product underflow (1e-200·1e-200 → 0) and checks that the allowance covers it.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from verialloc.exact.quadrature import allocation_delta_quadrature
from verialloc.mechanisms import Gaussian
from verialloc.numeric.pld.allocation import geometric, geometric_conv
from verialloc.numeric.pld.allocation.geometric import LossVariable, allocation_pld_geometric
from verialloc.numeric.pld.allocation.geometric_conv import GeometricDist, conv, self_conv
from verialloc.rounding import float_down, float_up

BOUNDS = ("upper", "lower")
DIRECTIONS = ("remove", "add")
#: pair sums within this many grid steps of a grid point are ties: the code may move them one step further
TIE = 1e-6
#: perturbations are multiples of 2^-60, so every exact value stays dyadic (fast Fractions)
DYADIC = 2**60
#: smallest positive float64 (subnormal)
TINY = float(np.finfo(np.float64).smallest_subnormal)
#: unit roundoff of float64
U = 2.0**-53


class NearTie(Exception):
    """A pair or atom sum lies within TIE of a grid point (placement not determined by the exact rule alone)."""


# ------------------------------------------------------------------------------------- exact reference


class Exact:
    """An exp-space law in exact rationals on the float grid [e^{log_start + i·step}], atoms at 0 and +inf."""

    def __init__(self, log_start, step, masses, zero, inf):
        self.log_start, self.step = log_start, step
        self.masses, self.zero, self.inf = list(masses), zero, inf

    @property
    def total(self):
        return sum(self.masses, Fraction(0)) + self.zero + self.inf


def exact_conv(x: Exact, y: Exact, c: float, bound: str) -> Exact:
    """Law of X + Y on the grid [e^{c + kα}] (c: the output's float log_start), each pair sum placed by brute
    force at the first grid point ≥ it (upper; beyond the grid: +inf) or the last ≤ it (lower; below: the
    value 0). Masses are exact products and sums of the inputs' exact values."""
    n, step = len(x.masses), x.step
    out = [Fraction(0)] * n
    zero, inf = x.zero * y.zero, x.inf * y.total + y.inf * x.total - x.inf * y.inf

    def put(k, mass):
        nonlocal zero, inf
        if k < 0:
            if bound == "upper":
                out[0] += mass
            else:
                zero += mass
        elif k >= n:
            if bound == "upper":
                inf += mass
            else:
                out[n - 1] += mass
        else:
            out[k] += mass

    def index(r, exempt=False):
        if not exempt and abs(r - mp.nint(r)) < TIE:
            raise NearTie(float(r))
        return int(mp.ceil(r) if bound == "upper" else mp.floor(r))

    nzx = [i for i, m in enumerate(x.masses) if m]
    nzy = [j for j, m in enumerate(y.masses) if m]
    with mp.workdps(40):
        a, b, s, cc = (mp.mpf(v) for v in (x.log_start, y.log_start, step, c))
        ex = {i: mp.exp(a + i * s) for i in nzx}
        ey = {j: mp.exp(b + j * s) for j in nzy}
        for i in nzx:
            for j in nzy:
                # d = j − i = 0 sits within float noise of grid point i by design (directed c, Alg. 5); 40 digits
                # decide its side exactly
                put(index((mp.log(ex[i] + ey[j]) - cc) / s, exempt=i == j), x.masses[i] * y.masses[j])
        for grid, log_s, other, nz in ((x.masses, x.log_start, y.zero, nzx), (y.masses, y.log_start, x.zero, nzy)):
            if other:  # e^{s + iα} + 0: its real grid index is rational in the float parameters
                for i in nz:
                    r = (Fraction(log_s) + i * Fraction(step) - Fraction(c)) / Fraction(step)
                    put(index(mp.mpf(r.numerator) / r.denominator), grid[i] * other)
    return Exact(c, step, out, zero, inf)


def entries(d):
    return list(d.masses) + [d.zero, d.inf]


def excess(out: GeometricDist, exact: Exact, rel) -> list:
    """Per entry (masses, then zero and inf): max(0, |m̂ − m| − rel·m), exactly."""
    rel = Fraction(rel)
    return [max(Fraction(0), abs(Fraction(float(got)) - m) - rel * m) for got, m in zip(entries(out), entries(exact))]


def check_budget(out: GeometricDist, exact: Exact):
    """The contract: Σ_k max(0, |m̂_k − m_k| − rel·m_k) ≤ error (every share of the ℓ1 bound is ≥ 0)."""
    over = excess(out, exact, out.rel)
    worst = max(range(len(over)), key=over.__getitem__)
    assert sum(over) <= Fraction(out.error), (
        f"entry {worst} of {out.size}+2: excess {float(over[worst]):.3e}, total {float(sum(over)):.3e} > error "
        f"{out.error:.3e} (rel {out.rel:.3e})"
    )


def underflow_allowance(x: GeometricDist, y: GeometricDist) -> Fraction:
    """(5·pairs + 4n)·TINY exactly: pairs = product of the lengths of the inputs' nonzero spans (first to last
    nonzero mass), n the grid length, TINY the smallest subnormal."""
    spans = [np.flatnonzero(d.masses) for d in (x, y)]
    pairs = math.prod(int(s[-1] - s[0] + 1) for s in spans) if all(s.size for s in spans) else 0
    return (5 * pairs + 4 * x.size) * Fraction(TINY)


# ------------------------------------------------------------------------------------------ inputs


def random_dist(rng, n, step, *, wide=0, atoms=False, rel=0.0, error=0.0):
    """(float GeometricDist, its Exact law): random non-dyadic masses (wide > 0: log-uniform over 10^-wide..0.1,
    with some zeros), a random non-grid-aligned log_start, optional zero/inf atoms. With rel/error > 0 the
    exact law differs from the floats by the most they declare: x = (x̂ − e)(1 − δ), |δ|/(1 − δ) ≤ rel and
    Σ|e| ≤ error."""
    if wide:
        masses = 10.0 ** rng.uniform(-wide, -1, n)
        masses[rng.random(n) < 0.1] = 0.0
    else:
        masses = rng.random(n)
    zero, inf = (float(rng.uniform(0.01, 0.2)), float(rng.uniform(0.01, 0.2))) if atoms else (0.0, 0.0)
    if not masses.any():
        masses[0] = 1.0
    masses = masses * ((1 - zero - inf) / masses.sum())
    log_start = float(rng.uniform(-4, 4))
    floats = list(masses) + [zero, inf]
    values = [Fraction(float(v)) for v in floats]
    if error:  # shift 5 of the 10 largest entries by e = −(a share of error), never below 0
        picks = rng.choice(np.argsort(floats)[-10:], size=5, replace=False)
        share = Fraction(error) / len(picks)
        for p in picks:
            values[p] -= min(values[p], share)
        error = float(sum(Fraction(float(v)) - w for v, w in zip(floats, values)))
        error = math.nextafter(error, math.inf) if error else 0.0
    if rel:  # every entry at the extreme: δ = ±rel/(1 + rel), rounded towards 0 to a multiple of 2^-60
        top = int(Fraction(rel) / (1 + Fraction(rel)) * DYADIC)
        values = [v * (1 - Fraction(int(rng.choice([-top, top])), DYADIC)) for v in values]
    g = GeometricDist(log_start, step, masses, zero=zero, inf=inf, error=error, rel=rel)
    return g, Exact(log_start, step, values[:-2], values[-2], values[-1])


def draw_pair(seed, n, step, **kw):
    """Two inputs of equal length and ratio whose pair sums have no near-tie (else the next seed)."""
    while True:
        rng = np.random.default_rng(seed)
        x, ex = random_dist(rng, n, step, **kw)
        y, ey = random_dist(rng, n, step, **kw)
        try:
            return x, ex, y, ey, {b: exact_conv(ex, ey, conv(x, y, b).log_start, b) for b in BOUNDS}
        except NearTie:
            seed += 1000


# ------------------------------------------------------------------------------------------ conv


CASES = [  # seed, n, step, options
    (1, 30, 0.37, {}),
    (2, 120, 0.011, {"atoms": True}),
    (3, 200, 0.0043, {"wide": 150}),
    (4, 80, 0.093, {"wide": 150, "atoms": True}),
    (5, 150, 0.027, {"wide": 60}),
]


@pytest.mark.parametrize("seed,n,step,options", CASES)
def test_conv_every_entry_within_its_budget(seed, n, step, options):
    """F53 Alg. 4/5 (E15, E17): every mass and atom of conv(x, y) is within rel·m of its exact value m, for
    exact float inputs (rel = error = 0: the budget is conv's own rounding) — entry by entry with no ℓ1 share
    (all products are normal floats), and the ℓ1 `error` is at most the underflow allowance
    (5·pairs + 4n)·TINY, pairs from the inputs' nonzero spans; a budget of 0 is violated (power)."""
    x, _, y, _, exact = draw_pair(seed, n, step, **options)
    allowance = underflow_allowance(x, y)
    for bound in BOUNDS:
        out = conv(x, y, bound)
        assert 0 <= Fraction(out.error) <= allowance and 0 < out.rel < 1e-12
        assert not any(excess(out, exact[bound], out.rel)), "an entry off by more than rel·m"
        check_budget(out, exact[bound])
        assert any(excess(out, exact[bound], 0)), "no rounding at all: the check would have no power"


@pytest.mark.parametrize("seed,n,step,options", CASES[1:4])
@pytest.mark.parametrize("declared", ["rel", "error", "both"])
def test_conv_propagates_declared_input_budgets(seed, n, step, options, declared):
    """Inputs off by the most their rel (1e-9) and/or ℓ1 error (1e-12) allow: rel_out = ((1+rx)(1+ry)(1+γ) − 1)
    ·(1+1e-6) and error_out ≈ ex·ty + ey·tx + ex·ey cover the exact conv entry by entry. Power: with rel only, the
    deviation exceeds a budget of γ alone (the inputs' rel dropped); with ℓ1 only, its excess over rel_out is
    more than 3/4 of error_out (dropping either input's term would fail)."""
    kw = dict(options, rel=1e-9 if declared != "error" else 0.0, error=1e-12 if declared != "rel" else 0.0)
    x, _, y, _, exact = draw_pair(seed, n, step, **kw)
    for bound in BOUNDS:
        out = conv(x, y, bound)
        check_budget(out, exact[bound])
        if declared == "rel":
            gamma_only = out.rel - x.rel - y.rel - x.rel * y.rel
            assert 0 < gamma_only < 1e-12 and sum(excess(out, exact[bound], gamma_only)) > out.error
        elif declared == "error":
            assert x.error > 0 and y.error > 0
            assert sum(excess(out, exact[bound], out.rel)) > 0.75 * out.error


def recorded_self_conv(monkeypatch, base, ebase, t, bound):
    """self_conv(base, t) with every pairwise conv checked against exact_conv of the exact laws of its inputs
    (the intermediate results carry rel > 0: the per-stage propagation is checked, Alg. 3 with E14)."""
    exact_of = {id(base): ebase}
    original = geometric_conv.conv

    def checked(a, b, bd):
        out = original(a, b, bd)
        exact = exact_conv(exact_of[id(a)], exact_of[id(b)], out.log_start, bd)
        check_budget(out, exact)
        exact_of[id(out)] = exact
        return out

    monkeypatch.setattr(geometric_conv, "conv", checked)
    out, count = self_conv(base, t, bound)
    monkeypatch.undo()
    return out, exact_of[id(out)] if count else ebase, count


@pytest.mark.parametrize(
    "t,seed,n,step,options",
    [
        (3, 11, 60, 0.05, {"wide": 90, "atoms": True}),
        (5, 12, 40, 0.13, {"wide": 50}),
        (6, 13, 50, 0.021, {"atoms": True, "rel": 1e-10, "error": 1e-13}),
    ],
)
def test_self_conv_every_stage_within_its_budget(monkeypatch, t, seed, n, step, options):
    """Alg. 3 (E14): each of the ≤ 2⌈log2 t⌉ convolutions of the t-fold sum, inputs carrying the previous stages'
    rel, stays within its budget entry by entry; so does the result against the exact t-fold sum."""
    for bound in BOUNDS:
        s = seed
        while True:
            base, ebase = random_dist(np.random.default_rng(s), n, step, **options)
            try:
                out, exact, count = recorded_self_conv(monkeypatch, base, ebase, t, bound)
                break
            except NearTie:
                monkeypatch.undo()
                s += 1000
        assert count >= 2
        check_budget(out, exact)
        assert out.rel > base.rel and any(excess(out, exact, base.rel))


@pytest.mark.parametrize("bound", BOUNDS)
def test_conv_underflow_within_its_allowance(bound):
    """F53 Alg. 4/5: x = [1e-200, 1 − 1e-200, 0] on e^{0.5i}, convolved with itself. The exact pair product
    1e-400 (upper: alone at grid point 0) is lost to 0 in float64, beyond any rel·m; per entry, with exact
    Fractions, |m̂ − m| ≤ rel·m + error, and error (inputs exact: only conv's own allowance) is > 0 and at most
    (5·pairs + 4n)·TINY."""
    x = GeometricDist(0.0, 0.5, np.array([1e-200, 1 - 1e-200, 0.0]))
    ex = Exact(0.0, 0.5, [Fraction(float(m)) for m in x.masses], Fraction(0), Fraction(0))
    out = conv(x, x, bound)
    exact = exact_conv(ex, ex, out.log_start, bound)
    rel, error = Fraction(out.rel), Fraction(out.error)
    assert 0 < error <= underflow_allowance(x, x)
    for k, (got, m) in enumerate(zip(entries(out), entries(exact))):
        assert abs(Fraction(float(got)) - m) <= rel * m + error, (bound, k, float(got), float(m))
    if bound == "upper":  # the lost product: grid point 0 holds exactly 1e-200² (power: rel·m does not cover it)
        assert exact.masses[0] == Fraction(1e-200) ** 2 and out.masses[0] == 0 and excess(out, exact, out.rel)[0] > 0


# ------------------------------------------------------------------------- inputs: Alg. 6 at 60 digits


SIGMAS = ("0.5", "1", "2")
#: the three input variables of Alg. 1/2 and the sign of their exact mean: X ~ N(±μ, 2μ), μ = 1/(2σ²) (F15;
#: add: −ℓ under Q, the law of remove, computed by the mirrored functions)
VARIABLES = {
    "remove": (LossVariable.remove, 1),
    "remove_dual": (LossVariable.remove_dual, -1),
    "add": (LossVariable.add, 1),
}


def exact_tails(sigma: str, sign: int, losses) -> tuple[list, list]:
    """Φ((y − m)/s) and Φ((m − y)/s) at each float y, from the exact σ (m = ±1/(2σ²), s = √(2μ)), at the working
    precision (both tails computed directly, so each keeps its relative accuracy)."""
    mu = 1 / (2 * mp.mpf(sigma) ** 2)
    m, s = sign * mu, mp.sqrt(2 * mu)
    ys = [mp.mpf(float(y)) for y in losses]
    return [mp.ncdf((y - m) / s) for y in ys], [mp.ncdf((m - y) / s) for y in ys]


def exact_discretized(cdf, sf, bound) -> tuple[list, mp.mpf, mp.mpf]:
    """(masses, +inf atom, −inf atom) of Alg. 6 under the exact continuous law (no atoms): upper P(l_{i−1} < X ≤ l_i)
    (P(X ≤ l_0) at i = 0) and P(X > l_{n−1}) at +inf; lower P(l_i ≤ X < l_{i+1}) (P(X ≥ l_{n−1}) at the last
    point) and P(X < l_0) at −inf. A difference is taken of the smaller tail (no cancellation at 60 digits)."""
    n = len(cdf)

    def between(i, j):
        return cdf[j] - cdf[i] if cdf[j] <= sf[i] else sf[i] - sf[j]

    if bound == "upper":
        return [cdf[0]] + [between(i - 1, i) for i in range(1, n)], sf[-1], mp.mpf(0)
    return [between(i, i + 1) for i in range(n - 1)] + [sf[-1]], mp.mpf(0), cdf[0]


@pytest.mark.parametrize("beta,alpha", [(1e-60, 0.05), (1e-60, 0.37), (1e-20, 0.37)])
@pytest.mark.parametrize("sigma", SIGMAS)
def test_discretize_within_returned_bounds(sigma, beta, alpha):
    """Alg. 6 (F53, I21) with the float budget of F52's inputs: for remove, remove_dual and add, both bounds, on the
    grid [q(β), q(1 − β)] of width α·√(2μ), every mass and the ±inf atoms of `_discretize` are within their
    returned error bounds of the exact discretized masses (ncdf at 60 digits); `_relative_input`'s rel covers
    each entry relatively or its excess lands in its ℓ1 float_error (Σ max(0, |m̂ − m| − rel·m) ≤ ℓ1), with rel
    < 1e-11 (tight). Power: some mass is off by > 40u relative (scipy's ndtr in the tails), beyond the former
    flat 4-ulp CDF assumption."""
    law = (Gaussian(float(sigma))).loss_law()
    step = alpha * float(law.scale)
    worst = mp.mpf(0)
    with mp.workdps(60):
        for kind, (make, sign) in VARIABLES.items():
            var = make(law)
            lo, hi = geometric._range(var, beta)
            size = geometric._grid_size(lo, hi, step)
            cdf = sf = None
            for bound in BOUNDS:
                disc, errors, (e_inf, e_neg) = geometric._discretize(var, lo, step, size, bound)
                if cdf is None:
                    cdf, sf = exact_tails(sigma, sign, disc.losses)
                    assert cdf[0] <= 2 * beta and sf[-1] <= 2 * beta  # the grid reaches the β tails
                exact, inf, neg = exact_discretized(cdf, sf, bound)
                got = [mp.mpf(float(m)) for m in disc.masses]
                for i, (g, m, e) in enumerate(zip(got, exact, errors)):
                    assert abs(g - m) <= e, (kind, bound, i, float(disc.losses[i]), float(g), float(m), float(e))
                    worst = max(worst, abs(g - m) / m)
                assert abs(disc.inf_mass - inf) <= e_inf and abs(disc.neg_inf_mass - neg) <= e_neg, (kind, bound)
                rin, rel = geometric._relative_input(var, lo, step, size, bound)
                assert np.array_equal(rin.masses, disc.masses) and 0 < rel < 1e-11
                over = mp.fsum(
                    max(mp.mpf(0), abs(mp.mpf(float(a)) - b) - mp.mpf(rel) * b)
                    for a, b in zip(list(got) + [disc.inf_mass, disc.neg_inf_mass], exact + [inf, neg])
                )
                assert over <= rin.float_error, (kind, bound, float(over), rin.float_error, rel)
    assert worst > 40 * U, float(worst / U)


@pytest.mark.parametrize("sigma,alpha,beta", [("1", 0.2, 1e-33), ("0.5", 0.3, 1e-60), ("2", 0.05, 1e-60)])
def test_t1_output_masses_against_exact_discretization(sigma, alpha, beta):
    """F52 at t = 1 (remove, no convolution): the output PLD is the discretized law with the relative budget
    applied in its direction, so every upper mass (and the +inf atom) is ≥ the exact discretized mass at its
    loss, every lower mass ≤ it (60 digits). All three cases fail on the flat 4-ulp code (parent of 960e28a): e.g.
    (1, 0.2, 1e-33), the case the lead's commit cites, has an upper mass 2.8e-15 relative below the exact one at
    l_0 = −11.55."""
    for bound in BOUNDS:
        pld = allocation_pld_geometric(Gaussian(float(sigma)), 1, "remove", bound, alpha=alpha, beta=beta)[0]
        with mp.workdps(60):
            cdf, sf = exact_tails(sigma, 1, pld.losses)
            exact, inf, _ = exact_discretized(cdf, sf, bound)
            for i, (got, m) in enumerate(zip(pld.masses, exact)):
                ok = got >= m if bound == "upper" else got <= m
                assert ok, (bound, i, float(pld.losses[i]), float(got), float(m), float((got - m) / m))
            if bound == "upper":
                assert pld.inf_mass >= inf > 0


# ------------------------------------------------------------------------------ end to end at tiny δ


def bracket(mech, t, direction, delta, alpha=1e-2):
    """(upper, lower) PLDs of 1-of-t allocation with β = 1e-3·δ (F52: (α, β)-tight)."""
    return tuple(allocation_pld_geometric(mech, t, direction, b, alpha=alpha, beta=1e-3 * delta)[0] for b in BOUNDS)


def quadrature(sigma, t, eps, direction):
    """Exact δ(ε) of the Gaussian under 1-of-t allocation as floats (value − error, value + error): F25 by
    quadrature for t = 2, the closed form for t = 1 (F13)."""
    value, error = allocation_delta_quadrature(Gaussian(sigma), t, eps, direction, digits=10)
    return float_down(value - error), float_up(value + error)


def check_gaussian(sigma, t, delta, direction):
    """upper ε ≥ exact ε ≥ lower ε (via δ non-increasing: δ_exact(ε_lower) ≥ δ ≥ δ_exact(ε_upper)), δ_bound
    brackets the exact δ, and both brackets are tight (ε within 2 %, δ within a factor 1.5)."""
    up, lo = bracket(Gaussian(sigma), t, direction, delta)
    e_up, e_lo = up.epsilon(delta), lo.epsilon(delta)
    assert 0 < e_lo <= e_up < 1.02 * e_lo, (sigma, t, delta, direction, e_lo, e_up)
    for eps in (e_lo, e_up, e_up + 0.25):
        exact_lo, exact_hi = quadrature(sigma, t, eps, direction)
        d_up, d_lo = up.delta_bound(eps), lo.delta_bound(eps)
        assert d_lo <= exact_lo and exact_hi <= d_up, (sigma, t, delta, direction, eps, d_lo, exact_lo, d_up)
        assert d_up < 1.5 * d_lo + 2e-3 * delta  # the α shift, and the truncation β = 1e-3·δ (Thm 4.6 (2))
        if eps == e_lo:
            assert exact_lo >= delta  # so the exact ε is ≥ e_lo
        elif eps == e_up:
            assert exact_hi <= delta  # so the exact ε is ≤ e_up


@pytest.mark.parametrize("delta", [1e-12, 1e-30, 1e-60])
@pytest.mark.parametrize("sigma,t", [("0.5", 2), ("2", 2), ("0.8", 1)])
def test_gaussian_tiny_delta_against_quadrature(sigma, t, delta):
    """Issue #13 (F25, F52): at δ down to 1e-60 the Gaussian bracket contains the exact allocation profile in
    both directions and is tight — with the old ℓ1-only budget (≈ 4e-11 ≫ δ) the upper ε was +inf or far off."""
    for direction in DIRECTIONS:
        check_gaussian(sigma, t, delta, direction)
