"""The RDP route (method "rdp", rdp_accountant): Rényi DP curves in log space and their (ε, δ) conversion.

Log moments of one step (log_moments) → RDP curves of the schemes (rdp_logspace) → conversion to (ε, δ)
(rdp_conversion, F18–F20). docs/rdp.md.
"""
