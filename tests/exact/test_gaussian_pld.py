"""Single-step Gaussian quantities (F13, F14, F15, F41, F42, E6) against SciPy, direct integration and §12.2."""

import math

import mpmath as mp
import pytest
from hypothesis import given, strategies as st
from scipy import stats

from verialloc.errors import InvalidParameter
from verialloc.exact.gaussian_pld import (
    gaussian_add_bound,
    gaussian_add_epsilon_shift,
    gaussian_exp_pld_moment,
    gaussian_order_normalizer,
    gaussian_pld_cdf,
    gaussian_pld_logsf,
    gaussian_pld_params,
    gaussian_pld_quantile,
    gaussian_pld_sf,
    gaussian_rdp,
)

sigmas = st.sampled_from([0.3, 0.7, 1, 2, 5])


def pld_scipy(sigma):
    """L ~ N(1/(2σ²), 1/σ²) (F15) as a SciPy distribution."""
    return stats.norm(loc=1 / (2 * sigma**2), scale=1 / sigma)


def exact(x):
    """A plain number read through its decimal repr, as verialloc reads inputs (0.8 -> 4/5)."""
    return x if isinstance(x, mp.mpf) else mp.mpf(str(x))


def densities(sigma):
    s = exact(sigma)
    return (lambda x: mp.npdf(x, 1, s)), (lambda x: mp.npdf(x, 0, s))


