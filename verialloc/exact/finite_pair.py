"""Exact pairs (A, B) of measures on a finite set of atoms: profile, its inverse, composition (F2, F3, F6, F8).

Masses are mpf values fixed when a pair is built; every query is exact up to the rounding of the masses
and of e^ε at the current mpmath precision (callers set it with `mp.workdps`). Atoms are merged only
through exact combinatorial labels (multisets / count vectors), never by a numerical tolerance.
"""

from __future__ import annotations

import math
from operator import itemgetter

import mpmath as mp

from ..errors import InvalidParameter, UnsupportedRequest, count_text
from ..mechanisms.base import mpq
from ..mechanisms.finite import FinitePair
from ..validation import direction as check_direction
from ..validation import integer, real, to_fraction

#: Largest support a construction may produce (two mpf lists of this length take about 1.5 GB).
MAX_ATOMS = 3_000_000
#: Working digits the certified front ends never exceed: a value that needs more raises UnsupportedRequest.
MAX_WORKING_DIGITS = 4000


class FiniteLossPair:
    """The pair (A, B) on atoms 0..n−1; "remove" is H(A‖B), "add" is H(B‖A) (F2, F3).

    `labels[i]` identifies atom i exactly (None: atom i is labelled by its index). Count-vector
    constructions label an atom by the sparse tuple ((index, count), ...) of its positive counts,
    indices increasing. Atoms with A_i = B_i = 0 are allowed and contribute nothing.
    """

    def __init__(self, a, b, labels=None):
        for name, masses in (("a", a), ("b", b)):
            if not isinstance(masses, (list, tuple)) or not masses:
                raise InvalidParameter(name, masses, "must be a non-empty list of masses >= 0")
        if len(b) != len(a):
            raise InvalidParameter("b", f"length {len(b)}", f"must have the same length as a ({len(a)})")
        if labels is not None and len(labels) != len(a):
            raise InvalidParameter("labels", f"length {len(labels)}", f"must have the same length as a ({len(a)})")
        self.a = tuple(_mass(f"a[{i}]", x) for i, x in enumerate(a))
        self.b = tuple(_mass(f"b[{i}]", x) for i, x in enumerate(b))
        self.labels = None if labels is None else tuple(labels)

    @classmethod
    def _of(cls, a, b, labels=None) -> FiniteLossPair:
        """Wrap masses that are already non-negative mpf values (internal constructions)."""
        pair = cls.__new__(cls)
        pair.a, pair.b, pair.labels = tuple(a), tuple(b), None if labels is None else tuple(labels)
        return pair

    @classmethod
    def from_mechanism(cls, mech) -> FiniteLossPair:
        """The single-step pair (P, Q) of a finite mechanism at the current precision; atom j is output j (F8)."""
        p, q = as_finite_pair(mech).probabilities()
        return cls._of(p, q)

    def __len__(self) -> int:
        return len(self.a)

    def label(self, i: int):
        """Exact identifier of atom i."""
        return i if self.labels is None else self.labels[i]

    def total_masses(self) -> tuple[mp.mpf, mp.mpf]:
        """(Σ A_i, Σ B_i)."""
        return mp.fsum(self.a), mp.fsum(self.b)

    def swap(self) -> FiniteLossPair:
        """The reversed pair (B, A): its remove profile is the add profile of this pair (F3)."""
        return FiniteLossPair._of(self.b, self.a, self.labels)

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """Exact H_{e^ε} (F2): remove Σ[A_i − e^ε B_i]_+, add Σ[B_i − e^ε A_i]_+; any real ε."""
        a, b = self._oriented(direction)
        kappa = mp.exp(mpq(real("epsilon", epsilon)))
        return mp.fsum([g for x, y in zip(a, b) if (g := x - kappa * y) > 0])

    def epsilon(self, delta, direction: str = "remove") -> mp.mpf:
        """Smallest ε with δ(ε) ≤ delta, exactly inverting the piecewise-linear, convex κ ↦ H_κ (F2, I1).

        Atoms are sorted by likelihood ratio r_i = A_i/B_i (remove; B_i/A_i for add); on each piece
        H_κ = S_A − κ S_B with S_A, S_B the masses of the atoms above κ, so κ* = (S_A − delta)/S_B.
        Returns mp.inf when the mass at ratio +inf (A_i > 0 = B_i) exceeds delta, so δ(ε) > delta for
        every finite ε; returns −mp.inf when δ(ε) ≤ delta for every ε (delta ≥ total A mass).
        """
        a, b = self._oriented(direction)
        target = unit_closed("delta", delta)
        at_infinity = mp.fsum(x for x, y in zip(a, b) if y == 0)
        if target < at_infinity:
            return mp.inf
        above_a, above_b = at_infinity, mp.mpf(0)
        ladder = sorted(((x / y, x, y) for x, y in zip(a, b) if x > 0 and y > 0), key=itemgetter(0), reverse=True)
        for ratio, x, y in ladder:
            if above_a - ratio * above_b > target:  # δ(ratio) > delta: κ* lies above this breakpoint
                break
            above_a += x
            above_b += y
        if above_b == 0 or above_a <= target:
            return -mp.inf
        return mp.log((above_a - target) / above_b)

    def compose(self, other: FiniteLossPair) -> FiniteLossPair:
        """Product pair (A × A', B × B') (F6, F8); atom labels are pairs of the factors' labels."""
        if not isinstance(other, FiniteLossPair):
            raise InvalidParameter("other", other, "must be a FiniteLossPair")
        size = len(self) * len(other)
        if size > MAX_ATOMS:
            raise UnsupportedRequest("atoms", size, f"a product pair may have at most {MAX_ATOMS} atoms")
        a, b, labels = [], [], []
        for i, (x, y) in enumerate(zip(self.a, self.b)):
            for j, (u, v) in enumerate(zip(other.a, other.b)):
                pa, pb = x * u, y * v
                if pa or pb:
                    a.append(pa)
                    b.append(pb)
                    labels.append((self.label(i), other.label(j)))
        return FiniteLossPair._of(a, b, labels)

    def power(self, epochs) -> FiniteLossPair:
        """E-fold composition (A^E, B^E) on multisets of atoms (F6, F8), E = epochs.

        A multiset with multiplicities m_i has mass E!/∏m_i! · ∏A_i^{m_i}, so the support has
        C(n+E−1, E) atoms instead of n^E; more than MAX_ATOMS raises UnsupportedRequest (epochs).
        """
        e = integer("epochs", epochs)
        return self if e == 1 else self._power(e, "epochs")

    def _power(self, count: int, name: str) -> FiniteLossPair:
        bounds = [0 if x == 0 and y == 0 else count for x, y in zip(self.a, self.b)]
        size = count_vectors_size(count, bounds)
        if size > MAX_ATOMS:
            raise UnsupportedRequest(
                name,
                count,
                f"composed that many times this {len(self)}-atom pair has {count_text(size)} atoms; at most {MAX_ATOMS} are supported",
            )
        scaled_a = [scaled_powers(x, count) if bd else None for x, bd in zip(self.a, bounds)]
        scaled_b = [scaled_powers(y, count) if bd else None for y, bd in zip(self.b, bounds)]
        factorial = math.factorial(count) * (self.a[0] * 0 + 1)  # count! in the masses' type (mpf or Fraction)
        a, b, labels = [], [], []
        for part in count_vectors(count, bounds):
            pa = pb = factorial
            for i, c in part:
                pa *= scaled_a[i][c]
                pb *= scaled_b[i][c]
            if pa or pb:
                a.append(pa)
                b.append(pb)
                labels.append(part if self.labels is None else tuple((self.labels[i], c) for i, c in part))
        return FiniteLossPair._of(a, b, labels)

    def _oriented(self, direction: str) -> tuple[tuple, tuple]:
        d = check_direction(direction, allow_both=False)
        return (self.a, self.b) if d == "remove" else (self.b, self.a)

    def __repr__(self) -> str:
        return f"FiniteLossPair({len(self)} atoms)"


