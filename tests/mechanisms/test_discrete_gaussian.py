"""The discrete Gaussian (mechanisms/discrete_gaussian.py), the mechanism added as one module plus its registration.

References are computed here, independently of the module: its masses as direct sums over a wide integer window
in mpmath (the mass outside |x| ≤ 40σ + 40 is below 1e-300), the hockey-stick of one step and of 2-step allocation
and Poisson by enumerating that window (F2, F11, F22, F46), the Gaussian moments in closed form (F14). Every method
that serves it is held to them: its exact layer (the bracket of two finite pairs, in which the truncated tail is
carried: lower merges the tails, upper sends them to ±inf loss), pld, rdp, and the command line.
"""

import itertools
import json
import subprocess
import sys
from fractions import Fraction

import mpmath as mp
import pytest

from verialloc import Config, api
from verialloc.mechanisms.discrete_gaussian import TAIL, DiscreteGaussian
from verialloc.mechanisms.registry import MECHANISMS


def masses(sigma, width=None):
    """{x: (P(x), Q(x))} over the window |x| ≤ width, normalized by the window's own sum (the rest < 1e-300)."""
    s = mp.mpf(Fraction(sigma).numerator) / Fraction(sigma).denominator
    width = width or int(40 * float(s) + 40)
    w = {x: mp.exp(-(mp.mpf(x) ** 2) / (2 * s * s)) for x in range(-width - 1, width + 2)}
    z = mp.fsum(w.values())
    return {x: (w[x - 1] / z, w[x] / z) for x in range(-width, width + 1)}


def hockey(pairs, eps, direction):
    kappa = mp.exp(eps)
    return mp.fsum(max((a - kappa * b) if direction == "remove" else (b - kappa * a), 0) for a, b in pairs)


