"""What `make mutation` mutates, and which tests judge each module (those that cover it and run in seconds).

Groups share one mutmut state (one stats run over their tests). Modules are the soundness-critical core of
issue #15: the PLD and allocation route, the RDP conversion, the analytic bounds, the exact layer, certify.
"""
N = "verialloc/numeric/"
T = "tests/numeric/"

GROUPS = {
    "pld": {
        "modules": [N + "pld.py", N + "discretize.py", N + "compose.py", N + "subsample.py", N + "exp_grid.py",
                    N + "accountant.py"],
        "tests": [T + "test_pld.py", T + "test_indep_epsilon_queries.py", T + "test_discretize.py",
                  T + "test_indep_discretize_lower.py", T + "test_grid_aligned.py", T + "test_compose.py",
                  T + "test_fft_underflow.py", T + "test_upper_keeps_mass.py", T + "test_subsample.py",
                  T + "test_eval_accuracy.py", T + "test_k_reduction.py", T + "test_accountant.py"],
    },
    "allocation": {
        "modules": [N + "allocation.py", N + "geometric.py"],
        "tests": [T + "test_allocation.py", T + "test_indep_allocation_cuts.py", T + "test_large_epsilon.py",
                  T + "test_grid_aligned.py", T + "test_geometric.py", T + "test_indep_geometric_ties.py"],
    },
    "rdp": {
        "modules": [N + "rdp_conversion.py", N + "log_moments.py", N + "rdp_logspace.py"],
        "tests": [T + "test_rdp_conversion.py", T + "test_rdp_logspace.py", T + "test_rdp_accountant.py"],
    },
    "analytic": {
        "modules": [N + "analytic/"],
        "tests": [T + "test_analytic_bounds.py", T + "test_indep_analytic_constants.py",
                  T + "test_analytic_accountant.py"],
    },
    "exact": {
        "modules": ["verialloc/exact/"],
        "tests": ["tests/exact/", T + "test_indep_quadrature.py"],
    },
    "certify": {
        "modules": ["verialloc/certify/"],
        "tests": ["tests/certify/"],
    },
}

# Statements that only build text (error messages, notes, warnings, progress labels): a mutant there cannot
# change a number or a verdict, so mutmut does not generate it (the class is documented in docs/verification.md).
MESSAGE_ONLY = [r"^\s*raise \w+\(", r"\bnotes\.(append|extend)\(", r"\bwarnings\.append\(", r"^\s*tick\("]