def scaled_powers(x, top: int) -> list:
    """[x^c / c! for c = 0..top] (0^0 = 1), in the number type of x (mpf, or Fraction for exact pairs)."""
    row = [x * 0 + 1]
    for c in range(1, top + 1):
        row.append(row[-1] * x / c)
    return row


def count_vectors_size(total: int, bounds: list[int]) -> int:
    """Number of (c_i) with Σ c_i = total and 0 ≤ c_i ≤ bounds[i] (exact; capped just above MAX_ATOMS)."""
    caps = [min(bd, total) for bd in bounds if bd > 0]
    if all(cap == total for cap in caps):
        return math.comb(len(caps) + total - 1, total) if caps else 0
    ways = [1] + [0] * total
    for cap in caps:
        prefix, running = [], 0
        for w in ways:
            running += w
            prefix.append(running)
        ways = [min(prefix[s] - (prefix[s - cap - 1] if s > cap else 0), MAX_ATOMS + 1) for s in range(total + 1)]
    return ways[total]


def count_vectors(total: int, bounds: list[int]):
    """Yield every (c_i) with Σ c_i = total, 0 ≤ c_i ≤ bounds[i], as sparse tuples ((i, c_i), ...) of c_i > 0."""
    n = len(bounds)
    tail = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        tail[i] = tail[i + 1] + min(bounds[i], total)
    if tail[0] < total:
        return
    stack = [(0, total, ())]
    while stack:
        start, rest, part = stack.pop()
        for i in range(start, n):
            if tail[i] < rest:
                break
            for c in range(max(1, rest - tail[i + 1]), min(bounds[i], rest) + 1):
                if c == rest:
                    yield part + ((i, c),)
                else:
                    stack.append((i + 1, rest - c, part + ((i, c),)))


def as_finite_pair(mech) -> FinitePair:
    if not isinstance(mech, FinitePair):
        raise InvalidParameter("mechanism", mech, "must be a finite pair (randomized-response or discrete)")
    return mech


def _mass(name: str, value) -> mp.mpf:
    if isinstance(value, mp.mpf):
        if not mp.isfinite(value) or value < 0:
            raise InvalidParameter(name, value, "must be a finite mass >= 0")
        return value
    x = to_fraction(name, value)
    if x < 0:
        raise InvalidParameter(name, value, "must be a finite mass >= 0")
    return mpq(x)


def unit_closed(name: str, value) -> mp.mpf:
    x = to_fraction(name, value)
    if not 0 <= x <= 1:
        raise InvalidParameter(name, value, "must lie in [0, 1]")
    return mpq(x)
