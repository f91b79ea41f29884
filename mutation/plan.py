"""What `make mutation` mutates, and which tests judge each module (those that cover it and run in seconds).

Groups share one mutmut state (one stats run over their tests). Modules are the soundness-critical core of
issue #15: the PLD and allocation route, the RDP conversion, the analytic bounds, the exact layer, certify.
"""

N = "verialloc/numeric/"
T = "tests/numeric/"
P, A = N + "pld/", N + "pld/allocation/"
TP, TA = T + "pld/", T + "pld/allocation/"

GROUPS = {
    "pld": {
        "modules": [
            P + "pld.py",
            P + "discretize.py",
            P + "grid.py",
            P + "compose.py",
            P + "subsample.py",
            A + "exp_grid.py",
            P + "table.py",
            P + "pipeline.py",
        ],
        "tests": [
            TP + "test_pld.py",
            TP + "test_epsilon_query_direction.py",
            TP + "test_discretize.py",
            TP + "test_discretize_lower_dominated.py",
            TA + "test_grid_aligned.py",
            TP + "test_compose.py",
            TP + "test_fft_underflow.py",
            TP + "test_upper_keeps_mass.py",
            TP + "test_subsample.py",
            TP + "test_eval_accuracy.py",
            TP + "test_k_reduction.py",
            TP + "test_pld_accountant.py",
            "tests/properties/test_prop_pld_calculus.py",
            TP + "test_grid_index_ties.py",
            TP + "test_truncate.py",
            TP + "test_neg_inf_atom.py",
            TA + "test_exp_grid_merge.py",
            TA + "test_separable_lower.py",
            TP + "test_lower_contraction.py",
        ],
    },
    "allocation": {
        "modules": [
            A + "__init__.py",
            A + "squaring.py",
            A + "convolution.py",
            A + "tail_accurate.py",
            A + "readout.py",
            A + "geometric.py",
            A + "geometric_conv.py",
        ],
        "tests": [
            TA + "test_allocation.py",
            TA + "test_cut_bookkeeping.py",
            TA + "test_large_epsilon.py",
            TA + "test_grid_aligned.py",
            TA + "test_geometric.py",
            TA + "test_geometric_conv_ties.py",
            TA + "test_extreme_atoms.py",
            TA + "test_tail_accurate_evaluation_errors.py",
        ],
    },
    "rdp": {
        "modules": [N + "rdp/rdp_conversion.py", N + "rdp/log_moments.py", N + "rdp/rdp_logspace.py"],
        "tests": [
            T + "rdp/test_rdp_conversion.py",
            T + "rdp/test_rdp_logspace.py",
            T + "rdp/test_rdp_accountant.py",
            "tests/properties/test_prop_rdp.py",
            "tests/invariants/test_i13_rdp_conversion_above_pld.py",
            T + "rdp/test_fractional_orders_and_zero_coefficients.py",
        ],
    },
    "analytic": {  # the bounds; analytic_accountant.py (beside them since the route restructure) stays out, as before
        "modules": [
            N + "analytic/" + m + ".py"
            for m in (
                "__init__",
                "asymptotic",
                "base",
                "decomposition",
                "direct_add",
                "poisson_profile",
                "recursive",
                "truncated_poisson",
            )
        ],
        "tests": [
            T + "analytic/test_analytic_bounds.py",
            T + "analytic/test_f34_f43a_constants.py",
            T + "analytic/test_analytic_accountant.py",
            "tests/invariants/test_i31_decomposition_identities.py",
            "tests/invariants/test_i33_truncated_poisson_parameters.py",
            "tests/invariants/test_i34_recursive_parameters.py",
            T + "analytic/test_options_domain_and_f34_cap.py",
        ],
    },
    "exact": {
        "modules": ["verialloc/exact/"],
        "tests": ["tests/exact/"],
    },
    "certify": {
        "modules": ["verialloc/certify/"],
        "tests": ["tests/certify/"],
    },
}

# Statements that only build text (error messages, notes, warnings, progress labels): a mutant there cannot
# change a number or a verdict, so mutmut does not generate it (the class is documented in docs/verification.md).
MESSAGE_ONLY = [
    r"^\s*raise \w+\(",
    r"\bnotes\.(append|extend)\(",
    r"\bwarnings\.append\(",
    r"^\s*tick\(",
    r"^\s*not_applicable\(",
]
