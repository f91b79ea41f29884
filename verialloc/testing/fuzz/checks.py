"""What one fuzz case runs and how its answers are judged.

Tasks (run in a worker process by `runner`, each with a wall-clock limit):
* ("query", method): `api.delta` / `api.epsilon` with the method's cheap, CLI-expressible settings
  (`Method.quick_flags`: pld/best/analytic a loss step of 1e-3, mc few samples and a fixed seed; else defaults);
* ("certify",): `certify.certify` of a claim placed at the exact value × (1 + offset), with a small budget.

Outcomes: "ok" (a bracket), "na" (UnsupportedRequest / InvalidParameter: not applicable), "crash" (any other
exception), "timeout", "skipped" (estimated too costly). Judgement (`judge`):
* every certified bracket (error_kind exact / quadrature / bound, the certificate's bracket, and the trivial
  bracket of I1) against every other: lower_A ≤ upper_B; quadrature brackets get a relative tolerance
  QUADRATURE_RTOL and the violation is labelled "quadrature (estimated)", exact ones EXACT_RTOL (they are
  rounded to DIGITS digits); gaps below ROUNDING_RTOL (relative) are labelled "rounding-level";
* mc (error_kind "statistical") only against the exact value: a miss is counted, never a violation;
* certify verdicts against the exact value: CERTIFIED needs claim ≥ exact, REFUTED needs claim < exact;
* a crash, a NaN end, or an internal "a bug" error of a method is a violation.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath as mp

from ... import registry
from ...errors import InvalidParameter, UnsupportedRequest
from .cases import Case, text

CERTIFIED_KINDS = ("exact", "quadrature", "bound")
QUADRATURE_RTOL = mp.mpf("1e-8")
DIGITS = 20
#: exact brackets are rounded to DIGITS significant digits
EXACT_RTOL = mp.mpf(10) ** (3 - DIGITS)
#: relative gaps below this are labelled "rounding-level" (still violations: certified ends must be sound)
ROUNDING_RTOL = mp.mpf("1e-12")
CERTIFY_BUDGET = 5.0


def method_options(case: Case, method: str) -> tuple[dict, list[str]]:
    """(Python keyword options, the equivalent CLI flags) of a method's quick settings (`Method.quick_flags`)."""
    m = registry.method(method)
    flags = m.quick_flags(case.config())
    keywords = {f.keyword: flags[f.name] for f in m.flags if f.name in flags}
    return (m.options_from_flags(keywords) if keywords else {}), [x for f, v in flags.items() for x in (f"--{f}", v)]


def certify_claim(case: Case, exact_lower, exact_upper) -> Fraction | None:
    """The claim handed to certify: the exact value × (1 + offset), as a 16-digit decimal; None if invalid or
    outside [1e-300, 1e300] in magnitude (no user types such a claim; its decimal would have ~|exponent| digits)."""
    with mp.workdps(DIGITS + 40):
        mid = (exact_lower + exact_upper) / 2
        if not mp.isfinite(mid):
            return None
        value = mid * (1 + mp.mpf(case.claim_offset.numerator) / case.claim_offset.denominator)
        if value != 0 and not mp.mpf("1e-300") <= abs(value) <= mp.mpf("1e300"):
            return None
        claim = Fraction(mp.nstr(value, 16)) if value != 0 else Fraction(0)
    claim = max(claim, Fraction(0))
    if case.quantity == "delta" and claim >= 1:
        return None
    return claim


# --- worker side --------------------------------------------------------------------------------------
def execute(task: dict) -> dict:
    """Run one task (a dict with "case" and "kind"); never raises."""
    t0 = time.perf_counter()
    case = Case.from_dict(task["case"])
    try:
        if task["kind"] == "query":
            out = _query(case, task["method"])
        else:
            out = _certify(case, Fraction(task["claim"]), task["budget"])
    except UnsupportedRequest as exc:
        out = {"status": "na", "error": f"UnsupportedRequest: {exc}"}
    except InvalidParameter as exc:
        if "a bug" in str(exc):  # internal consistency check of verialloc, e.g. certify's lower > upper
            out = {"status": "crash", "error": f"InvalidParameter: {exc}", "traceback": _tail()}
        else:
            out = {"status": "na", "error": f"InvalidParameter: {exc}"}
    except Exception as exc:  # noqa: BLE001 — any other exception is what the fuzzer reports
        out = {"status": "crash", "error": f"{type(exc).__name__}: {exc}"[:500], "traceback": _tail()}
    out["seconds"] = time.perf_counter() - t0
    return out


def _tail() -> str:
    return "".join(traceback.format_exc().splitlines(keepends=True)[-12:])


def _query(case: Case, method: str) -> dict:
    from ... import api

    options, _ = method_options(case, method)
    ask = api.delta if case.quantity == "delta" else api.epsilon
    b = ask(case.config(), case.value, direction=case.direction, method=method, digits=DIGITS, **options)
    return {"status": "ok", "lower": _exact_mpf(b.lower), "upper": _exact_mpf(b.upper), "error_kind": b.error_kind}