def f13(sigma, eps):
    """F13 re-typed with mpmath."""
    s, e = exact(sigma), exact(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


def test_params():
    mu, var = gaussian_pld_params(2)
    assert (mu, var) == (mp.mpf(1) / 8, mp.mpf(1) / 4)


@given(sigma=sigmas, x=st.floats(-30, 30))
def test_sf_cdf_match_scipy(sigma, x):
    d = pld_scipy(sigma)
    assert float(gaussian_pld_sf(x, sigma)) == pytest.approx(d.sf(x), rel=1e-12, abs=1e-300)
    assert float(gaussian_pld_cdf(x, sigma)) == pytest.approx(d.cdf(x), rel=1e-12, abs=1e-300)
    with mp.workdps(30):
        assert abs(gaussian_pld_sf(x, sigma) + gaussian_pld_cdf(x, sigma) - 1) < mp.mpf(10) ** -28


@pytest.mark.parametrize("sigma,x", [(1, 30), (0.5, 200), (2, 15)])
def test_logsf_deep_tail(sigma, x):
    assert float(gaussian_pld_logsf(x, sigma)) == pytest.approx(pld_scipy(sigma).logsf(x), rel=1e-12)


def test_logsf_beyond_double_range():
    """ln Pr[L > x] where the probability underflows doubles: Mills-ratio asymptotics ln φ(z) − ln z."""
    with mp.workdps(30):
        z = mp.mpf(1000 - mp.mpf(1) / 2)  # σ = 1: mean 1/2, sd 1
        approx = -(z**2) / 2 - mp.log(z * mp.sqrt(2 * mp.pi))
        assert abs(gaussian_pld_logsf(1000, 1) - approx) < 1e-5


def test_infinite_arguments():
    assert gaussian_pld_sf(mp.inf, 1) == 0 and gaussian_pld_cdf(-mp.inf, 1) == 0
    assert gaussian_pld_sf(float("-inf"), 1) == 1


@pytest.mark.parametrize("p", ["1e-300", "1e-12", "0.3", "0.5", "0.999999999999"])
@pytest.mark.parametrize("sigma", [0.5, 1, 3])
def test_quantile_inverts_cdf(p, sigma):
    with mp.workdps(40):
        x = gaussian_pld_quantile(p, sigma)
        pm = mp.mpf(p)
        if pm <= 0.5:
            assert abs(gaussian_pld_cdf(x, sigma) / pm - 1) < mp.mpf(10) ** -35
        else:
            assert abs(gaussian_pld_sf(x, sigma) / (1 - pm) - 1) < mp.mpf(10) ** -25


@pytest.mark.parametrize("p", [1e-10, 0.01, 0.5, 0.77, 1 - 1e-9])
def test_quantile_matches_scipy(p):
    assert float(gaussian_pld_quantile(p, 1.5)) == pytest.approx(pld_scipy(1.5).ppf(p), rel=1e-9)


def test_quantile_ends_and_range():
    assert gaussian_pld_quantile(0, 1) == -mp.inf and gaussian_pld_quantile(1, 1) == mp.inf
    for bad in (-0.1, 1.5):
        with pytest.raises(InvalidParameter) as info:
            gaussian_pld_quantile(bad, 1)
        assert info.value.name == "p"


@pytest.mark.parametrize("sigma", [0.6, 1, 2])
@pytest.mark.parametrize("eps", [-1, 0, 0.5, 2])
def test_i4_hockey_stick_of_the_pld_is_f13(sigma, eps):
    """I4: H_{e^ε}(L) = E[(1 − e^{ε − L})_+] over L ~ N(μ, 2μ) equals F13."""
    with mp.workdps(25):
        mu, var = gaussian_pld_params(sigma)
        sd = mp.sqrt(var)
        h = mp.quad(lambda l: (1 - mp.exp(exact(eps) - l)) * mp.npdf(l, mu, sd), [eps, mu + 40 * sd])
        assert abs(h - f13(sigma, eps)) < mp.mpf(10) ** -18


@pytest.mark.parametrize("sigma", [0.7, 1, 3])
@pytest.mark.parametrize("s", [-1, -0.5, 0.5, 1, 2.5])
def test_exp_pld_moment_by_integration(sigma, s):
    with mp.workdps(25):
        mu, var = gaussian_pld_params(sigma)
        sd = mp.sqrt(var)
        ref = mp.quad(lambda l: mp.exp(exact(s) * l) * mp.npdf(l, mu, sd), [-mp.inf, mu, mp.inf])
        assert abs(gaussian_exp_pld_moment(s, sigma) / ref - 1) < mp.mpf(10) ** -18


@given(sigma=sigmas, alpha=st.sampled_from([2, 3, 5, 10]))
def test_exp_pld_moment_gives_rdp_moments(sigma, alpha):
    """E_P[e^{(α−1)L}] = D_α = exp(α(α−1)/(2σ²)) (F14); E[e^{−L}] = 1 (F15)."""
    with mp.workdps(30):
        d = gaussian_exp_pld_moment(alpha - 1, sigma)
        assert abs(mp.log(d) - mp.mpf(alpha * (alpha - 1)) / (2 * exact(sigma) ** 2)) < mp.mpf(10) ** -25
        assert abs(gaussian_exp_pld_moment(-1, sigma) - 1) < mp.mpf(10) ** -28


@pytest.mark.parametrize("sigma", [0.8, 2])
@pytest.mark.parametrize("alpha", ["0.3", "0.5", "2.5", "7"])
def test_rdp_by_direct_integration(sigma, alpha):
    """R_α = ln ∫P^α Q^{1−α} / (α − 1) = α/(2σ²) for α > 1 and α ∈ (0, 1) (F14, F41)."""
    with mp.workdps(25):
        p, q = densities(sigma)
        a = mp.mpf(alpha)
        z = mp.quad(lambda x: p(x) ** a * q(x) ** (1 - a), [-mp.inf, 0.5, mp.inf])
        assert abs(mp.log(z) / (a - 1) - gaussian_rdp(alpha, sigma)) < mp.mpf(10) ** -18


@pytest.mark.parametrize("sigma", [0.5, 1, 2])
@pytest.mark.parametrize("gamma", ["0", "0.25", "0.5", "0.9", "1"])
def test_order_normalizer_by_direct_integration(sigma, gamma):
    """Z_γ = ∫P^γ Q^{1−γ} = exp(−γ(1−γ)/(2σ²)) ≤ 1 (F41, F42; the printed + sign is E6)."""
    with mp.workdps(25):
        p, q = densities(sigma)
        g = mp.mpf(gamma)
        z = mp.quad(lambda x: p(x) ** g * q(x) ** (1 - g), [-mp.inf, 0.5, mp.inf])
        zz = gaussian_order_normalizer(gamma, sigma)
        assert abs(zz - z) < mp.mpf(10) ** -18 and zz <= 1


@pytest.mark.parametrize("t", [1, 2, 7])
def test_epsilon_shift_is_t_log_normalizer(t):
    with mp.workdps(30):
        shift = gaussian_add_epsilon_shift(t, 1.5)
        assert abs(shift - t * mp.log(gaussian_order_normalizer(mp.mpf(1) / t, 1.5))) < mp.mpf(10) ** -25
        assert shift <= 0


@pytest.mark.parametrize("sigma", [0.4, 1, 3])
@pytest.mark.parametrize("eps", [-2, 0, 1.5])
def test_add_bound_t1_is_f13(sigma, eps):
    assert abs(gaussian_add_bound(1, sigma, eps) - f13(sigma, eps)) < 1e-14


@pytest.mark.parametrize("eps,ref", [(0, 0.37085), (0.5, 0.192155), (1, 0.0732488), (2, 0.00348817)])
def test_add_bound_reference_values(eps, ref):
    """§12.2: F42 at t = 2, σ = 1."""
    assert float(gaussian_add_bound(2, 1, eps)) == pytest.approx(ref, rel=2e-5)


# formulas.md §12.1 add column at t = 2 (σ, ε) -> δ
ADD_T2 = {
    (0.5, 0): 0.59975061,
    (0.5, 0.5): 0.49124799,
    (0.5, 1): 0.38033919,
    (0.5, 2): 0.18644915,
    (1, 0): 0.29776223,
    (1, 0.5): 0.14268697,
    (1, 1): 0.050197662,
    (1, 2): 0.0020559245,
    (2, 0): 0.14402832,
    (2, 0.5): 0.017397486,
    (2, 1): 0.00047900624,
    (2, 2): 1.9429956e-09,
}


@pytest.mark.parametrize("key", sorted(ADD_T2))
def test_add_bound_dominates_exact_add_profile(key):
    """I32: F42 ≥ the exact t = 2 add profile of §12.1."""
    sigma, eps = key
    assert float(gaussian_add_bound(2, sigma, eps)) >= ADD_T2[key] * (1 + 2e-6)


def test_e6_sign_flip_violates_the_exact_profile():
    """E6: with ε' = ε + (1 − 1/t)/(2σ²) the 'bound' falls below the exact add value at σ = 1, ε = 1."""
    wrong = f13(math.sqrt(2), 1 + 0.25)
    assert float(wrong) == pytest.approx(0.0194973, rel=1e-5)
    assert wrong < ADD_T2[(1, 1)]
    assert gaussian_add_bound(2, 1, 1) > ADD_T2[(1, 1)]


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: gaussian_pld_sf(0, 0), "sigma"),
        (lambda: gaussian_pld_sf("nan", 1), "x"),
        (lambda: gaussian_rdp(0, 1), "alpha"),
        (lambda: gaussian_order_normalizer(1.5, 1), "gamma"),
        (lambda: gaussian_add_bound(0, 1, 1), "steps"),
        (lambda: gaussian_add_bound(2, 1, math.inf), "epsilon"),
    ],
)
def test_invalid_parameters(call, name):
    with pytest.raises(InvalidParameter) as info:
        call()
    assert info.value.name == name
