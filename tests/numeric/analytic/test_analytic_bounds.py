"""Analytic bounds (F34, F36, F37, F42, F43a) are UPPER bounds: each ≥ the exact profile, per direction (I11).

References: the exact layer (`api.delta(..., method="exact")`: count enumeration for randomized response and
discrete pairs at any t and k, quadrature for the Gaussian at t = 2), formulas.md §12.1/§12.2 reference values.
"""

import math

import pytest
from hypothesis import given, settings, strategies as st

from verialloc import Config, DiscretePair, Gaussian, RandomizedResponse, api
from verialloc.errors import UnsupportedRequest
from verialloc.numeric.pld.pld_accountant import Settings
from verialloc.numeric.analytic import BOUNDS, Options, asymptotic, decomposition, direct_add, recursive

FAST = Options(pld=Settings(loss_step=2e-3, tail=1e-12), eta_points=5, eta_span=8.0)


def exact(config, eps, direction):
    return float(api.delta(config, eps, direction=direction, method="exact", digits=15).upper)


def applicable(config, eps, direction, options=FAST):
    out = {}
    for bound in BOUNDS:
        try:
            out[bound.NAME] = bound.delta(config, eps, direction, options).value
        except UnsupportedRequest:
            pass
    return out


def assert_upper(config, eps, direction, options=FAST):
    truth = exact(config, eps, direction)
    values = applicable(config, eps, direction, options)
    assert values, "no bound applied"
    for name, value in values.items():
        assert value >= truth * (1 - 1e-12), (name, direction, eps, value, truth)
    return truth, values


# §12.1 exact t = 2 Gaussian profiles (remove, add) and §12.2 bound values
TABLE_12_2_DECOMPOSITION = {  # sigma -> {eps: (remove bound, add bound)}
    0.5: {0.5: (0.580678, 0.562485), 1: (0.498689, 0.456663), 2: (0.342577, 0.251924)},
    1: {0.5: (0.225964, 0.207355), 1: (0.124254, 0.093131), 2: (0.026314, 0.00735063)},
    2: {0.5: (0.0481224, 0.0403128), 1: (0.00676851, 0.00307232), 2: (2.31521e-05, 2.46314e-07)},
}
TABLE_12_2_DIRECT_ADD = {0: 0.37085, 0.5: 0.192155, 1: 0.0732488, 2: 0.00348817}  # sigma = 1, t = 2


@pytest.mark.parametrize("sigma", [1, 2])
@pytest.mark.parametrize("eps", [0.5, 1, 2])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_gaussian_t2_every_bound_above_exact(sigma, eps, direction):
    assert_upper(Config(Gaussian(sigma), steps=2), eps, direction)


@pytest.mark.parametrize("sigma", sorted(TABLE_12_2_DECOMPOSITION))
def test_decomposition_reproduces_reference_12_2(sigma):
    """F37 at t = 2, λ = 1/2 (γ→ = 4/3): §12.2 values up to the Poisson PLD's second-order slack."""
    config = Config(Gaussian(sigma), steps=2)
    options = Options(pld=Settings(loss_step=1e-4, tail=1e-15))
    for eps, pair in TABLE_12_2_DECOMPOSITION[sigma].items():
        for direction, ref in zip(("remove", "add"), pair):
            value = decomposition.delta(config, eps, direction, options).value
            assert value >= ref * (1 - 1e-5) and value <= ref * (1 + 1e-3), (sigma, eps, direction, value, ref)


def test_direct_add_reproduces_reference_12_2():
    config = Config(Gaussian(1), steps=2)
    for eps, ref in TABLE_12_2_DIRECT_ADD.items():
        assert direct_add.delta(config, eps, "add").value == pytest.approx(ref, rel=2e-5)


def test_e6_printed_sign_is_violated_corrected_sign_holds():
    """Erratum E6 at t = 2, σ = 1, ε = 1: δ_{N(√2σ)}(ε ± (1−1/t)/(2σ²)) against the exact add profile."""
    import mpmath as mp
    from verialloc.mechanisms.gaussian import gaussian_delta

    config = Config(Gaussian(1), steps=2)
    truth = exact(config, 1, "add")
    assert truth == pytest.approx(0.050197662, rel=1e-7)  # §12.1
    with mp.workdps(30):
        shift = direct_add.epsilon_shift(Gaussian(1).sigma, 2)
        printed = float(gaussian_delta(mp.sqrt(2), 1 + shift))
    assert printed == pytest.approx(0.0194973, rel=1e-5) and printed < truth  # the printed sign fails
    assert direct_add.delta(config, 1, "add").value >= truth  # the corrected one holds