def _exact_mpf(x) -> mp.mpf:
    """x as an mpf without rounding it to the current precision (floats and mpf of any precision)."""
    with mp.workdps(DIGITS + 40):
        return mp.mpf(x)


def _certify(case: Case, claim: Fraction, budget: float) -> dict:
    from ...certify import certify, make_claim

    made = (
        make_claim(delta=case.value, claimed_epsilon=claim)
        if case.quantity == "epsilon"
        else make_claim(epsilon=case.value, claimed_delta=claim)
    )
    cert = certify(case.config(), made, case.direction, budget)
    kinds = {getattr(s, "error_kind", "bound") for s in cert.steps}
    # a floored ε bracket is of max(ε(δ), 0): as a bracket of ε(δ) its lower end 0 says nothing (ε(δ) may be < 0)
    lower = mp.mpf("-inf") if cert.floored and cert.lower == 0 else cert.lower
    return {
        "status": "ok",
        "lower": _exact_mpf(lower),
        "upper": _exact_mpf(cert.upper),
        "verdict": cert.verdict,
        "error_kind": "quadrature" if "quadrature" in kinds else "bound",
        "steps": [getattr(s, "method", "?") for s in cert.steps],
    }


# --- judgement ----------------------------------------------------------------------------------------
@dataclass
class Violation:
    kind: str  # "bracket" | "certify" | "crash" | "nan"
    methods: tuple  # (A, B): A's lower above B's upper; (method,) for crashes
    case: Case
    message: str
    label: str = ""  # "quadrature (estimated)" when a quadrature bracket is involved
    commands: list = field(default_factory=list)
    python: str = ""

    @property
    def signature(self) -> tuple:
        """Distinct bugs for shrinking: what failed, between which methods, for which family and scheme."""
        extra = self.message.split(":")[0] if self.kind == "crash" else ""
        return (self.kind, self.methods, self.case.family, self.case.scheme, extra)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "methods": list(self.methods),
            "label": self.label,
            "message": self.message,
            "case": self.case.to_dict(),
            "description": self.case.describe(),
            "commands": self.commands,
            "replay": self.case.replay_command(),
            "python": self.python,
        }


def trivial(case: Case) -> dict:
    """The bracket every δ(ε) / ε(δ) lies in (I1): δ ∈ [max(0, 1 − e^ε), 1], ε ∈ [ln(1 − δ), +inf]."""
    with mp.workdps(40):
        v = mp.mpf(case.value.numerator) / case.value.denominator
        if case.quantity == "delta":
            return {"status": "ok", "lower": max(mp.mpf(0), -mp.expm1(v)), "upper": mp.mpf(1), "error_kind": "exact"}
        return {"status": "ok", "lower": mp.log1p(-v), "upper": mp.inf, "error_kind": "exact"}


def judge(case: Case, results: dict, claim: Fraction | None = None, budget: float = CERTIFY_BUDGET) -> tuple[list, int]:
    """(violations, mc misses) of a case's results {name: outcome}; names are methods, "certify", "trivial"."""
    with mp.workdps(DIGITS + 40):  # ends carry up to DIGITS + 15 digits: sums and gaps must not round them
        return _judge(case, results, claim, budget)


def _judge(case: Case, results: dict, claim, budget) -> tuple[list, int]:
    violations: list[Violation] = []
    for name, out in results.items():
        if out["status"] == "crash":
            violations.append(_violation(case, "crash", (name,), out["error"], claim, budget))
        elif out["status"] == "ok" and (mp.isnan(out["lower"]) or mp.isnan(out["upper"])):
            violations.append(
                _violation(case, "nan", (name,), f"NaN in the bracket [{out['lower']}, {out['upper']}]", claim, budget)
            )
    sound = {
        n: o
        for n, o in results.items()
        if o["status"] == "ok"
        and o["error_kind"] in CERTIFIED_KINDS
        and not (mp.isnan(o["lower"]) or mp.isnan(o["upper"]))
    }
    for a, oa in sound.items():
        for b, ob in sound.items():
            if a == b or (a, b) == ("trivial", "trivial"):
                continue
            quad = "quadrature" in (oa["error_kind"], ob["error_kind"])
            rtol = max(_rtol(a, oa), _rtol(b, ob))
            ends = (oa["lower"], ob["upper"])
            tol = rtol * max(abs(x) for x in ends) if all(mp.isfinite(x) for x in ends) else 0
            if oa["lower"] > ob["upper"] + tol:
                gap = oa["lower"] - ob["upper"]
                rel = gap / abs(ob["upper"]) if ob["upper"] not in (0, mp.inf, -mp.inf) else mp.inf
                msg = (
                    f"lower end of {a} {_num(oa['lower'])} > upper end of {b} {_num(ob['upper'])} "
                    f"(gap {_num(gap, 4)}, relative {_num(rel, 3)}); {a} [{oa['error_kind']}] = "
                    f"[{_num(oa['lower'])}, {_num(oa['upper'])}], {b} [{ob['error_kind']}] = "
                    f"[{_num(ob['lower'])}, {_num(ob['upper'])}]"
                )
                label = ", ".join(
                    x
                    for x in ("quadrature (estimated)" if quad else "", "rounding-level" if rel < ROUNDING_RTOL else "")
                    if x
                )
                violations.append(_violation(case, "bracket", (a, b), msg, claim, budget, label))
    misses = 0
    exact = results.get("exact")
    if exact and exact["status"] == "ok":
        misses = sum(o["lower"] > exact["upper"] or o["upper"] < exact["lower"] for o in _estimates(results))
    cert = results.get("certify")
    if cert and cert["status"] == "ok" and exact and exact["status"] == "ok" and claim is not None:
        quad = "quadrature" in (exact["error_kind"], cert["error_kind"])
        rtol = QUADRATURE_RTOL if quad else EXACT_RTOL
        c = mp.mpf(claim.numerator) / claim.denominator
        lo, hi = exact["lower"] * (1 - rtol), exact["upper"] * (1 + rtol)
        lo, hi = min(lo, exact["lower"]), max(hi, exact["upper"])
        bad = (cert["verdict"] == "certified" and c < lo) or (cert["verdict"] == "refuted" and c >= hi)
        if bad:
            msg = (
                f"verdict {cert['verdict'].upper()} for claim {text(claim)} but the exact value is "
                f"[{_num(exact['lower'])}, {_num(exact['upper'])}] ({exact['error_kind']}); certificate bracket "
                f"[{_num(cert['lower'])}, {_num(cert['upper'])}] from steps {cert.get('steps')}"
            )
            violations.append(
                _violation(
                    case, "certify", ("certify", "exact"), msg, claim, budget, "quadrature (estimated)" if quad else ""
                )
            )
    return violations, misses


