"""Thin adapters around the third-party accountants used as anchors (extra `anchors` in pyproject.toml).

Each adapter computes ε(δ) for one configuration and returns `(eps_lower, eps_upper, seconds)`; a side that
the accountant does not give is None, and `seconds` times the accountant call alone (imports excluded).
An optional `info` dict receives details (the settings the accountant ended up with).

* `pld_accounting_allocation` — the authors' PLD_accounting (`pld-accounting`), Gaussian random allocation:
  default: `gaussian_allocation_epsilon_range` (adaptive refinement to upper/lower ≤ 1.1); with an explicit
  `loss_discretization`: `gaussian_allocation_epsilon_configurable` once per bound type (GEOM convolution).
* `random_allocation_combined` — the authors' analytic package (`random-allocation`): its lower bound and its
  `combined` upper bound (the minimum of its methods), RDP orders 2..60.
* `dp_accounting_poisson` — Google's dp_accounting PLD for Poisson-subsampled Gaussian DP-SGD: pessimistic:
  `PLDAccountant` composing a `SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)`
  (an upper estimate); optimistic: `from_gaussian_mechanism(pessimistic_estimate=False)` self-composed T
  times (a lower estimate, privacy buckets rounding down).

`call(name, limit, **kwargs)` runs one adapter in a child interpreter with a wall-clock limit, so a hanging
anchor cannot block a benchmark; the child is killed (its process group) at the limit. The interpreter is
`$VERIALLOC_ANCHOR_PYTHON` if set (an anchor installed in a separate venv), else the current one.
Errors: AnchorUnavailable (package not installed), AnchorTimeout, AnchorFailed (anything else).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


class AnchorError(RuntimeError):
    """An anchor could not produce a result."""


class AnchorUnavailable(AnchorError):
    """The anchor's package is not installed in the interpreter used."""


class AnchorTimeout(AnchorError):
    """The anchor did not finish within the wall-clock limit."""

    def __init__(self, limit: float):
        super().__init__(f"did not finish in {limit:g} s")
        self.limit = limit


class AnchorFailed(AnchorError):
    """The anchor raised, or its child process died."""


# ------------------------------------------------------------------------------------------ adapters


def pld_accounting_allocation(
    sigma: float,
    steps: int,
    delta: float,
    *,
    epochs: int = 1,
    k: int = 1,
    loss_discretization: float | None = None,
    tail_truncation: float | None = None,
    info: dict | None = None,
) -> tuple[float, float, float]:
    """(lower, upper, seconds) of ε(δ) for k-out-of-t Gaussian random allocation over `epochs` epochs.

    loss_discretization None: the package's default adaptive call (`gaussian_allocation_epsilon_range`, default
    epsilon_accuracy=-1, i.e. refine until upper/lower ≤ 1.1). Otherwise one GEOM-convolution PLD per bound type
    (`gaussian_allocation_epsilon_configurable`, IS_DOMINATED for the lower, DOMINATES for the upper) with this
    loss step and `tail_truncation` (default: the package's DEFAULT_TAIL_TRUNCATION).
    """
    import warnings

    try:
        import PLD_accounting as pa
    except ImportError as exc:
        raise AnchorUnavailable(f"pld-accounting not installed ({exc})") from exc
    info = {} if info is None else info
    if loss_discretization is None:
        try:  # the function gaussian_allocation_epsilon_range calls, for the settings it ended with
            from PLD_accounting.adaptive_random_allocation import optimize_allocation_epsilon_range
        except ImportError:
            optimize_allocation_epsilon_range = None
        params = pa.PrivacyParams(sigma=sigma, num_steps=steps, num_selected=k, num_epochs=epochs, delta=delta)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuntimeWarning)
            start = time.perf_counter()
            if optimize_allocation_epsilon_range is not None:
                res = optimize_allocation_epsilon_range(
                    params=params, target_accuracy=-1.0, pld_builder=pa.gaussian_allocation_pld
                )
                upper, lower = res.upper_bound, res.lower_bound
                info.update(
                    iterations=res.iterations,
                    loss_discretization=res.discretization,
                    tail_truncation=res.tail_truncation,
                    converged=res.converged,
                )
            else:
                upper, lower = pa.gaussian_allocation_epsilon_range(
                    delta=delta, sigma=sigma, num_steps=steps, num_selected=k, num_epochs=epochs
                )
            seconds = time.perf_counter() - start
        info["call"] = "gaussian_allocation_epsilon_range (adaptive, default accuracy)"
        info["warnings"] = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        return float(lower), float(upper), seconds
    tail = pa.DEFAULT_TAIL_TRUNCATION if tail_truncation is None else tail_truncation
    params = pa.PrivacyParams(sigma=sigma, num_steps=steps, num_selected=k, num_epochs=epochs, delta=delta)
    config = pa.AllocationSchemeConfig(
        loss_discretization=loss_discretization, tail_truncation=tail, convolution_method=pa.ConvolutionMethod.GEOM
    )
    start = time.perf_counter()
    lower, upper = (
        pa.gaussian_allocation_epsilon_configurable(params=params, config=config, bound_type=b)
        for b in (pa.BoundType.IS_DOMINATED, pa.BoundType.DOMINATES)
    )
    seconds = time.perf_counter() - start
    info.update(
        call="gaussian_allocation_epsilon_configurable x2 (GEOM)",
        loss_discretization=loss_discretization,
        tail_truncation=tail,
    )
    return float(lower), float(upper), seconds


