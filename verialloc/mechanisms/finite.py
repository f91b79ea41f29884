"""Pairs on a finite output set: randomized response and arbitrary discrete pairs."""
from __future__ import annotations

import os
import stat
from abc import abstractmethod
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import sympy as sp

from .. import json_input
from ..errors import InvalidParameter
from ..validation import abbreviated, check_number_text, positive, real, to_fraction
from .base import Mechanism, SymbolicMoments, mpq


class FinitePair(Mechanism):
    """A pair (P, Q) of probability vectors over outputs 0..m−1."""

    def probabilities(self) -> tuple[list, list]:
        """(P, Q) as mpf lists at the current precision."""
        p, q = self.symbolic_probabilities()
        return [self._to_mp(x) for x in p], [self._to_mp(x) for x in q]

    def exact_probabilities(self) -> tuple[list[Fraction], list[Fraction]] | None:
        """(P, Q) as Fractions when they are rational, else None."""
        return None

    @abstractmethod
    def symbolic_probabilities(self) -> tuple[tuple, tuple]:
        """(P, Q) as sympy expressions in `self.generator` (or plain Rationals)."""

    generator: sp.Symbol | None = None
    generator_value: sp.Expr | None = None

    def _to_mp(self, expr) -> mp.mpf:
        if self.generator is not None:
            expr = expr.subs(self.generator, self.generator_value)
        return mp.mpf(sp.N(expr, mp.mp.dps + 5)) if not isinstance(expr, sp.Rational) else mpq(Fraction(int(expr.p), int(expr.q)))

    @property
    def size(self) -> int:
        return len(self.symbolic_probabilities()[0])

    @property
    def absolutely_continuous(self) -> bool:
        p, q = self.symbolic_probabilities()
        return all(not (qi == 0 and pi != 0) for pi, qi in zip(p, q))

    def privacy_loss(self, i: int) -> mp.mpf:
        """ℓ(i; P, Q) = ln P_i/Q_i, ±inf where one side vanishes (F1)."""
        p, q = self.probabilities()
        if q[i] == 0:
            return mp.inf if p[i] > 0 else mp.nan
        return mp.log(p[i] / q[i]) if p[i] > 0 else -mp.inf

    def delta(self, epsilon, direction: str = "remove") -> mp.mpf:
        """H_{e^ε} = Σ_i [A_i − e^ε B_i]_+ with (A, B) = (P, Q) for remove, (Q, P) for add (F2)."""
        d = self._direction(direction)
        kappa = mp.exp(mpq(real("epsilon", epsilon)))
        p, q = self.probabilities()
        a, b = (p, q) if d == "remove" else (q, p)
        return mp.fsum(max(ai - kappa * bi, 0) for ai, bi in zip(a, b))

    def moment(self, p) -> mp.mpf:
        """D_p = Σ_{Q_i>0} Q_i (P_i/Q_i)^p (F5); +inf for p > 1 when P is not ≪ Q."""
        p = mp.mpf(p)
        if p > 1 and not self.absolutely_continuous:
            return mp.inf
        pv, qv = self.probabilities()
        return mp.fsum(qi * (pi / qi) ** p for pi, qi in zip(pv, qv) if qi > 0)  # 0^0 = 1: D_0 = 1

    def moments_symbolic(self, n: int) -> SymbolicMoments:
        """Exact D_0..D_n: rationals for rational pairs, rational functions of the generator otherwise."""
        if not self.absolutely_continuous:
            raise InvalidParameter("pair", self, "Rényi moments are infinite: P has mass where Q has none")
        pv, qv = self.symbolic_probabilities()
        vals = []
        for k in range(n + 1):
            terms = [qi * (pi / qi) ** k for pi, qi in zip(pv, qv) if qi != 0]  # sympy: 0**0 == 1
            vals.append(sp.cancel(sp.Add(*terms)) if self.generator is not None else sp.Add(*terms))
        return SymbolicMoments(tuple(vals), self.generator, self.generator_value)


