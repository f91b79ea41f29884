"""A δ query whose answer the allocation's float budget would decide is rebuilt in the tail-accurate mode, as an ε
query is (pipeline.answer, tighten.delta_budget_floor; newcomer pass of issue #30: σ = 0.8, t = 10³, E = 3, δ(2)
was [5.7e-12, 1.3e-9], and δ(4) had a larger upper end than δ(2))."""

import mpmath as mp

from verialloc import Config, Gaussian, api


def test_a_tiny_delta_keeps_relative_accuracy_and_is_monotone_in_epsilon():
    acc = api.compile(Config(Gaussian("0.8"), steps=1000, epochs=3), method="pld")
    at2, at4 = acc.delta(2, direction="remove"), acc.delta(4, direction="remove")
    assert 0 < at2.lower and at2.upper <= mp.mpf("1.02") * at2.lower < mp.mpf("1e-10")
    assert any("tail-accurate" in n for n in at2.details["notes"])
    assert at4.upper <= at2.lower  # δ is non-increasing in ε (I1): the ε = 4 end lies below the ε = 2 bracket
