"""jax_privacy (1.0.0) bridge: a batch-selection strategy and its noise multiplier in, a verialloc Config out; a
training plan of several phases, each a (strategy, noise multiplier) pair, in, a Ledger of the phases out (the
phases draw their batches independently and run one after the other: their composition, F21). Needs no jax: the
strategy is read by its field names (duck typing).

Followed: google-deepmind/jax_privacy, `jax_privacy/batch_selection.py` (commit 038827bc46824d7dd42e2bae4053d6a31f9c5db9:
`BallsInBinsSampling(iterations, cycle_length)`, `CyclicPoissonSampling(sampling_prob, iterations,
truncated_batch_size=None, cycle_length=1, partition_type)`), the balls-in-bins dominating pair of its Monte Carlo
accountant `jax_privacy/experimental/monte_carlo/sample_generation.py::_generate_balls_in_bins_sample` (commit
01e66e75c1b1b9c82d84d1c2096754f7aed6c599; arXiv 2410.06266), and its DP-SGD accounting
`jax_privacy/accounting/analysis.py::DpsgdTrainingAccountant` / `jax_privacy/accounting.py::amplified_bandmf_event`
(PoissonSampled Gaussian composed ⌈iterations/cycle_length⌉ times). The strategies carry no noise: σ (noise std /
clipping norm, `noise_multiplier` in jax_privacy) is a separate argument.

| jax_privacy | verialloc |
|---|---|
| `BallsInBinsSampling(iterations=E·t, cycle_length=t)`, σ | `Config(Gaussian(σ/√E), steps=t, k=1)` (t > 1) |
| `BallsInBinsSampling(iterations=E, cycle_length=1)`, σ | `Config(Gaussian(σ), "poisson", rate=1, steps=E)` |
| `CyclicPoissonSampling(q, iterations=T, cycle_length=c)`, σ | `Config(Gaussian(σ), "poisson", rate=q, steps=⌈T/c⌉)` |

Balls in bins: each example draws one bin j of t = cycle_length **once** and joins every round i ≡ j (mod t), so
over E = iterations/t cycles it is in the same bin E times (not redrawn per epoch: that would be verialloc's
`epochs=E`, a composition of E allocations, F21). jax_privacy's dominating pair is N(x_j, σ²I) mixed over j against
N(0, σ²I), x_j the indicator of the rounds ≡ j; the sum of each bin's E rounds is sufficient, which leaves random
allocation of one of t steps (k = 1, F11) of the Gaussian with sensitivity √E, i.e. noise multiplier σ/√E. When E is
not a perfect square σ/√E is irrational: the Config holds it rounded **down** to SIGMA_DIGITS significant digits
(less noise: a dominating pair, I5, so upper ends and "certified" verdicts stay sound; a lower end can exceed the
true value by a relative ~10^-SIGMA_DIGITS). `iterations` not a multiple of cycle_length (bins with one more round
than others) is refused; a run rounded up to ⌈T/t⌉·t rounds bounds it (the real run is its post-processing).

Cyclic Poisson: an example is eligible in the rounds of its group only, ⌈T/c⌉ of them at most, and is Poisson
sampled at rate q in each; this is jax_privacy's own DP-SGD analysis (exact for c = 1, standard DP-SGD; for c > 1
the bound of the fullest group, as jax_privacy reports it). Truncated batches (`truncated_batch_size`) and other
strategies (`BMinSepSampling`, ...) raise UnsupportedRequest naming the class.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..config import Config
from ..errors import InvalidParameter, UnsupportedRequest
from ..ledger import MAX_EVENTS, Ledger
from ..mechanisms import Gaussian
from ..validation import integer, positive, rate

#: significant digits of σ/√E when it is irrational (rounded down)
SIGMA_DIGITS = 30


def from_jax_privacy(strategy, noise_multiplier=None) -> Config | Ledger:
    """The Config of a jax_privacy batch-selection strategy with Gaussian noise multiplier σ (module docstring); a
    plan `[(strategy, σ), ...]` (noise_multiplier omitted) gives the Ledger composing its phases (F21)."""
    if noise_multiplier is None:
        return _plan(strategy)
    return _phase(strategy, noise_multiplier)


def _plan(phases) -> Ledger:
    if not isinstance(phases, (list, tuple)) or not phases or len(phases) > MAX_EVENTS:
        raise InvalidParameter(
            "noise_multiplier",
            "(missing)",
            f"must be given with a strategy; or pass a plan: a list of 1 to {MAX_EVENTS} (strategy, noise_multiplier) "
            "pairs",
        )
    for i, phase in enumerate(phases):
        if not isinstance(phase, (list, tuple)) or len(phase) != 2:
            raise InvalidParameter(f"phases[{i}]", type(phase).__name__, "must be a (strategy, noise_multiplier) pair")
    return Ledger.of(*(_phase(strategy, sigma) for strategy, sigma in phases))


def _phase(strategy, noise_multiplier) -> Config:
    name = type(strategy).__name__
    sigma = positive("noise_multiplier", noise_multiplier)
    fields = {
        f
        for f in ("iterations", "cycle_length", "sampling_prob", "truncated_batch_size", "min_sep")
        if hasattr(strategy, f)
    }
    if fields == {"iterations", "cycle_length"}:
        return _balls_in_bins(strategy, name, sigma)
    if {"iterations", "cycle_length", "sampling_prob", "truncated_batch_size"} == fields:
        return _cyclic_poisson(strategy, name, sigma)
    raise UnsupportedRequest(
        "strategy",
        name,
        "must be a jax_privacy BallsInBinsSampling (iterations, cycle_length) "
        "or CyclicPoissonSampling (sampling_prob, iterations, cycle_length, truncated_batch_size)",
    )


def _balls_in_bins(strategy, name: str, sigma: Fraction) -> Config:
    t = integer(f"{name}.cycle_length", strategy.cycle_length, lo=1)
    iterations = integer(f"{name}.iterations", strategy.iterations, lo=1)
    if iterations % t:
        raise UnsupportedRequest(
            f"{name}.iterations",
            iterations,
            f"must be a multiple of cycle_length={t} (else some bins get one more round); a run of "
            f"{-(-iterations // t) * t} rounds bounds it from above",
        )
    cycles = iterations // t
    if t == 1:
        return Config(Gaussian(sigma), "poisson", steps=cycles, rate=1)
    return Config(Gaussian(_over_sqrt(sigma, cycles)), steps=t, k=1)


def _cyclic_poisson(strategy, name: str, sigma: Fraction) -> Config:
    if strategy.truncated_batch_size is not None:
        raise UnsupportedRequest(
            f"{name}.truncated_batch_size",
            strategy.truncated_batch_size,
            "truncated Poisson sampling is not a verialloc scheme; only None",
        )
    q = rate(f"{name}.sampling_prob", strategy.sampling_prob)
    c = integer(f"{name}.cycle_length", strategy.cycle_length, lo=1)
    iterations = integer(f"{name}.iterations", strategy.iterations, lo=1)
    return Config(Gaussian(sigma), "poisson", steps=-(-iterations // c), rate=q)


def _over_sqrt(sigma: Fraction, n: int) -> Fraction:
    """σ/√n: exact when n is a perfect square, else rounded down to SIGMA_DIGITS significant digits."""
    root = math.isqrt(n)
    if root * root == n:
        return sigma / root
    magnitude = math.floor(math.log10(sigma.numerator) - math.log10(sigma.denominator) - math.log10(n) / 2)
    scale = 10 ** max(0, SIGMA_DIGITS - 1 - magnitude)
    return Fraction(math.isqrt(sigma.numerator**2 * scale**2 // (sigma.denominator**2 * n)), scale)