class RandomizedResponse(FinitePair):
    """Binary randomized response: P = (e^{ε0}, 1)/(1+e^{ε0}), Q = (1, e^{ε0})/(1+e^{ε0}) over outputs (1, 0)."""

    name = "randomized-response"

    def __init__(self, eps0):
        self.eps0 = positive("eps0", eps0)
        self.generator = sp.Symbol("x", positive=True)  # x = exp(eps0)
        self.generator_value = sp.exp(sp.Rational(self.eps0))

    def params(self) -> dict[str, str]:
        return {"eps0": str(self.eps0)}

    def symbolic_probabilities(self):
        x = self.generator
        return (x / (1 + x), 1 / (1 + x)), (1 / (1 + x), x / (1 + x))

    def probabilities(self):
        x = mp.exp(mpq(self.eps0))
        return [x / (1 + x), 1 / (1 + x)], [1 / (1 + x), x / (1 + x)]


class DiscretePair(FinitePair):
    """Any finite pair; P may put mass where Q has none (then the remove loss has an atom at +inf).

    Entries are read exactly (floats through their shortest repr, strings like "1/3" exactly).
    A vector whose sum is within SUM_TOLERANCE of 1 (rounded decimals: 0.333333333 × 3) is divided by its sum; the
    pair then describes itself with the sum it was given (`p_given_sum`), so every report shows the change.
    """

    name = "discrete"

    def __init__(self, p, q):
        (self.p, p_sum), (self.q, q_sum) = _probability_vector("p", p), _probability_vector("q", q)
        self.given_sums = {name: total for name, total in (("p", p_sum), ("q", q_sum)) if total != 1}
        if len(self.p) != len(self.q):
            raise InvalidParameter("q", f"length {len(self.q)}", f"must have the same length as p ({len(self.p)})")

    @classmethod
    def from_json(cls, path) -> "DiscretePair":
        """Read `{"p": [...], "q": [...]}` from a JSON file (a regular file of at most MAX_PAIR_BYTES)."""
        return cls._from_text(read_limited(path, "pair"), path)

    @classmethod
    def from_argument(cls, value) -> "DiscretePair":
        """The `--pair` argument (or a config file's `pair`): a mapping {"p": [...], "q": [...]}, an inline JSON object
        (text starting with `{` after whitespace, at most MAX_PAIR_BYTES bytes, parsed by `json` only), or the path
        of a JSON file holding one."""
        if isinstance(value, dict):
            return cls._from_data(value, abbreviated(value))
        if not isinstance(value, str):
            raise InvalidParameter("pair", abbreviated(value), PAIR_FORMAT + " or the path of such a JSON file")
        if value.lstrip().startswith("[") and not Path(value).exists():
            raise InvalidParameter("pair", abbreviated(value), PAIR_FORMAT)  # a JSON array, not a file name
        if not value.lstrip().startswith("{"):
            return cls.from_json(value)
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > MAX_PAIR_BYTES:
            raise InvalidParameter("pair", abbreviated(value), f"inline JSON is {size} bytes; at most {MAX_PAIR_BYTES}")
        return cls._from_text(value, abbreviated(value))

    @classmethod
    def _from_text(cls, text: str, shown) -> "DiscretePair":
        return cls._from_data(json_input.loads(text, "pair", shown, PAIR_FORMAT, exact=True), shown)

    @classmethod
    def _from_data(cls, data, shown) -> "DiscretePair":
        if not isinstance(data, dict):
            raise InvalidParameter("pair", shown, PAIR_FORMAT)
        if set(data) != {"p", "q"}:
            extra, missing = sorted(map(str, set(data) - {"p", "q"})), sorted({"p", "q"} - set(data))
            why = "; ".join(part for part in (extra and "unknown key " + ", ".join(map(repr, extra)),
                                              missing and "missing " + ", ".join(map(repr, missing))) if part)
            raise InvalidParameter("pair", shown, f"{PAIR_FORMAT} ({abbreviated(why, 120)})")
        return cls(data["p"], data["q"])

    def params(self) -> dict[str, str]:
        out = {"p": "[" + ", ".join(map(str, self.p)) + "]", "q": "[" + ", ".join(map(str, self.q)) + "]"}
        out.update({f"{name}_given_sum": str(total) for name, total in self.given_sums.items()})
        return out

    def exact_probabilities(self):
        return list(self.p), list(self.q)

    def symbolic_probabilities(self):
        return tuple(sp.Rational(x) for x in self.p), tuple(sp.Rational(x) for x in self.q)

    def probabilities(self):
        return [mpq(x) for x in self.p], [mpq(x) for x in self.q]