def count_checks(results: dict, claim) -> int:
    """How many differential checks `judge` makes on these results: one per method outcome (crash / NaN), one per
    ordered pair of distinct certified brackets (lower_A ≤ upper_B), one for mc against exact, one per verdict."""
    sound = [n for n, o in results.items() if o["status"] == "ok" and o["error_kind"] in CERTIFIED_KINDS]
    exact, cert = results.get("exact"), results.get("certify")
    paired = exact is not None and exact["status"] == "ok"
    return (
        len(results)
        + len(sound) * (len(sound) - 1)
        + (len(_estimates(results)) if paired else 0)
        + int(paired and claim is not None and cert is not None and cert["status"] == "ok")
    )


def _estimates(results: dict) -> list:
    """The statistical answers (mc): judged against the exact value as misses, never as violations."""
    return [o for o in results.values() if o["status"] == "ok" and o.get("error_kind") == "statistical"]


def _rtol(name: str, out: dict):
    if out["error_kind"] == "quadrature":
        return QUADRATURE_RTOL
    return EXACT_RTOL if out["error_kind"] == "exact" and name != "trivial" else 0


def _num(x, digits: int = 17) -> str:
    return mp.nstr(mp.mpf(x), digits) if mp.isfinite(x) else ("nan" if mp.isnan(x) else ("inf" if x > 0 else "-inf"))


def _violation(case, kind, methods, message, claim, budget, label="") -> Violation:
    v = Violation(kind, tuple(methods), case, message, label)
    v.commands = [command(case, m, claim, budget) for m in methods if command(case, m, claim, budget)]
    v.python = python_snippet(case, methods, claim, budget)
    return v


def command(case: Case, name: str, claim, budget) -> str:
    if name == "trivial":
        return ""
    if name == "certify":
        return case.certify_command(claim, budget) if claim is not None else ""
    return case.query_command(name, method_options(case, name)[1], DIGITS)


def python_snippet(case: Case, methods, claim, budget) -> str:
    lines = [case.python_config().rstrip("\n")]
    fn = "api.delta" if case.quantity == "delta" else "api.epsilon"
    for name in methods:
        if name == "trivial":
            lines.append(
                f"# trivial: the I1 bracket of any {case.quantity} (delta in [max(0, 1-e^eps), 1], "
                "epsilon >= ln(1-delta))"
            )
        elif name == "certify":
            lines.append("from verialloc.certify import certify, make_claim")
            arg = (
                f"delta={text(case.value)!r}, claimed_epsilon={text(claim)!r}"
                if case.quantity == "epsilon"
                else f"epsilon={text(case.value)!r}, claimed_delta={text(claim)!r}"
            )
            lines.append(f"cert = certify(config, make_claim({arg}), {case.direction!r}, budget={budget:g})")
            lines.append("print('certify', cert.verdict, cert.lower, cert.upper)")
        else:
            m = registry.method(name)
            flags = m.quick_flags(case.config())
            keywords = {f.keyword: flags[f.name] for f in m.flags if f.name in flags}
            opts = ""
            if keywords:
                lines.append("from verialloc import registry")
                opts = f", **registry.method({name!r}).options_from_flags({keywords!r})"
            lines.append(
                f"{name} = {fn}(config, {text(case.value)!r}, direction={case.direction!r}, "
                f"method={name!r}, digits={DIGITS}{opts})"
            )
            lines.append(f"print({name!r}, {name}.lower, {name}.upper, {name}.error_kind)")
    return "\n".join(lines) + "\n"
