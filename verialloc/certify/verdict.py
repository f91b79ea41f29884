"""What is claimed and how a certified bracket decides it.

A claim is either "ε(δ) ≤ X" (target δ, claimed ε) or "δ(ε) ≤ Y" (target ε, claimed δ) for the dominating
pair of a configuration (F2, F3, F8). With a certified bracket [lower, upper] of the true value:
  certified    X ≥ upper  (the claim holds for the true value),
  refuted      X < lower  (the claim is false for the true value),
  inconclusive otherwise.
Comparisons are exact (`compare`): bracket ends are binary mpf/float values read exactly, at any magnitude (an ε of
5e319 or a δ of e^(−5e599) is an mpf beyond float64; it is compared by its binary exponent, never expanded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import mpmath as mp

from ..errors import InvalidParameter
from ..validation import abbreviated, open_unit, real, to_fraction

VERDICTS = ("certified", "refuted", "inconclusive")


@dataclass(frozen=True)
class Claim:
    """quantity: the claimed quantity ("epsilon" or "delta"); at: the target (δ resp. ε); value: the claim."""

    quantity: str
    at: Fraction
    value: Fraction

    @property
    def target_name(self) -> str:
        return "delta" if self.quantity == "epsilon" else "epsilon"

    def as_dict(self) -> dict:
        return {"quantity": self.quantity, self.target_name: exact_text(self.at), "claimed": exact_text(self.value)}


def exact_text(x: Fraction) -> str:
    """A terminating decimal when x has one (1e-5 → "0.00001"), else p/q."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return str(x)
    return format(Decimal(x.numerator) / Decimal(x.denominator), "f") if x.denominator < 10**20 else str(x)


def make_claim(*, delta=None, claimed_epsilon=None, epsilon=None, claimed_delta=None) -> Claim:
    """Exactly one of (delta, claimed_epsilon) or (epsilon, claimed_delta); InvalidParameter otherwise."""
    eps_pair = delta is not None or claimed_epsilon is not None
    delta_pair = epsilon is not None or claimed_delta is not None
    if eps_pair and delta_pair:
        flag, given = ("epsilon", epsilon) if epsilon is not None else ("claimed-delta", claimed_delta)
        raise InvalidParameter(
            flag,
            given,
            "a claim is either --delta D with --claimed-epsilon X (alias --target-epsilon: the epsilon claimed) or "
            "--epsilon E with --claimed-delta Y, not flags of both",
        )
    if eps_pair:
        if delta is None or claimed_epsilon is None:
            missing = "delta" if delta is None else "claimed-epsilon"
            raise InvalidParameter(
                missing, "(missing)", "--delta D (in (0, 1)) and --claimed-epsilon X (>= 0) go together"
            )
        return Claim("epsilon", open_unit("delta", delta), _non_negative("claimed-epsilon", claimed_epsilon))
    if delta_pair:
        if epsilon is None or claimed_delta is None:
            missing = "epsilon" if epsilon is None else "claimed-delta"
            raise InvalidParameter(
                missing, "(missing)", "--epsilon EPS (real) and --claimed-delta Y (in [0, 1)) go together"
            )
        value = _non_negative("claimed-delta", claimed_delta)
        if value >= 1:
            raise InvalidParameter("claimed-delta", claimed_delta, "must lie in [0, 1)")
        return Claim("delta", real("epsilon", epsilon), value)
    raise InvalidParameter(
        "claim", "(missing)", "give --delta D --claimed-epsilon X or --epsilon EPS --claimed-delta Y"
    )


def _non_negative(name: str, value) -> Fraction:
    x = to_fraction(name, value)
    if x < 0:
        raise InvalidParameter(name, value, "must be >= 0")
    return x


#: log10(2) to 40 digits, rounded down and up: decimal magnitudes of binary integers (`_log10_bounds`)
_DECIMAL = re.compile(r"(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$")
LOG10_2 = (
    Fraction(3010299956639811952137388947244930267681, 10**40),
    Fraction(3010299956639811952137388947244930267682, 10**40),
)


