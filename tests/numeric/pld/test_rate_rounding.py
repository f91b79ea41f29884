"""Poisson pld with a rate that float64 cannot hold: λ = 1 − 10⁻¹⁶ rounded to nearest is 1 − 1.1·10⁻¹⁶, a 10 %
change of 1 − λ, and the upper ε fell below the exact one (36.0437 < 36.1481 for P = (1e-20, 1 − 1e-20),
Q = (1, 0), add, δ = 0.5; fuzz seed 12 on 8397c3d). The rate is now rounded up for the upper and down for the
lower PLDs (δ is non-decreasing in λ, I6; `subsample.subsampled_law`). Checked against the exact layer."""

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from verialloc import Config, api
from verialloc.errors import InvalidParameter
from verialloc.mechanisms import DiscretePair, RandomizedResponse

#: rates float64 rounds: 1 − 10^-e near 1 (both sides of the last float below 1), thirds, decimals, tiny ones
rates = st.one_of(
    st.integers(16, 18).map(lambda e: 1 - Fraction(1, 10**e)),
    st.integers(1, 9).map(lambda m: 1 - Fraction(m, 10**16)),
    st.sampled_from([Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(1, 10**300)]),
)
mechs = st.sampled_from(
    [
        DiscretePair(["1e-20", "0.99999999999999999999"], ["1", "0"]),
        DiscretePair(["1e-20", "0.99999999999999999999"], ["0.32", "0.68"]),
        DiscretePair(["1", "0"], ["1e-20", "0.99999999999999999999"]),
        RandomizedResponse(Fraction(7, 8)),
    ]
)


@given(mechs, rates, st.integers(1, 3), st.sampled_from(["remove", "add"]), st.sampled_from(["0.5", "1e-10"]))
@example(DiscretePair(["1e-20", "0.99999999999999999999"], ["1", "0"]), 1 - Fraction(1, 10**16), 1, "add", "0.5")
@example(
    DiscretePair(["1e-20", "0.99999999999999999999"], ["0.32", "0.68"]),
    1 - Fraction(1, 10**16),
    3,
    "add",
    "5473783629981707e-305",
)
@settings(max_examples=20, deadline=None)
def test_pld_brackets_the_exact_epsilon(mech, rate, steps, direction, delta):
    config = Config(mech, scheme="poisson", steps=steps, rate=rate)
    exact = api.epsilon(config, delta, direction=direction, method="exact", digits=15)
    got = api.epsilon(config, delta, direction=direction, method="pld")
    assert got.lower <= exact.upper and exact.lower <= got.upper, (
        float(got.lower),
        float(exact.lower),
        float(got.upper),
    )


def test_a_rate_below_the_float64_range_is_refused_by_name():
    config = Config(RandomizedResponse(1), scheme="poisson", steps=2, rate="1e-400")
    with pytest.raises(InvalidParameter, match=r"^rate=1\.0e-400 is invalid: must be at least 5e-324"):
        api.epsilon(config, "1e-5", method="pld")