def dp_accounting_poisson(
    sigma: float,
    rate: float,
    steps: int,
    delta: float,
    *,
    value_discretization: float = 1e-4,
    estimate: str = "pessimistic",
    info: dict | None = None,
) -> tuple[float | None, float | None, float]:
    """(lower, upper, seconds) of ε(δ) for Poisson-subsampled Gaussian (rate q, T = steps compositions).

    estimate "pessimistic": dp_accounting's PLDAccountant (add-or-remove, connect-the-dots) → (None, ε, s);
    "optimistic": from_gaussian_mechanism(pessimistic_estimate=False, use_connect_dots=False) composed T
    times → (ε, None, s). Neither is certified: both are dp_accounting's float64 estimates.
    """
    try:
        import dp_accounting
        from dp_accounting.pld import pld_privacy_accountant, privacy_loss_distribution
    except ImportError as exc:
        raise AnchorUnavailable(f"dp-accounting not installed ({exc})") from exc
    info = {} if info is None else info
    if estimate == "pessimistic":
        start = time.perf_counter()
        accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval=value_discretization)
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(rate, dp_accounting.GaussianDpEvent(sigma)), steps
        )
        eps = float(accountant.compose(event).get_epsilon(delta))
        seconds = time.perf_counter() - start
        info["call"] = f"PLDAccountant(value_discretization_interval={value_discretization:g})"
        return None, eps, seconds
    if estimate == "optimistic":
        start = time.perf_counter()
        pld = privacy_loss_distribution.from_gaussian_mechanism(
            standard_deviation=sigma,
            sampling_prob=rate,
            value_discretization_interval=value_discretization,
            pessimistic_estimate=False,
            use_connect_dots=False,
        )
        eps = float(pld.self_compose(steps).get_epsilon_for_delta(delta))
        seconds = time.perf_counter() - start
        info["call"] = f"from_gaussian_mechanism(pessimistic_estimate=False, Δ={value_discretization:g})"
        return eps, None, seconds
    raise ValueError(f"estimate must be 'pessimistic' or 'optimistic', got {estimate!r}")


def random_allocation_combined(
    sigma: float, steps: int, delta: float, *, epochs: int = 1, k: int = 1, info: dict | None = None
) -> tuple[float, float, float]:
    """(lower, upper, seconds) of ε(δ) for Gaussian random allocation from the authors' analytic package
    (`random-allocation`): `allocation_epsilon_lower_bound` and `allocation_epsilon_combined` (the minimum of its
    upper bounds), Direction.BOTH, RDP orders 2..60 for the remove direction. Float64, not certified."""
    try:
        from random_allocation.comparisons.structs import Direction, PrivacyParams, SchemeConfig
        from random_allocation.random_allocation_scheme.combined import allocation_epsilon_combined
        from random_allocation.random_allocation_scheme.lower_bound import allocation_epsilon_lower_bound
    except ImportError as exc:
        raise AnchorUnavailable(f"random-allocation not installed ({exc})") from exc
    params = PrivacyParams(sigma=sigma, num_steps=steps, num_selected=k, num_epochs=epochs, delta=delta)
    orders = list(range(2, 61))  # the remove direction needs its RDP orders (the package's experiments use these)
    scheme = SchemeConfig(
        allocation_direct_alpha_orders=orders, allocation_RDP_DCO_alpha_orders=[float(a) for a in orders]
    )
    start = time.perf_counter()
    lower = allocation_epsilon_lower_bound(params, scheme, Direction.BOTH)
    upper = allocation_epsilon_combined(params, scheme, Direction.BOTH)
    seconds = time.perf_counter() - start
    if info is not None:
        info["call"] = "allocation_epsilon_lower_bound / allocation_epsilon_combined (orders 2..60, BOTH)"
    return float(lower), float(upper), seconds


ADAPTERS = {
    "pld_accounting_allocation": pld_accounting_allocation,
    "dp_accounting_poisson": dp_accounting_poisson,
    "random_allocation_combined": random_allocation_combined,
}


# ------------------------------------------------------------------------------------ time-limited call


def python() -> str:
    """Interpreter the anchors run in."""
    return os.environ.get("VERIALLOC_ANCHOR_PYTHON") or sys.executable


def call(name: str, limit: float, **kwargs) -> tuple[float | None, float | None, float, dict]:
    """Run adapter `name` in a child interpreter within `limit` seconds: (lower, upper, seconds, info).

    info also holds "wall" (seconds of the child, imports included). Raises AnchorUnavailable, AnchorTimeout
    or AnchorFailed.
    """
    if name not in ADAPTERS:
        raise ValueError(f"unknown anchor adapter {name!r}")
    cmd = [python(), str(Path(__file__).resolve()), json.dumps({"name": name, "kwargs": kwargs})]
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(child)
        raise AnchorTimeout(limit) from None
    wall = time.perf_counter() - start
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        raise AnchorFailed(f"exit code {child.returncode}: {tail}")
    reply = json.loads(lines[-1])
    if "error" in reply:
        kind = AnchorUnavailable if reply["error"] == "unavailable" else AnchorFailed
        raise kind(reply["message"])
    info = reply["info"]
    info["wall"] = wall
    return reply["lower"], reply["upper"], reply["seconds"], info


def _kill(child: subprocess.Popen) -> None:
    """End the child we started and everything in its process group (numba/BLAS workers)."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.communicate()


def _child(request: str) -> None:
    spec = json.loads(request)
    info: dict = {}
    try:
        lower, upper, seconds = ADAPTERS[spec["name"]](**spec["kwargs"], info=info)
    except AnchorUnavailable as exc:
        print(json.dumps({"error": "unavailable", "message": str(exc)}))
        return
    except Exception as exc:  # reported to the parent, which raises AnchorFailed
        print(json.dumps({"error": "failed", "message": f"{type(exc).__name__}: {exc}"}))
        return
    print(json.dumps({"lower": lower, "upper": upper, "seconds": seconds, "info": info}))


if __name__ == "__main__":
    _child(sys.argv[1])
