"""Cost of an mc query before it runs (numeric.montecarlo.mc_accountant): C_MC per drawn matrix entry (samples·t,
both directions and the pilot draws), 16 bytes per sample plus one chunk of draws."""

from __future__ import annotations

from ...budget import BASE_MEMORY, BASE_SECONDS, Estimate, int_or_none
from ...config import Config
from .mc_accountant import default_samples

#: seconds per drawn matrix entry, bytes per sample (log weight + loss) and of one chunk
C_MC, MC_SAMPLE_BYTES, MC_CHUNK_BYTES = 3e-8, 16, 4_000_000 * 8 * 4


def estimate(config: Config, samples) -> Estimate:
    t = config.steps
    n = int_or_none(samples)
    if n is None:
        n = default_samples(t)
    counted = min(n, 2**64)  # beyond: refused all the same, and the float estimate stays finite
    entries = 2 * counted * t * 1.1  # two directions, pilot draws (≈ 5 %) included
    return Estimate(
        BASE_SECONDS + C_MC * entries, BASE_MEMORY + MC_SAMPLE_BYTES * counted * 3 + MC_CHUNK_BYTES, "samples", n
    )
