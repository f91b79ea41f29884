"""I38 (formulas.md §13.5; F68, F74, F65, F66): the random-replacement (F68) and swapping (F74) ε formulas — their values,
and monotonicity of the printed (closed) forms: increasing in ε0 (and w_max), decreasing in m (resp. n).

(F68 ≤ 7·w·ε0·sqrt(ln(1/δ)/m) on a grid including m = 1, and F68's closed-form monotonicity, are asserted in
tests/numeric/shuffle/test_checkin.py; this file adds the values against an independent evaluation and the F74 part.)

Production code under test: `numeric.shuffle.checkin.replacement_epsilon` (F68, closed form and composed = F65 on the per-step
ε_i) and `numeric.shuffle.checkin.swapping_epsilon` (F74, closed form and composed). References: the printed formulas of
formulas.md §8 evaluated here in mpmath at 30 digits —
    F68: ε = w²e^{ε0}(e^{ε0} − 1)²/(2m) + w(e^{ε0} − 1)·sqrt(2e^{ε0} ln(1/δ)/m),
    F74: ε = e^{3ε0}(e^{ε0} − 1)²/(2n) + e^{3ε0/2}(e^{ε0} − 1)·sqrt(2 ln(1/δ)/n),
    composed: F65 on ε_i = ln(1 + w e^{ε0}(e^{ε0} − 1)/(i − 1 + e^{ε0}(m − i + 1))) (F68) resp.
    ln(1 + e^{2ε0}(e^{ε0} − 1)/(e^{2ε0} + (i − 1) + (n − i)e^{ε0})) (F74).

Bugs it catches: a wrong power of e^{ε0} (e^{3ε0/2} ↔ e^{ε0/2}), 2n ↔ n, a lost sqrt(e^{ε0}), a per-step ε_i whose
denominator drops the e^{ε0} weight of the later steps (ε not decreasing in n), F65's tanh term as ε·(e^ε − 1).
"""

import mpmath as mp
from hypothesis import given, settings, strategies as st

from verialloc.numeric.shuffle import checkin as ci

eps0s = st.sampled_from([0.05, 0.2, 0.5, 1.0, 1.7, 3.0])
deltas = st.sampled_from([1e-2, 1e-5, 1e-9, 1e-15])
REL = 1e-12


def f65(steps, delta) -> mp.mpf:
    return mp.fsum(e * (mp.exp(e) - 1) / (mp.exp(e) + 1) for e in steps) + mp.sqrt(
        2 * mp.log(1 / mp.mpf(delta)) * mp.fsum(e * e for e in steps)
    )


def f68(eps0, m, delta, w, composed=False) -> mp.mpf:
    e0, w = mp.mpf(eps0), mp.mpf(w)
    x, g = mp.exp(e0), mp.expm1(e0)
    if composed:
        return f65([mp.log(1 + w * x * g / (i - 1 + x * (m - i + 1))) for i in range(1, m + 1)], delta)
    return w * w * x * g * g / (2 * m) + w * g * mp.sqrt(2 * x * mp.log(1 / mp.mpf(delta)) / m)


def f74(eps0, n, delta, composed=False) -> mp.mpf:
    e0 = mp.mpf(eps0)
    x, g = mp.exp(e0), mp.expm1(e0)
    if composed:
        return f65([mp.log(1 + x * x * g / (x * x + (i - 1) + (n - i) * x)) for i in range(1, n + 1)], delta)
    return mp.exp(3 * e0) * g * g / (2 * n) + mp.exp(3 * e0 / 2) * g * mp.sqrt(2 * mp.log(1 / mp.mpf(delta)) / n)


def close(value, ref) -> bool:
    return abs(value - ref) <= REL * abs(ref)


@given(eps0s, st.integers(1, 300), deltas, st.sampled_from([0.1, 0.5, 1.0]), st.booleans())
@settings(max_examples=25)
def test_replacement_epsilon_matches_f68_F68_I38(eps0, m, delta, w, composed):
    with mp.workdps(30):
        assert close(ci.replacement_epsilon(eps0, m, delta, w, composed=composed), f68(eps0, m, delta, w, composed))


@given(eps0s, st.integers(1, 300), deltas, st.booleans())
@settings(max_examples=25)
def test_swapping_epsilon_matches_f74_F74_I38(eps0, n, delta, composed):
    with mp.workdps(30):
        assert close(ci.swapping_epsilon(eps0, n, delta, composed=composed), f74(eps0, n, delta, composed))


@given(eps0s, st.integers(1, 200), deltas)
@settings(max_examples=25)
def test_swapping_epsilon_increasing_in_eps0_and_decreasing_in_n_I38(eps0, n, delta):
    """F74 closed form: ε(ε0·1.1) ≥ ε(ε0), ε(n + 1) ≤ ε(n) ≤ ε(n − 1); the composed form (F65 on the per-step ε_i) is
    never larger. (The composed form itself is NOT monotone in n for large ε0 — e.g. ε0 = 1.7, δ = 0.01:
    22.29 at n = 33, larger at n = 34 — which no theorem excludes: I38 is about the printed formulas.)"""
    value = ci.swapping_epsilon(eps0, n, delta)
    assert ci.swapping_epsilon(eps0 * 1.1, n, delta) >= value
    assert ci.swapping_epsilon(eps0, n + 1, delta) <= value * (1 + REL)
    if n > 1:
        assert ci.swapping_epsilon(eps0, n - 1, delta) >= value * (1 - REL)
    assert ci.swapping_epsilon(eps0, n, delta, composed=True) <= value * (1 + REL)
