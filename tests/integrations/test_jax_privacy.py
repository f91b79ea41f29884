"""The jax_privacy bridge without jax: fake strategies carrying jax_privacy 1.0.0's field names (batch_selection.py),
the translation table, refusals, and the balls-in-bins mapping against jax_privacy's own dominating pair evaluated
here in mpmath (not through verialloc's allocation code)."""

import dataclasses
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, Gaussian, api
from verialloc.errors import InvalidParameter, UnsupportedRequest
from verialloc.integrations.jax_privacy import SIGMA_DIGITS, from_jax_privacy


@dataclasses.dataclass(frozen=True)
class BallsInBinsSampling:  # jax_privacy.batch_selection.BallsInBinsSampling
    iterations: int
    cycle_length: int


@dataclasses.dataclass(frozen=True)
class CyclicPoissonSampling:  # jax_privacy.batch_selection.CyclicPoissonSampling (partition_type omitted)
    sampling_prob: float
    iterations: int
    truncated_batch_size: int | None = None
    cycle_length: int = 1


@dataclasses.dataclass(frozen=True)
class BMinSepSampling:  # fields of jax_privacy's b-min-sep strategy that matter here
    sampling_prob: float
    iterations: int
    min_sep: int
    truncated_batch_size: int | None = None


TABLE = [
    (BallsInBinsSampling(400, 100), 1.0, Config(Gaussian(Fraction(1, 2)), steps=100)),
    (BallsInBinsSampling(100, 100), 0.8, Config(Gaussian("0.8"), steps=100)),
    (BallsInBinsSampling(900, 100), 3, Config(Gaussian(1), steps=100)),
    (BallsInBinsSampling(5, 1), 0.8, Config(Gaussian("0.8"), "poisson", steps=5, rate=1)),
    (CyclicPoissonSampling(0.01, 1000), 1.0, Config(Gaussian(1), "poisson", steps=1000, rate=Fraction(1, 100))),
    (
        CyclicPoissonSampling(0.01, 1001, cycle_length=4),
        0.8,
        Config(Gaussian("0.8"), "poisson", steps=251, rate="0.01"),
    ),
    (CyclicPoissonSampling(1, 8, cycle_length=4), 2, Config(Gaussian(2), "poisson", steps=2, rate=1)),
]


@pytest.mark.parametrize("strategy, sigma, expected", TABLE)
def test_translation_table(strategy, sigma, expected):
    assert from_jax_privacy(strategy, sigma) == expected


def test_irrational_noise_is_rounded_down_to_sigma_digits():
    sigma = from_jax_privacy(BallsInBinsSampling(300, 100), 1).mechanism.sigma
    ulp = Fraction(1, 10**SIGMA_DIGITS)  # 1/√3 < 1: the last of SIGMA_DIGITS digits is 10^-SIGMA_DIGITS
    assert 3 * sigma**2 < 1 < 3 * (sigma + ulp) ** 2  # sigma <= 1/√3 < sigma + ulp, exactly
    assert sigma == Fraction("0.577350269189625764509148780501")


@pytest.mark.parametrize(
    "strategy, sigma, error, name",
    [
        (BallsInBinsSampling(301, 100), 1, UnsupportedRequest, "BallsInBinsSampling.iterations=301"),
        (BallsInBinsSampling(0, 10), 1, InvalidParameter, "BallsInBinsSampling.iterations=0"),
        (BallsInBinsSampling(10, 0), 1, InvalidParameter, "BallsInBinsSampling.cycle_length=0"),
        (BallsInBinsSampling(10, 10), 0, InvalidParameter, "noise_multiplier=0"),
        (
            CyclicPoissonSampling(0.01, 100, truncated_batch_size=64),
            1,
            UnsupportedRequest,
            "CyclicPoissonSampling.truncated_batch_size=64",
        ),
        (CyclicPoissonSampling(0, 100), 1, InvalidParameter, "CyclicPoissonSampling.sampling_prob=0"),
        (CyclicPoissonSampling(1.5, 100), 1, InvalidParameter, "CyclicPoissonSampling.sampling_prob=1.5"),
        (BMinSepSampling(0.1, 100, 4), 1, UnsupportedRequest, "strategy=BMinSepSampling"),
        (object(), 1, UnsupportedRequest, "strategy=object"),
    ],
)
def test_refusals_name_the_field(strategy, sigma, error, name):
    with pytest.raises(error, match=name.replace(".", r"\.")):
        from_jax_privacy(strategy, sigma)