def test_e1_add_direction_has_its_own_gamma_and_both_forms_hold():
    """Erratum E1: the add bound uses γ← = 1 + e^ε(γ→ − 1) and ε←, not the remove pair (γ→, ε→)."""
    g_remove, g_add = decomposition.gammas(2, 0.5, 1.0)
    assert g_remove == pytest.approx(4 / 3) and g_add == pytest.approx(1 + math.e / 3)
    assert decomposition.shifted_epsilon(g_remove, 1.0, "remove") == pytest.approx(math.log1p(math.expm1(1) * 0.75))
    assert decomposition.shifted_epsilon(g_remove, 1.0, "add") == pytest.approx(-math.log1p(math.expm1(-1) * 0.75))
    config = Config(Gaussian(1), steps=2)
    for direction in ("remove", "add"):
        assert decomposition.delta(config, 1, direction, FAST).value >= exact(config, 1, direction)


@settings(max_examples=15)
@given(
    eps0=st.sampled_from([0.3, 0.7, 1.5]),
    t=st.integers(2, 9),
    eps=st.sampled_from([0.05, 0.2, 0.6, 1.2]),
    direction=st.sampled_from(["remove", "add"]),
)
def test_randomized_response_every_bound_above_exact(eps0, t, eps, direction):
    assert_upper(Config(RandomizedResponse(eps0), steps=t), eps, direction)


@settings(max_examples=10)
@given(
    k=st.integers(1, 3),
    blocks=st.integers(2, 4),
    epochs=st.integers(1, 2),
    eps=st.sampled_from([0.1, 0.4, 1.0]),
    direction=st.sampled_from(["remove", "add"]),
)
def test_k_and_epochs_compose_above_exact(k, blocks, epochs, eps, direction):
    """F27 blocks and epochs (union bound over copies): still ≥ the exact k-subset profile."""
    assert_upper(Config(RandomizedResponse(0.8), steps=k * blocks, k=k, epochs=epochs), eps, direction)


def test_discrete_pair_with_infinite_loss():
    config = Config(DiscretePair(["0.5", "0.3", "0.2"], ["0.6", "0.4", "0"]), steps=4)
    for direction in ("remove", "add"):
        for eps in (0.1, 0.5):
            assert_upper(config, eps, direction)


def test_validity_conditions_are_enforced():
    gauss = Config(Gaussian(1), steps=10)
    with pytest.raises(UnsupportedRequest):
        direct_add.delta(gauss, 1.0, "remove")
    with pytest.raises(UnsupportedRequest):
        direct_add.delta(Config(RandomizedResponse(1), steps=10), 1.0, "add")
    with pytest.raises(UnsupportedRequest):
        decomposition.delta(Config(Gaussian(1), steps=10, epochs=2), 1.0, "remove")
    with pytest.raises(UnsupportedRequest):
        decomposition.delta(gauss, -0.1, "remove")
    with pytest.raises(UnsupportedRequest):
        recursive.delta(Config(Gaussian(1), steps=1), 1.0, "remove")
    with pytest.raises(UnsupportedRequest):
        recursive.delta(gauss, 0.0, "add")
    with pytest.raises(UnsupportedRequest):
        asymptotic.delta(gauss, 1.0, "remove")  # σ = 1 is far below 8·sqrt(ln(t/δ))
    with pytest.raises(UnsupportedRequest):
        asymptotic.delta(Config(Gaussian(200), steps=10, k=3), 1.0, "remove")  # k ∤ t


def test_e7_printed_tau_is_not_larger_than_conservative():
    config = Config(Gaussian(2), steps=50)
    printed = recursive.delta(
        config, 0.5, "remove", Options(pld=FAST.pld, eta_points=5, eta_span=8.0, tau_factor=1)
    ).value
    conservative = recursive.delta(config, 0.5, "remove", FAST).value
    assert printed <= conservative


def test_asymptotic_corollary_regime():
    """F43a applies for σ > 8·max{…}; σ = 40, t = 100: still an upper bound (vs the PLD lower bound)."""
    config = Config(Gaussian(40), steps=100)
    value = asymptotic.delta(config, 0.01, "remove", FAST).value
    lower = float(
        api.delta(config, 0.01, direction="remove", method="pld", settings=Settings(loss_step=1e-4, tail=1e-12)).lower
    )
    assert 0 < value <= 1 and value >= lower