#: largest pair file read (and inline --pair text), and largest number of atoms of a pair (each a list entry of p and q)
MAX_PAIR_BYTES = 10 * 2 ** 20
MAX_PAIR_ATOMS = 100_000
PAIR_FORMAT = 'must be a JSON object {"p": [...], "q": [...]} of probability vectors'


def read_limited(path, name: str, limit: int = MAX_PAIR_BYTES) -> str:
    """The UTF-8 text (byte-order mark dropped) of a regular file of at most `limit` bytes; anything else (a
    directory, /dev/zero, a FIFO, a larger file, other bytes) raises InvalidParameter naming `name`. Reads at most
    limit + 1 bytes, never the whole stream."""
    p = Path(path)
    special = "must be a regular file (not a device, FIFO or directory)"
    try:
        if not stat.S_ISREG(os.stat(p).st_mode):  # before opening: opening a FIFO would block
            raise InvalidParameter(name, path, special)
        with open(p, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InvalidParameter(name, path, special)
            if info.st_size > limit:
                raise InvalidParameter(name, path, f"is {info.st_size} bytes; at most {limit} bytes are read")
            data = fh.read(limit + 1)
    except IsADirectoryError:
        raise InvalidParameter(name, path, special) from None
    except OSError as exc:
        raise InvalidParameter(name, path, f"must be a readable file ({type(exc).__name__})") from None
    if len(data) > limit:
        raise InvalidParameter(name, path, f"is larger than {limit} bytes (the most that is read)")
    try:
        return json_input.decode(data)
    except UnicodeDecodeError as exc:
        raise InvalidParameter(name, path, json_input.not_utf8(data, exc)) from None


#: largest |sum − 1| of a probability vector that is renormalized (DiscretePair) rather than refused
SUM_TOLERANCE = Fraction(1, 10**9)


def _probability_vector(name: str, values) -> tuple[tuple[Fraction, ...], Fraction]:
    """The vector divided by its sum, and the sum it was given."""
    rule = "must be a non-empty list of probabilities >= 0 summing to 1"
    if not isinstance(values, (list, tuple)) or not values:
        raise InvalidParameter(name, abbreviated(values), rule)
    if len(values) > MAX_PAIR_ATOMS:
        raise InvalidParameter(name, f"length {len(values)}", f"must have at most {MAX_PAIR_ATOMS} atoms")
    vec = []
    for i, v in enumerate(values):
        if v is None or isinstance(v, (list, tuple, dict)):
            raise InvalidParameter(f"{name}[{i}]", abbreviated(v), "must be a probability (a number or a decimal/p/q string)")
        check_number_text(f"{name}[{i}]", v)
        x = to_fraction(f"{name}[{i}]", v)
        if x < 0:
            raise InvalidParameter(f"{name}[{i}]", v, "must be >= 0")
        vec.append(x)
    total = sum(vec)
    if abs(total - 1) > SUM_TOLERANCE:
        raise InvalidParameter(name, "sum " + mp.nstr(mpq(total), 10), rule + f" (within {float(SUM_TOLERANCE):g})")
    return tuple(x / total for x in vec), total
