"""Fuzz cases: one accounting question drawn from the whole input domain, its hypothesis strategy, and its
serialization as JSON, as `verialloc ...` command lines and as a Python snippet.

A `Case` is a mechanism (family + parameter, or a finite pair p, q), a configuration (scheme, t, k, epochs, rate),
a query (δ(ε) or ε(δ)) with a direction, and a relative offset of the claim handed to `certify` (the claim is the
exact value times 1 + offset). Every number is an exact `Fraction`, so a case replays identically everywhere.
"""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import asdict, dataclass
from fractions import Fraction

from hypothesis import strategies as st

from ...config import Config
from ...mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse

FAMILIES = ("gaussian", "laplace", "randomized-response", "discrete")
#: the one flag each family takes on the command line
PARAM_FLAG = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "eps0"}
MAKE = {"gaussian": Gaussian, "laplace": Laplace, "randomized-response": RandomizedResponse}
#: loss grid steps whose multiples the drawn values like to hit (pld default 1e-4, the fuzzer's 1e-3)
GRID_STEPS = (Fraction(1, 10_000), Fraction(1, 1_000))
CLAIM_OFFSETS = tuple(Fraction(x) for x in ("0", "1e-12", "-1e-12", "1e-6", "-1e-6", "1e-2", "-1e-2", "1/2", "-1/2"))
#: where the pair of a discrete case is written by the printed command lines
PAIR_FILE = "/tmp/verialloc-fuzz-pair.json"


@dataclass(frozen=True)
class Case:
    family: str
    param: Fraction | None  # σ, b or ε0; None for discrete pairs
    p: tuple | None
    q: tuple | None
    scheme: str
    steps: int
    k: int
    epochs: int
    rate: Fraction | None  # Poisson only (None for allocation)
    quantity: str  # "delta": value is ε; "epsilon": value is δ
    value: Fraction
    direction: str
    claim_offset: Fraction = Fraction(0)

    # --- conversions -------------------------------------------------------------------------------
    def mechanism(self):
        if self.family == "discrete":
            return DiscretePair(list(self.p), list(self.q))
        return MAKE[self.family](self.param)

    def config(self) -> Config:
        return Config(
            self.mechanism(), scheme=self.scheme, steps=self.steps, k=self.k, epochs=self.epochs, rate=self.rate
        )

    def to_dict(self) -> dict:
        out = {}
        for key, value in asdict(self).items():
            if isinstance(value, Fraction):
                value = text(value)
            elif isinstance(value, tuple):
                value = [text(x) for x in value]
            out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Case":
        data = dict(data)
        for key in ("param", "rate", "value", "claim_offset"):
            if data.get(key) is not None:
                data[key] = Fraction(data[key])
        for key in ("p", "q"):
            if data.get(key) is not None:
                data[key] = tuple(Fraction(x) for x in data[key])
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @property
    def value_flag(self) -> str:
        return "epsilon" if self.quantity == "delta" else "delta"

    def describe(self) -> str:
        mech = (
            f"{self.family}({PARAM_FLAG[self.family]}={text(self.param)})"
            if self.family != "discrete"
            else f"discrete(p=[{', '.join(map(text, self.p))}], q=[{', '.join(map(text, self.q))}])"
        )
        rate = f" rate={text(self.rate)}" if self.rate is not None else ""
        return (
            f"{mech} {self.scheme} t={self.steps} k={self.k} E={self.epochs}{rate}: "
            f"{self.quantity}({self.value_flag}={text(self.value)}) [{self.direction}]"
        )

    # --- command lines -----------------------------------------------------------------------------
    def _prefix(self) -> str:
        if self.family != "discrete":
            return ""
        pair = json.dumps({"p": [text(x) for x in self.p], "q": [text(x) for x in self.q]})
        return f"printf '%s' {shlex.quote(pair)} > {PAIR_FILE} && "

    def config_flags(self) -> list[str]:
        flags = ["--mechanism", self.family]
        flags += (
            ["--pair", PAIR_FILE] if self.family == "discrete" else [f"--{PARAM_FLAG[self.family]}", text(self.param)]
        )
        flags += ["--scheme", self.scheme, "--steps", str(self.steps)]
        if self.k != 1:
            flags += ["--k", str(self.k)]
        if self.epochs != 1:
            flags += ["--epochs", str(self.epochs)]
        if self.rate is not None:
            flags += ["--rate", text(self.rate)]
        return flags

    def query_command(self, method: str, method_flags: list[str], digits: int = 20) -> str:
        args = [
            "verialloc",
            self.quantity,
            *self.config_flags(),
            f"--{self.value_flag}",
            text(self.value),
            "--direction",
            self.direction,
            "--method",
            method,
            *method_flags,
            "--digits",
            str(digits),
        ]
        return self._prefix() + shlex.join(args)

    def certify_command(self, claim: Fraction, budget: float) -> str:
        target = (
            ["--delta", text(self.value), "--claimed-epsilon", text(claim)]
            if self.quantity == "epsilon"
            else ["--epsilon", text(self.value), "--claimed-delta", text(claim)]
        )
        args = [
            "verialloc",
            "certify",
            *self.config_flags(),
            *target,
            "--direction",
            self.direction,
            "--budget",
            f"{budget:g}",
        ]
        return self._prefix() + shlex.join(args)

    def replay_command(self) -> str:
        return shlex.join(["verialloc", "fuzz", "--replay", self.to_json()])

    def python_config(self) -> str:
        """Python source building `config` (imports included)."""
        if self.family == "discrete":
            mech = (
                f"DiscretePair([{', '.join(repr(text(x)) for x in self.p)}], "
                f"[{', '.join(repr(text(x)) for x in self.q)}])"
            )
        else:
            mech = f"{MAKE[self.family].__name__}({text(self.param)!r})"
        rate = f", rate={text(self.rate)!r}" if self.rate is not None else ""
        return (
            "from verialloc import api\nfrom verialloc.config import Config\n"
            "from verialloc.mechanisms import DiscretePair, Gaussian, Laplace, RandomizedResponse\n"
            f"config = Config({mech}, scheme={self.scheme!r}, steps={self.steps}, k={self.k}, "
            f"epochs={self.epochs}{rate})\n"
        )


