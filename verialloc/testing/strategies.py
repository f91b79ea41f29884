"""Hypothesis strategies for privacy-accounting inputs."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st


@st.composite
def probability_pairs(draw, max_atoms: int = 6, max_weight: int = 6):
    """(p, q): two exact probability vectors (Fractions) of equal length; zeros allowed on either side,
    so P may put mass where Q has none (loss +inf) and vice versa."""
    n = draw(st.integers(1, max_atoms))
    a = draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n).filter(any))
    b = draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n).filter(any))
    return [Fraction(x, sum(a)) for x in a], [Fraction(y, sum(b)) for y in b]
