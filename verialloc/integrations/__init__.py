"""Bridges between verialloc and other accounting libraries (the top floor: nothing in verialloc imports them).

* `verialloc.integrations.dp_accounting`: Google dp_accounting events in (`from_dp_event`, `RandomAllocationDpEvent`),
  a dp_accounting `PrivacyAccountant` answering with verialloc's certified upper end out (`VerifiedAccountant`).
  Needs the `dp_accounting` extra.
* `verialloc.integrations.opacus`: an opacus accountant's history (or a saved one) in, a Config and a certificate out
  (`from_opacus_history`, `certify_opacus`); duck-typed, no torch.
* `verialloc.integrations.jax_privacy`: a jax_privacy batch-selection strategy and its noise multiplier in, a Config
  out, a plan of phases in, a Ledger out (`from_jax_privacy`); duck-typed, no jax.
All three: docs/integrations.md.
"""
