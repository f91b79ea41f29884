"""Reusable test tools for verialloc and for other accountants' test suites (needs the `test` extra)."""
