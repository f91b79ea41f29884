"""The PLD route (method "pld", pld_accountant): sound lower and upper privacy loss distributions in float64.

Single-step loss laws (loss_law) are discretized on the grid {k·Δ} (discretize), Poisson-subsampled (subsample)
or turned into random-allocation PLDs (allocation/), then composed (compose); a PLD (pld) answers δ(ε) and ε(δ).
docs/pld.md.
"""
