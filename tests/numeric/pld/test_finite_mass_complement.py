"""A finite mass next to a singular mass near 1: P = (τ, 1 − τ), Q = (1, 0) with τ ≤ 1e-17. The float64 P(Q = 0) is
1.0, so a finite total formed as 1 − p_inf is 0 instead of τ, and the lower pair discretization put the whole
atom on the grid point above its loss (lower ε 45.35885 > exact 45.35855 at τ = 1e-20, δ = 0.5; fuzz seed 12 on
8397c3d). The laws now report their finite masses directly (LossLaw.finite_p/finite_q). Checked against the exact
layer, both directions (the mirrored pair for remove), Poisson and allocation."""

from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from verialloc import Config, api
from verialloc.mechanisms import DiscretePair

#: τ: decimal and dyadic, below where 1 − τ is a float64 other than 1, down to where the loss range (ln 1/τ per
#: step) keeps the pld grid within its default budget
taus = st.one_of(
    st.integers(17, 30).map(lambda e: Fraction(1, 10**e)),
    st.integers(57, 99).map(lambda e: Fraction(1, 2**e)),
    st.builds(lambda m, e: Fraction(m, 10**e), st.integers(1, 9), st.integers(18, 29)),
)


def pair(tau: Fraction, direction: str, other: tuple) -> DiscretePair:
    """remove: Q = (τ, 1 − τ) against P = other; add: P = (τ, 1 − τ) against Q = other (the same add pair)."""
    tiny = [tau, 1 - tau]
    return DiscretePair(other, tiny) if direction == "remove" else DiscretePair(tiny, other)


@given(
    taus,
    st.sampled_from(["remove", "add"]),
    st.sampled_from([(1, 0), (Fraction(8, 25), Fraction(17, 25))]),
    st.sampled_from(["poisson", "allocation"]),
    st.integers(1, 3),
    st.sampled_from(["0.5", "1e-10"]),
)
@example(Fraction(1, 10**20), "add", (1, 0), "poisson", 1, "0.5")
@example(Fraction(1, 10**20), "remove", (1, 0), "poisson", 3, "1e-10")
@example(Fraction(1, 10**30), "add", (Fraction(8, 25), Fraction(17, 25)), "allocation", 3, "1e-10")
@settings(max_examples=25, deadline=None)
def test_pld_brackets_the_exact_epsilon(tau, direction, other, scheme, steps, delta):
    mech = pair(tau, direction, other)
    config = Config(mech, scheme=scheme, steps=steps, rate=1) if scheme == "poisson" else Config(mech, steps=steps)
    exact = api.epsilon(config, delta, direction=direction, method="exact", digits=15)
    got = api.epsilon(config, delta, direction=direction, method="pld")
    assert got.lower <= exact.upper and exact.lower <= got.upper, (
        float(got.lower),
        float(exact.lower),
        float(got.upper),
    )


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_finite_totals_are_not_complements(direction):
    law = (pair(Fraction(1, 10**20), direction, (1, 0))).loss_law()
    tiny = law.finite_q() if direction == "remove" else law.finite_p()
    assert tiny == 1e-20  # 1 − q_neg_inf (remove) or 1 − p_inf (add) would be 0.0
