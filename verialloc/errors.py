"""Errors raised for bad input or requests a method cannot serve.

Every message names the parameter and its valid range, so the CLI can print it as one line.
"""


class VeriallocError(Exception):
    """Base class of all verialloc errors."""


class InvalidParameter(VeriallocError, ValueError):
    """A parameter is outside its valid range (or not a number at all)."""

    def __init__(self, name: str, value, valid: str):
        self.name, self.value, self.valid = name, value, valid
        super().__init__(f"{name}={value!s} is invalid: {valid}")


class UnsupportedRequest(VeriallocError, ValueError):
    """A valid request that the chosen method cannot compute (e.g. exact Gaussian at steps=50)."""

    def __init__(self, name: str, value, supported: str):
        self.name, self.value, self.supported = name, value, supported
        super().__init__(f"{name}={value!s} is not supported here: {supported}")


class UsageError(VeriallocError, ValueError):
    """The command line itself is malformed (unknown flag, missing value, no subcommand); the message names the
    flag and, where it helps, the usage."""


class InternalError(Exception):
    """A consistency check failed inside verialloc (e.g. a certified lower end above a certified upper end):
    a bug, never a user error. Deliberately not a VeriallocError, so it is never reported as bad input."""
