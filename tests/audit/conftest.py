"""Fixtures of the audit tests: the shipped golden table."""

import pytest


@pytest.fixture(scope="session")
def golden_table():
    from verialloc.audit import golden

    return golden.load()


@pytest.fixture(scope="session")
def golden_by_id(golden_table):
    return {e["id"]: e for e in golden_table["entries"]}