def text(x: Fraction) -> str:
    """Exact short text of a rational: a plain decimal when it terminates within 40 characters, else p/q."""
    x = Fraction(x)
    d = x.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d == 1:
        n = max(twos, fives)
        digits = abs(x.numerator) * 10**n // x.denominator
        s = str(digits).rjust(n + 1, "0")
        out = ("-" if x < 0 else "") + (s[:-n] + "." + s[-n:] if n else s)
        if n:
            out = out.rstrip("0").rstrip(".")
        if len(out) <= 40:
            return out
        mant, exp = _scientific(x)
        if mant is not None:
            return f"{mant}e{exp}"
    return str(x)


def _scientific(x: Fraction):
    """m·10^e with integer m when x is exactly such a number (e.g. 3e-300), else (None, None)."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    for e in range(0, 400):
        m = x * 10**e
        if m.denominator == 1:
            digits = str(m.numerator).rstrip("0") or "0"
            exp = -e + (len(str(m.numerator)) - len(digits))
            return sign + digits, exp
    return None, None


# --- strategies --------------------------------------------------------------------------------------
def _float(value: float) -> Fraction:
    """A float read the way verialloc reads floats: through its shortest repr."""
    return Fraction(repr(float(value)))


def log_uniform(lo: float, hi: float):
    """Continuous floats, uniform in log scale over [lo, hi] (shrinks towards 1 when 1 is in range)."""
    a, b = math.log10(lo), math.log10(hi)
    mid = min(max(0.0, a), b)
    return st.floats(a - mid, b - mid).map(lambda u: _float(min(max(10 ** (u + mid), lo), hi)))


def dyadic(lo: Fraction, hi: Fraction, max_exponent: int = 12):
    """n/2^j in [lo, hi] (exact in binary floating point: 7/8, 3/1024, ...)."""
    return st.integers(0, max_exponent).flatmap(
        lambda j: st.integers(math.ceil(lo * 2**j), math.floor(hi * 2**j)).map(lambda n: Fraction(n, 2**j))
    )


def grid_multiple(lo: Fraction, hi: Fraction):
    """Multiples of a loss grid step (1e-4 or 1e-3) in [lo, hi]."""
    return st.sampled_from(GRID_STEPS).flatmap(
        lambda s: st.integers(math.ceil(lo / s), math.floor(hi / s)).map(lambda n: n * s)
    )


def positive_real(lo: float, hi: float, extra=()):
    """A positive parameter: dyadic, grid-aligned, continuous (log scale) or one of `extra`."""
    flo, fhi = _float(lo), _float(hi)
    choices = [
        dyadic(flo, fhi).filter(lambda x: x > 0),
        grid_multiple(flo, fhi).filter(lambda x: x > 0),
        log_uniform(lo, hi),
    ]
    if extra:
        choices.append(st.sampled_from([Fraction(x) for x in extra]))
    return st.one_of(choices)


def laplace_scales():
    """b with the loss bound 1/b on a grid point (b = 1/(n·step)), dyadic, or continuous."""
    aligned = st.tuples(st.sampled_from(GRID_STEPS), st.integers(1, 100_000)).map(lambda sn: 1 / (sn[1] * sn[0]))
    return st.one_of(positive_real(1e-2, 1e3), aligned.filter(lambda b: Fraction(1, 100) <= b <= 1000))


@st.composite
def finite_pairs(draw, max_atoms: int = 5):
    """(p, q): integer weights (zeros allowed, rarely one tiny mass 10^-e, e ≤ 400), at least one shared atom
    unless drawn disjoint (rarely)."""
    n = draw(st.integers(1, max_atoms))
    scale = draw(st.sampled_from((6, 100, 10**6)))
    a = draw(st.lists(st.integers(0, scale), min_size=n, max_size=n).filter(any))
    b = draw(st.lists(st.integers(0, scale), min_size=n, max_size=n).filter(any))
    pa, pb = [Fraction(x, sum(a)) for x in a], [Fraction(y, sum(b)) for y in b]
    if n > 1 and draw(st.integers(0, 9)) == 0:  # one tiny mass, moved from the largest atom
        tiny = Fraction(1, 10 ** draw(st.sampled_from((20, 200, 320, 400))))
        side = pa if draw(st.booleans()) else pb
        i, j = draw(st.integers(0, n - 1)), max(range(n), key=lambda m: side[m])
        if i != j:
            side[j] -= tiny - side[i]
            side[i] = tiny
    if not any(x > 0 and y > 0 for x, y in zip(pa, pb)) and draw(st.integers(0, 9)) != 0:
        pa, pb = pa + [Fraction(0)], pb + [Fraction(0)]  # keep it disjoint only rarely: add a shared atom
        pa[-1] = pb[-1] = Fraction(1, 2)
        pa, pb = [x / sum(pa) for x in pa], [y / sum(pb) for y in pb]
    return tuple(pa), tuple(pb)


def steps_values():
    return st.one_of(st.integers(1, 4), st.integers(1, 100), log_uniform(1, 1e5).map(lambda x: max(1, round(x))))


def epsilons():
    """ε in [−5, 200]: dyadic, grid-aligned, continuous (uniform and log scale), or a special value."""
    lo, hi = Fraction(-5), Fraction(200)
    return st.one_of(
        dyadic(lo, hi, 6),
        grid_multiple(lo, hi),
        st.floats(-5, 200).map(_float),
        log_uniform(1e-6, 200),
        st.sampled_from([Fraction(0), Fraction(-5), Fraction(200)]),
    )


def deltas():
    """δ in [1e-300, 0.5]: m·10^-e, 2^-j, continuous log scale, or a special value."""
    decimal = st.builds(lambda m, e: Fraction(m, 10**e), st.integers(1, 9), st.integers(1, 300))
    return st.one_of(
        decimal,
        st.integers(1, 996).map(lambda j: Fraction(1, 2**j)),
        log_uniform(1e-300, 0.5),
        st.sampled_from([Fraction(1, 2), Fraction(1, 10**300)]),
    )


def rates(steps: int):
    return st.one_of(
        st.just(Fraction(1, steps)),
        st.just(Fraction(1)),
        st.integers(1, 20).map(lambda j: Fraction(1, 2**j)),
        log_uniform(1e-6, 1),
        st.integers(1, 9).flatmap(lambda d: st.integers(1, d).map(lambda n: Fraction(n, d))),
    )


@st.composite
def cases(draw, families=FAMILIES, schemes=("allocation", "poisson")):
    """A `Case` from the whole domain (see the module docstring)."""
    family = draw(st.sampled_from(tuple(families)))
    param = p = q = None
    if family == "gaussian":
        param = draw(positive_real(3e-3, 1e4, extra=("1", "1/2", "2")))
    elif family == "laplace":
        param = draw(laplace_scales())
    elif family == "randomized-response":
        param = draw(positive_real(1e-4, 50, extra=("1", "7/8")))
    else:
        p, q = draw(finite_pairs())
    scheme = draw(st.sampled_from(tuple(schemes)))
    steps = draw(steps_values())
    k = draw(st.one_of(st.just(1), st.just(steps), st.integers(1, min(steps, 10)), st.integers(1, steps)))
    epochs = draw(st.one_of(st.just(1), st.integers(1, 4), st.integers(1, 100)))
    rate = None
    if scheme == "poisson":  # each element joins each step with probability rate; k belongs to allocation
        k = 1
        rate = draw(rates(steps))
        if not 0 < rate <= 1:
            rate = Fraction(1)
    quantity = draw(st.sampled_from(("epsilon", "delta")))
    value = draw(deltas() if quantity == "epsilon" else epsilons())
    direction = draw(st.sampled_from(("remove", "add", "both")))
    offset = draw(st.sampled_from(CLAIM_OFFSETS))
    return Case(family, param, p, q, scheme, steps, k, epochs, rate, quantity, value, direction, offset)