def balls_in_bins_delta(sigma, bins: int, cycles: int, eps) -> mp.mpf:
    """δ(ε), remove direction, of jax_privacy's balls-in-bins pair (sample_generation._generate_balls_in_bins_sample
    with c_col = [1]): P = N(x_J, σ²I_T) with J uniform on the bins, Q = N(0, σ²I_T), T = cycles·bins, x_j the
    indicator of the rounds ≡ j. u_j = <y, x_j>/(σ√cycles) are iid N(0, 1) under Q and shifted by μ = √cycles/σ on J
    under P; L = (1/t) Σ exp(μ u_j − μ²/2). For t = 2, in a = (u0 + u1)/√2, b = (u0 − u1)/√2:
    L = exp(μa/√2 − μ²/2) cosh(μb/√2), and δ = E_Q[(L − e^ε)_+] is Gaussian in a for fixed b, integrated over b."""
    assert bins == 2
    mu = mp.sqrt(cycles) * sigma.denominator / sigma.numerator
    e = mp.mpf(eps.numerator) / eps.denominator
    r = mu / mp.sqrt(2)

    def given_b(b):
        c = mp.exp(-(mu**2) / 2) * mp.cosh(r * b)
        a_star = (e - mp.log(c)) / r  # L > e^ε  iff  a > a*
        return (c * mp.exp(r**2 / 2) * mp.ncdf(r - a_star) - mp.exp(e) * mp.ncdf(-a_star)) * mp.npdf(b)

    return mp.quad(given_b, [-mp.inf, 0, mp.inf])


@pytest.mark.parametrize("sigma, cycles, eps", [(2, 4, 1), (1, 3, "0.5"), ("0.8", 1, 2)])
def test_balls_in_bins_against_jax_privacys_dominating_pair(sigma, cycles, eps):
    config = from_jax_privacy(BallsInBinsSampling(2 * cycles, 2), sigma)
    ours = api.delta(config, eps, direction="remove", method="exact", digits=20)
    with mp.workdps(30):
        ref = balls_in_bins_delta(Fraction(str(sigma)), 2, cycles, Fraction(eps))
    assert mp.almosteq(mp.mpf(ours.lower), ref, rel_eps=1e-10), (ours, ref)


def test_balls_in_bins_is_not_verialloc_epochs():
    """A fixed bin over E cycles (jax_privacy) is less private than a bin redrawn per epoch (verialloc epochs=E)."""
    fixed = api.delta(from_jax_privacy(BallsInBinsSampling(4, 2), 1), 1, direction="remove", method="exact")
    redrawn = api.delta(Config(Gaussian(1), steps=2, epochs=2), 1, direction="remove", method="pld")
    assert fixed.lower > redrawn.upper


def test_cyclic_poisson_is_jax_privacys_own_event():
    """jax_privacy's amplified_bandmf_event / DpsgdTrainingAccountant compose PoissonSampled(q, Gaussian(σ))
    ⌈iterations/cycle_length⌉ times; the dp_accounting bridge translates that event to the same Config."""
    dpa = pytest.importorskip("dp_accounting")
    from verialloc.integrations.dp_accounting import from_dp_event

    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(0.8)), -(-1001 // 4))
    strategy = CyclicPoissonSampling(0.01, 1001, cycle_length=4)
    assert from_jax_privacy(strategy, 0.8) == from_dp_event(event)


def gaussian_delta(mu, eps):
    """δ(ε) of N(μ, 1) vs N(0, 1) (F-closed form of the Gaussian mechanism), in mpmath."""
    return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize("eps", ["0.5", 2])
def test_a_plan_of_full_batch_phases_is_one_gaussian_whose_mu_squared_adds(eps):
    """Phases: 5 full-batch rounds at σ = 0.8, then 3 at σ = 2 (BallsInBins with cycle_length 1): μ² = 5/0.64 + 3/4."""
    plan = [(BallsInBinsSampling(5, 1), "0.8"), (BallsInBinsSampling(3, 1), 2)]
    ledger = from_jax_privacy(plan)
    assert len(ledger.events) == 2
    ours = api.delta(ledger, eps, direction="remove", method="exact", digits=20)
    with mp.workdps(30):
        ref = gaussian_delta(mp.sqrt(mp.mpf(5) / mp.mpf("0.64") + mp.mpf(3) / 4), mp.mpf(eps))
    assert mp.almosteq(ours.lower, ref, rel_eps=1e-18), (ours, ref)  # exact: correct to the 20 digits asked


def test_a_plan_is_the_ledger_of_its_phases_translated_one_by_one():
    plan = [(BallsInBinsSampling(400, 100), 1.0), (CyclicPoissonSampling(0.01, 1000), 1.0)]
    assert from_jax_privacy(plan).events == tuple(from_jax_privacy(s, sigma) for s, sigma in plan)


@pytest.mark.parametrize("plan", [[], "plan", [(BallsInBinsSampling(4, 2),)], [BallsInBinsSampling(4, 2)]])
def test_a_malformed_plan_is_refused_naming_it(plan):
    with pytest.raises(InvalidParameter, match="noise_multiplier|phases"):
        from_jax_privacy(plan)