@pytest.mark.parametrize("sigma", ["0.7", "1", "2.5"])
@pytest.mark.parametrize("eps", ["-2", "0", "0.3", "1", "4.75"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_single_step_profile_is_the_sum_over_the_integers(sigma, eps, direction):
    mech = DiscreteGaussian(sigma)
    with mp.workdps(40):
        ref = hockey(masses(sigma).values(), mp.mpf(Fraction(eps).numerator) / Fraction(eps).denominator, direction)
        got = mech.delta(eps, direction)
        assert abs(got - ref) <= mp.mpf(10) ** -35 * max(ref, mp.mpf(10) ** -300)


def direct_normalizer(sigma, width) -> mp.mpf:
    """Σ_{|x| ≤ width} e^{−x²/(2σ²)} term by term at the current precision: each term from the previous one by the
    ratio e^{−(2x + 1)/(2σ²)}, itself updated by e^{−1/σ²} (no theta function, no summation formula)."""
    s = mp.mpf(Fraction(sigma).numerator) / Fraction(sigma).denominator
    term, ratio, step = mp.mpf(1), mp.exp(-1 / (2 * s * s)), mp.exp(-1 / (s * s))
    total = mp.mpf(1)
    for _ in range(width):
        term *= ratio
        ratio *= step
        total += 2 * term
    return total


@pytest.mark.parametrize("sigma", ["0.25", "0.5", "1", "7/3", "100", "1000", "3000", "10000"])
def test_normalizer_is_the_direct_sum_at_every_sigma(sigma):
    """Z = Σ_x e^{−x²/(2σ²)} to the working precision for every σ the mechanism takes (hostile-user pass: above
    σ ≈ 2236 mpmath's θ₃ at the nome e^{−1/(2σ²)} ≈ 1 raised "abs(q) > THETA_Q_LIM", exit 3, and from σ ≈ 100 on
    it lost digits: 5e-11 relative at σ = 1000 and 15 digits). The sum is cut at 14σ + 10, where the rest is below
    e^{−98} relative."""
    width = int(14 * float(Fraction(sigma))) + 10
    with mp.workdps(45):  # the recurrence's roundings add up over the ~width steps: 15 guard digits
        ref = direct_normalizer(sigma, width)
    with mp.workdps(30):
        got = DiscreteGaussian(sigma)._normalizer()
        assert abs(got - ref) <= mp.mpf(10) ** -27 * ref


@pytest.mark.parametrize("sigma", ["0.5", "1", "3"])
@pytest.mark.parametrize("eps", ["-1", "0.2", "2"])
def test_the_finite_brackets_hold_the_profile_within_the_tail(sigma, eps):
    """lower pair ≤ the pair ≤ upper pair at every ε, both directions (F8), and they differ by at most the tails."""
    mech = DiscreteGaussian(sigma)
    lower, upper = mech.finite_pairs()
    with mp.workdps(45):
        for d in ("remove", "add"):
            lo, mid, hi = lower.delta(eps, d), mech.delta(eps, d), upper.delta(eps, d)
            rounding = mp.mpf(10) ** -40 * mid  # the three sums' own rounding at 45 digits
            assert lo <= mid + rounding and mid <= hi + rounding
            assert hi - lo <= 4 * mp.mpf(TAIL.numerator) / TAIL.denominator * mp.exp(max(0, float(Fraction(eps))))


@pytest.mark.parametrize("p", [2, 3, 7])
def test_integer_moments_are_the_gaussian_closed_form(p):
    """D_p = e^{p(p−1)/(2σ²)} at integer p (shift invariance of the sum over the integers; F14 for the continuous)."""
    with mp.workdps(40):
        ref = mp.fsum(q * (a / q) ** p for a, q in masses("0.8").values())
        assert abs(DiscreteGaussian("0.8").moment(p) - ref) <= mp.mpf(10) ** -30 * ref
        assert abs(ref - mp.exp(mp.mpf(p * (p - 1)) / (2 * mp.mpf("0.64")))) <= mp.mpf(10) ** -30 * ref


def two_step_reference(sigma, eps, direction, scheme):
    """δ(ε) of 2-step allocation (k = 1) or Poisson (rate 1/3) of the pair, enumerated on the window (F11, F22, F46)."""
    one = masses(sigma, width=14)
    terms = []
    for (x, (px, qx)), (y, (py, qy)) in itertools.product(one.items(), repeat=2):
        if scheme == "allocation":
            a = (px * qy + qx * py) / 2
        else:
            lam = mp.mpf(1) / 3
            a = (lam * px + (1 - lam) * qx) * (lam * py + (1 - lam) * qy)
        terms.append((a, qx * qy))
    return hockey(terms, mp.mpf(eps), direction)


@pytest.mark.parametrize("scheme", ["allocation", "poisson"])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_exact_layer_brackets_two_step_schemes(scheme, direction):
    config = Config(DiscreteGaussian("0.7"), scheme=scheme, steps=2, rate="1/3" if scheme == "poisson" else None)
    for eps in ("0.25", "1.5"):
        b = api.delta(config, eps, direction=direction, digits=25)
        assert b.error_kind == "bound"
        with mp.workdps(45):
            ref = two_step_reference("0.7", eps, direction, scheme)
            slack = mp.mpf(10) ** -55  # the reference window's own truncation
            assert b.lower <= ref + slack and ref - slack <= b.upper
            assert b.upper - b.lower <= mp.mpf(10) ** -25


@pytest.mark.parametrize(
    "config",
    [
        Config(DiscreteGaussian("0.8"), steps=3),
        Config(DiscreteGaussian("1.5"), scheme="poisson", steps=3, rate="0.2"),
        Config(DiscreteGaussian("0.5"), steps=2, epochs=2),
    ],
)
@pytest.mark.parametrize("query, value", [("epsilon", "1e-5"), ("delta", "0.75")])
def test_pld_brackets_the_exact_layer(config, query, value):
    """The pld method (upper PLDs from the upper bracket pair, lower from the lower) against the exact layer's
    bracket, both directions, and within 1 % of it."""
    ask = api.epsilon if query == "epsilon" else api.delta
    exact = ask(config, value, digits=20)
    pld = ask(config, value, method="pld")
    assert pld.lower <= exact.lower and exact.upper <= pld.upper
    assert float(pld.upper - pld.lower) <= 0.01 * float(exact.upper) + 1e-9


def test_rdp_is_the_gaussians_at_integer_orders():
    """Allocation RDP from the moments: the discrete Gaussian's integer moments are the Gaussian's, so the exact
    values agree, and the float route's bracket holds them."""
    from verialloc import Gaussian

    config, same = Config(DiscreteGaussian(1), steps=10), Config(Gaussian(1), steps=10)
    exact = api.rdp(config, 6)
    assert exact.lower == api.rdp(same, 6).lower
    fast = api.rdp(config, 6, method="rdp")
    assert fast.lower <= exact.lower <= fast.upper


def test_one_module_and_one_registration():
    """Registered by name; the command line and configuration files take it with its parameter."""
    assert MECHANISMS["discrete-gaussian"] is DiscreteGaussian
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "verialloc.cli",
            "epsilon",
            "--mechanism",
            "discrete-gaussian",
            "--sigma",
            "0.8",
            "--steps",
            "3",
            "--delta",
            "1e-5",
            "--method",
            "pld",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    exact = api.epsilon(Config(DiscreteGaussian("0.8"), steps=3), "1e-5", digits=20)
    assert float(got["lower"]) <= exact.lower and exact.upper <= float(got["upper"])


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--sigma", "0"], "sigma"),
        (["--sigma", "20000"], "sigma"),
        (["--scale", "1"], "scale"),
    ],
)
def test_bad_parameters_name_themselves(argv, named):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "verialloc.cli",
            "epsilon",
            "--mechanism",
            "discrete-gaussian",
            *argv,
            "--steps",
            "3",
            "--delta",
            "1e-5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and out.stdout == "" and len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith(f"verialloc: error: {named}=")
