"""Issue #16 item 6: the constants of F34 (truncated-Poisson bound) and F43a (asymptotic Gaussian corollary),
re-implemented here in mpmath from the printed formulas of formulas.md §5 and compared with
`verialloc.numeric.analytic.truncated_poisson.additive_terms` and `verialloc.numeric.analytic.asymptotic`.

F34 (k = 1, one block; k > 1: k blocks of t/k steps, union bound over them, [000] Cor 3.12 / [004] Lemma C.2):
    δ_A ≤ δ_{P_{t,η}} + t·δ0 + β,  η = 1/(t(1 − γ)),  β = exp(−tγ²/(2 h(ε0)²)),  h = cosh (printed) or sinh (E8),
    δ0 = δ_{N_σ}(ε0) by F13 (the Gaussian is symmetric in direction).
    For a given η: γ = 1 − 1/(tη), and the additive term is min over the ε0 grid of n·(m·δ0 + β).
F43a: σ > 8·max{sqrt(ln(t/δ)), sqrt(k/t)·ln(t/δ)} ⇒ δ_A(ε) ≤ δ_{P_{t,2k/t}}(ε) + 2δ; the smallest admissible δ is
    t·exp(−min{(σ/8)², (σ/8)·sqrt(t/k)}).
At t = 2, k = 1 the Poisson rate 2k/t is 1, i.e. the 2-fold composition of N_σ, whose exact profile is F13 with
σ/√2 — so the whole F43a value has an mpmath reference.

Tolerances: the implementation inflates β by 1e−9 and its float results by 1e−12 (documented rounding up), so
each value must lie in [reference, reference·(1 + 2e−9)]: a changed constant (8 → 7), a lost factor 2 in an
exponent, cosh ↔ sinh, or m ↔ t all move it by far more.
"""

import mpmath as mp
import pytest

from verialloc import Config, Gaussian
from verialloc.numeric.analytic import asymptotic, truncated_poisson
from verialloc.numeric.analytic.base import Options
from verialloc.numeric.analytic.truncated_poisson import EPS0_GRID
from verialloc.numeric.pld.pld_accountant import Settings

DPS = 40
REL = mp.mpf("2e-9")


def f13(sigma, eps):
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def f34_additive(sigma, t, k, eta, hoeffding):
    """min over the ε0 grid of n·(m·δ0(ε0) + exp(−mγ²/(2h(ε0)²))), γ = 1 − 1/(mη), m = t/k, n = k (F34, F35)."""
    m, n = t // k, k
    gamma = 1 - 1 / (m * mp.mpf(eta))
    h = mp.cosh if hoeffding == "cosh" else mp.sinh
    best = None
    for e0 in EPS0_GRID:
        e0 = mp.mpf(e0)
        value = n * (m * f13(sigma, e0) + mp.exp(-m * gamma**2 / (2 * h(e0) ** 2)))
        best = value if best is None or value < best else best
    return best


@pytest.mark.parametrize("sigma,t,k", [(1.0, 1000, 1), (0.6, 10_000, 1), (2.0, 100, 1), (1.0, 1000, 4)])
@pytest.mark.parametrize("hoeffding", ["cosh", "sinh"])
def test_f34_additive_terms_match_mpmath(sigma, t, k, hoeffding):
    """Every (η, additive term) of the F34 search equals the mpmath minimum over the same ε0 grid to ~1e−9 rel
    (one-sided: never below). Would catch 2 → 1 in exp(−tγ²/(2h²)), cosh² → cosh, t·δ0 → δ0, γ from the wrong η."""
    config = Config(Gaussian(sigma), steps=t, k=k)
    options = Options(hoeffding=hoeffding, eta_points=6)
    terms = truncated_poisson.additive_terms(config, options)
    checked = 0
    with mp.workdps(DPS):
        for eta, extra, _eps0 in terms:
            if eta >= 1.0:
                assert extra == 0.0
                continue
            ref = f34_additive(sigma, t, k, eta, hoeffding)
            assert mp.mpf(extra) >= ref, (eta, extra, float(ref))
            assert mp.mpf(extra) <= ref * (1 + REL), (eta, extra, float(ref), float(mp.mpf(extra) / ref - 1))
            checked += 1
    assert checked >= 3


def f43a_free(sigma, t, k):
    s = mp.mpf(sigma) / 8
    return t * mp.exp(-min(s * s, s * mp.sqrt(mp.mpf(t) / k)))


@pytest.mark.parametrize(
    "sigma,t,k", [(20.0, 2, 1), (30.0, 1000, 1), (40.0, 10_000, 10), (25.0, 64, 32), (100.0, 10**6, 1)]
)
def test_f43a_free_delta_matches_mpmath(sigma, t, k):
    """F43a's δ: within [ref, ref·(1 + 2e−9)], and the σ condition holds strictly there (checked in mpmath).
    Would catch 8 → 7, sqrt(k/t) ↔ sqrt(t/k), ln(t/δ) ↔ ln(1/δ)."""
    free = asymptotic.free_delta(sigma, t, k)
    with mp.workdps(DPS):
        ref = f43a_free(sigma, t, k)
        assert ref <= mp.mpf(free) <= ref * (1 + REL), (free, float(ref))
        log_term = mp.log(t / mp.mpf(free))
        assert mp.mpf(sigma) > 8 * max(mp.sqrt(log_term), mp.sqrt(mp.mpf(k) / t) * log_term)


FAST = Options(pld=Settings(loss_step=1e-3, tail=1e-14))


@pytest.mark.parametrize("sigma", [20.0, 40.0])
@pytest.mark.parametrize("eps", [0.01, 0.05, 0.2])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_f43a_value_at_t2_matches_f13(sigma, eps, direction):
    """t = 2, k = 1: value = δ_{N_{σ/√2}}(ε) (F13, the rate-1 Poisson) + 2·free δ. The Poisson part is a numeric
    upper PLD (second-order slack ≤ 1e−6 here), the 2δ part must be exact: checked to ref ≤ value ≤ ref + 1e−6."""
    config = Config(Gaussian(sigma), steps=2, k=1)
    value = asymptotic.delta(config, eps, direction, FAST).value
    with mp.workdps(DPS):
        ref = f13(mp.mpf(sigma) / mp.sqrt(2), eps) + 2 * f43a_free(sigma, 2, 1)
        assert ref <= mp.mpf(value) <= ref + mp.mpf("1e-6"), (value, float(ref))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("gamma", [1.0, 1.0000001, 1.58, 2.0, 37.5])
@pytest.mark.parametrize("epsilon", [1e-6, 0.1, 0.875, 2.0, 9.0])
def test_f37_shifted_epsilon_rounded_down(direction, gamma, epsilon):
    """F37 (erratum E1): ε→ = ln(1 + (e^ε − 1)/γ), ε← = −ln(1 − (1 − e^{−ε})/γ), evaluated at 50 digits here.
    δ of the Poisson profile is non-increasing in ε, so the bound needs the shifted ε rounded DOWN: the float value
    must not exceed the exact one. Would catch the 1e−12 safety margin applied upward (an unsafe rounding)."""
    import mpmath as mp
    from verialloc.numeric.analytic.decomposition import shifted_epsilon

    with mp.workdps(50):
        e, g = mp.mpf(epsilon), mp.mpf(gamma)
        exact = mp.log1p(mp.expm1(e) / g) if direction == "remove" else -mp.log1p(mp.expm1(-e) / g)
        got = shifted_epsilon(gamma, epsilon, direction)
        assert got <= exact, (got, exact)
        assert got >= exact * (1 - mp.mpf("1e-11")), (got, exact)  # and not needlessly low
