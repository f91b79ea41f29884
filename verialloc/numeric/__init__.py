"""The float64 layer: one subpackage per route, each with its method entry point `<method>_accountant`.

pld/ (method "pld"), rdp/ ("rdp"), analytic/ ("analytic", built on the PLD route), montecarlo/ ("mc"), shuffle/
(comparators, no method; built on the RDP route's conversion); best.py (method "best") combines pld, rdp and
analytic. Layers, routes and the allowed imports between them: docs/architecture.md. Never imports verialloc.exact.
"""
