"""The fuzz loop: hypothesis draws cases, a worker process answers them under a wall-clock limit, failures shrink.

Runs are successive hypothesis searches seeded by (seed, run number), each drawing up to SLICE cases of one
mechanism family (the families take turns). Inside a run the test function raises one
exception class per *new* violation signature (kind, methods, family, scheme), so hypothesis shrinks each distinct
bug separately (report_multiple_bugs); the next run no longer raises the signatures already found and looks for
new ones. Results are cached per case, so hypothesis' replays cost nothing, and once the shrink budget (or the
total time) is spent every not-yet-seen case passes at once, which ends the shrinking quickly and consistently.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hseed, settings

from ... import registry
from ...runtime import child
from .cases import FAMILIES, Case, cases
from .checks import CERTIFY_BUDGET, certify_claim, count_checks, execute, judge, trivial

#: address-space limit of the worker (a method asking for more raises MemoryError: reported as a crash)
WORKER_MEMORY = 4 << 30
#: the methods fuzzed by default: every registered one but those that choose another (auto runs exact or best)
ALL_METHODS = tuple(name for name, m in registry.METHODS.items() if not m.chooses)
#: cases drawn per hypothesis run; runs take the families in turn (one sampled_from over the families draws
#: some of them far more often than others over a long run)
SLICE = 8


class _Stop(BaseException):
    """Ends a hypothesis run when the time or case budget is spent (not an Exception: hypothesis lets it through)."""


class FuzzFailure(Exception):
    """Raised inside a run for a new violation signature; carries the case and its violations."""

    def __init__(self, case, violations):
        super().__init__(violations[0].message)
        self.case, self.violations = case, violations


_CLASSES: dict = {}


def _failure_class(signature: tuple) -> type:
    """One exception class per signature: hypothesis tells distinct bugs apart by their exception type."""
    if signature not in _CLASSES:
        _CLASSES[signature] = type(f"FuzzFailure{len(_CLASSES)}", (FuzzFailure,), {})
    return _CLASSES[signature]


# --- worker -------------------------------------------------------------------------------------------
def _quiet_execute(task: dict) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    return execute(task)


def run_task(task: dict, timeout: float) -> dict:
    """One task (`checks.execute`) in a child process (runtime.child) within `timeout` seconds and WORKER_MEMORY;
    a timeout or a dead child is an outcome, never an exception."""
    t0 = time.perf_counter()
    try:
        return child.run(_quiet_execute, task, timeout=timeout, memory=WORKER_MEMORY)
    except child.ChildTimeout:
        return {"status": "timeout", "seconds": time.perf_counter() - t0}
    except child.ChildFailure as exc:
        return {
            "status": "crash",
            "error": f"WorkerDied: the worker process died (out of memory or a native crash): {exc}",
            "seconds": time.perf_counter() - t0,
        }


# --- one case -----------------------------------------------------------------------------------------
@dataclass
class CaseResult:
    case: Case
    results: dict
    violations: list
    mc_misses: int
    seconds: float
    checks: int = 0


def evaluate(
    case: Case, methods, timeout: float, certify_budget: float = CERTIFY_BUDGET, with_certify: bool = True
) -> CaseResult:
    """Every method (then certify, when there is an exact value) on one case, then the judgement."""
    t0 = time.perf_counter()
    results = {"trivial": trivial(case)}
    payload = case.to_dict()
    for method in methods:
        if _combined_too_costly(registry.method(method), results, timeout):
            results[method] = {"status": "skipped", "error": "estimated cost above the time limit", "seconds": 0.0}
            continue
        results[method] = run_task({"kind": "query", "case": payload, "method": method}, timeout)
    claim = None
    exact = results.get("exact")
    if with_certify and exact is not None and exact["status"] == "ok":
        claim = certify_claim(case, exact["lower"], exact["upper"])
        if claim is not None:
            results["certify"] = run_task(
                {"kind": "certify", "case": payload, "claim": str(claim), "budget": certify_budget},
                timeout + certify_budget,
            )
    violations, misses = judge(case, results, claim, certify_budget)
    return CaseResult(case, results, violations, misses, time.perf_counter() - t0, count_checks(results, claim))


def _combined_too_costly(method, results: dict, timeout: float) -> bool:
    """A method that runs others in turn (`Method.combines`, best) would take their measured times (scaled from
    their quick settings): skipped when that exceeds the limit or one of them already timed out."""
    if not method.combines:
        return False
    cost = sum(factor * results.get(m, {}).get("seconds", 0.0) for m, factor in method.combines.items())
    return cost > timeout or any(results.get(m, {}).get("status") == "timeout" for m in method.combines)


# --- the loop -----------------------------------------------------------------------------------------
@dataclass
class Report:
    seed: int
    methods: tuple
    families: tuple
    seconds: float = 0.0
    runs: int = 0
    cases: list = field(default_factory=list)  # CaseResult of every evaluated case, in order
    found: dict = field(default_factory=dict)  # signature -> Violation (the shrunk one when shrinking finished)
    occurrences: dict = field(default_factory=dict)  # signature -> number of cases showing it
    shrunk: set = field(default_factory=set)
    notes: list = field(default_factory=list)


def fuzz(
    minutes: float = 1.0,
    seed: int = 0,
    methods=ALL_METHODS,
    families=FAMILIES,
    *,
    max_cases: int | None = None,
    timeout: float = 20.0,
    certify_budget: float = CERTIFY_BUDGET,
    shrink_seconds: float | None = None,
    progress=None,
    with_certify: bool = True,
) -> Report:
    """Draw and check cases for `minutes` (or until `max_cases` cases were drawn); returns the Report.

    progress(report, case_result) is called after every evaluated case. Same seed: same cases in the same
    order (up to how far the budget reaches; timeouts may change the shrinking)."""
    _preload()
    methods, families = tuple(methods), tuple(families)
    report = Report(seed, methods, families)
    start = time.monotonic()
    deadline = start + 60.0 * minutes
    shrink_budget = shrink_seconds if shrink_seconds is not None else max(30.0, 12.0 * minutes)
    cache: dict = {}
    drawn = 0
    try:
        while time.monotonic() < deadline and (max_cases is None or drawn < max_cases):
            known = set(report.found)
            family = families[report.runs % len(families)]
            state = {"first_failure": None, "drawn": 0}

            def test(case: Case) -> None:
                nonlocal drawn
                key = case.to_json()
                if key not in cache:
                    now = time.monotonic()
                    if state["first_failure"] is not None:  # shrinking (or the last moments of generation)
                        if now > min(deadline + shrink_budget, state["first_failure"] + shrink_budget):
                            return
                    elif now > deadline or (max_cases is not None and drawn >= max_cases) or state["drawn"] >= SLICE:
                        raise _Stop
                    else:
                        drawn += 1
                        state["drawn"] += 1
                    result = evaluate(case, methods, timeout, certify_budget, with_certify)
                    cache[key] = result
                    report.cases.append(result)
                    for v in result.violations:
                        report.occurrences[v.signature] = report.occurrences.get(v.signature, 0) + 1
                        report.found.setdefault(v.signature, v)
                    if progress is not None:
                        progress(report, result)
                result = cache[key]
                new = [v for v in result.violations if v.signature not in known]
                if new:
                    if state["first_failure"] is None:
                        state["first_failure"] = time.monotonic()
                    raise _failure_class(new[0].signature)(case, new)

            run = hseed(seed * 100_003 + report.runs)(
                settings(
                    max_examples=10**9,
                    deadline=None,
                    database=None,
                    verbosity=Verbosity.quiet,
                    derandomize=False,
                    suppress_health_check=list(HealthCheck),
                    report_multiple_bugs=True,
                    phases=(Phase.generate, Phase.shrink),
                )(given(cases((family,)))(test))
            )
            report.runs += 1
            try:
                run()
            except _Stop:
                continue  # the slice is done: the next family (the loop ends on the time or case budget)
            except FuzzFailure as exc:
                _record(report, [exc])
            except BaseExceptionGroup as group:
                _record(
                    report,
                    [e for e in _leaves(group) if isinstance(e, FuzzFailure)],
                    [e for e in _leaves(group) if not isinstance(e, FuzzFailure)],
                )
            except Exception as exc:  # noqa: BLE001 — hypothesis itself (e.g. Flaky): note it, keep fuzzing
                report.notes.append(f"hypothesis run {report.runs} ended with {type(exc).__name__}: {exc}"[:300])
    finally:
        report.seconds = time.monotonic() - start
    return report


def _leaves(group):
    for e in group.exceptions:
        yield from (_leaves(e) if isinstance(e, BaseExceptionGroup) else (e,))


def _record(report: Report, failures: list, others=()) -> None:
    for exc in failures:
        first = exc.violations[0]
        report.found[first.signature] = first  # the minimal example hypothesis shrank to
        report.shrunk.add(first.signature)
    for exc in others:
        report.notes.append(f"hypothesis: {type(exc).__name__}: {exc}"[:300])


def _preload() -> None:
    """Import every method before forking, so that no task's child pays the imports."""
    from ... import api  # noqa: F401
    from ...certify import certify  # noqa: F401
    from ...numeric.analytic import Options  # noqa: F401


def replay(
    case: Case, methods=ALL_METHODS, timeout: float = 60.0, certify_budget: float = CERTIFY_BUDGET
) -> CaseResult:
    """Re-run one case (from `Case.from_dict(json.loads(...))`), e.g. a printed `verialloc fuzz --replay ...`."""
    _preload()
    return evaluate(case, methods, timeout, certify_budget)
