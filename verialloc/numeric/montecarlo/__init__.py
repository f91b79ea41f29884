"""The Monte Carlo route (method "mc", mc_accountant): statistical estimates with confidence intervals, never
bounds (the estimator: montecarlo). docs/montecarlo.md.
"""