def compare(q: Fraction, x) -> int:
    """Sign of q − x, exact, for a rational q and x an mpf, a float (±inf allowed) or a decimal text ("5.0e+319").

    When the magnitudes of q and x are apart (binary exponents for an mpf, decimal ones for a text) they decide;
    otherwise x is read as an exact rational no larger than about q. So an end like e^(−5e599) is compared with a
    claim without building a 10^599-digit number."""
    if isinstance(x, str):
        return _compare_text(q, x)
    x = x if isinstance(x, mp.mpf) else mp.mpf(x)  # a float is exact in mpf (53 bits)
    if mp.isnan(x):
        raise InvalidParameter("bracket", "nan", "a certified bracket end must be a number")
    if mp.isinf(x):
        return -1 if x > 0 else 1
    negative, man, exp, bc = x._mpf_
    signs = _signs(q, 0 if not man else -1 if negative else 1)
    if signs is not None:
        return signs
    top = abs(q.numerator).bit_length() - q.denominator.bit_length()  # 2^(top − 1) < |q| < 2^(top + 1)
    if top + 1 <= exp + bc - 1:  # 2^(exp + bc − 1) ≤ |x| < 2^(exp + bc)
        return 1 if negative else -1
    if exp + bc <= top - 1:
        return -1 if negative else 1
    exact = rational(x)
    return (q > exact) - (q < exact)


def rational(x: mp.mpf) -> Fraction:
    """A finite mpf as the exact rational man·2^exp it is (callers bound its exponent, as `compare` does)."""
    negative, man, exp, _ = x._mpf_
    value = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -value if negative else value


def _signs(q: Fraction, x_sign: int) -> int | None:
    """Sign of q − x when a zero or opposite signs decide it, else None (same nonzero sign)."""
    q_sign = (q > 0) - (q < 0)
    return None if q_sign == x_sign != 0 else (q_sign > x_sign) - (q_sign < x_sign)


def _compare_text(q: Fraction, text: str) -> int:
    """`compare` for a decimal text ±m·10^e: decimal magnitudes first (`_log10_bounds`), then exact rationals."""
    word = text.strip().lower().lstrip("+")
    if word in ("inf", "-inf"):
        return 1 if word == "-inf" else -1
    match = _DECIMAL.match(word)
    if match is None:
        raise InvalidParameter("bracket", abbreviated(text), "a certified bracket end must be a decimal number")
    sign, whole, frac, exponent = match.groups()
    m, e = int(whole + (frac or "")), int(exponent or 0) - len(frac or "")  # |text| = m·10^e
    signs = _signs(q, 0 if m == 0 else -1 if sign else 1)
    if signs is not None:
        return signs
    size = len(str(m)) + e  # 10^(size − 1) ≤ |text| < 10^size
    lo, hi = _log10_bounds(q)
    if hi <= size - 1:
        return 1 if sign else -1
    if size <= lo:
        return -1 if sign else 1
    exact = m * Fraction(10) ** e * (-1 if sign else 1)
    return (q > exact) - (q < exact)


def _log10_bounds(q: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals lo < log10|q| < hi from the bit lengths of numerator and denominator (LOG10_2)."""
    n, d = abs(q.numerator).bit_length(), q.denominator.bit_length()  # 2^(n − 1) ≤ |num| < 2^n, same for den
    low, high = LOG10_2
    return (n - 1) * low - d * high, n * high - (d - 1) * low


def decide(claim: Fraction, lower, upper) -> str:
    """certified if claim ≥ upper, refuted if claim < lower, else inconclusive (module docstring)."""
    if compare(claim, upper) >= 0:
        return "certified"
    if compare(claim, lower) < 0:
        return "refuted"
    return "inconclusive"
