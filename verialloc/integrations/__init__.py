"""Bridges between verialloc and other accounting libraries (the top floor: nothing in verialloc imports them).

* `verialloc.integrations.dp_accounting`: Google dp_accounting events in (`from_dp_event`, `RandomAllocationDpEvent`),
  a dp_accounting `PrivacyAccountant` answering with verialloc's certified upper end out (`VerifiedAccountant`).
  Needs the `dp_accounting` extra; docs/integrations.md.
"""
