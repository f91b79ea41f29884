"""Errors raised for bad input or requests a method cannot serve.

Every message names the parameter and its valid range, so the CLI can print it as one line.
"""

import functools as _functools
import re as _re

#: longest value text shown in a message (a 400-digit integer is cut, with its length)
MAX_SHOWN = 200


def huge_number_text(value) -> str:
    """An int or Fraction too long for str(), named by its size."""
    if hasattr(value, "denominator") and value.denominator != 1:
        return f"(a fraction of {abs(value.numerator).bit_length()}/{value.denominator.bit_length()} bits)"
    return f"(an integer of {abs(int(value)).bit_length()} bits)"


def count_text(n: int) -> str:
    """A count for a message: its digits up to 10¹², else its order of magnitude (a count of atoms may have
    thousands of digits)."""
    return str(n) if n < 10**12 else f"about 10^{round((n.bit_length() - 1) * 0.30103)}"


def _shown(value) -> str:
    """A value's text for one message line: control characters escaped (no terminal escapes or line breaks from
    user text), an integer too long for str() named by its size, long text cut."""
    try:
        text = str(value)
    except ValueError:  # an int (or a Fraction's) of more than 4300 digits (sys.int_max_str_digits)
        return huge_number_text(value)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} characters)"


class VeriallocError(Exception):
    """Base class of all verialloc errors."""


class InvalidParameter(VeriallocError, ValueError):
    """A parameter is outside its valid range (or not a number at all)."""

    def __init__(self, name: str, value, valid: str):
        self.name, self.value, self.valid = name, value, valid
        super().__init__(f"{_shown(name)}={_shown(value)} is invalid: {valid}")

    def __reduce__(self):  # pickles with its arguments (calibrate's probe worker sends it across processes)
        return type(self), (self.name, self.value, self.valid)


class UnsupportedRequest(VeriallocError, ValueError):
    """A valid request that the chosen method cannot compute (e.g. exact Gaussian at steps=50)."""

    def __init__(self, name: str, value, supported: str):
        self.name, self.value, self.supported = name, value, supported
        super().__init__(f"{_shown(name)}={_shown(value)} is not supported here: {supported}")

    def __reduce__(self):  # as InvalidParameter's: without it unpickling calls __init__(message) and fails
        return type(self), (self.name, self.value, self.supported)


class GridTooLarge(UnsupportedRequest):
    """A method's grid would exceed its size cap (pld's geometric grid of heavy loss tails); the cost model turns
    it into a refusal naming the method and the user's remedies rather than the grid's internal parameter."""


class UsageError(VeriallocError, ValueError):
    """The command line itself is malformed (unknown flag, missing value, no subcommand); the message names the
    flag and, where it helps, the usage."""


class InternalError(Exception):
    """A consistency check failed inside verialloc (e.g. a certified lower end above a certified upper end):
    a bug, never a user error. Deliberately not a VeriallocError, so it is never reported as bad input."""


# --- remedies in the words of the interface -----------------------------------------------------------------------
# Messages name their remedies as command-line flags ("use --method pld", "a larger --budget"). The Python entry points
# (verialloc.api, the bridges) re-raise them in Python's words (`method="pld"`, `budget=`): `python_remedies`.

#: method flags whose keyword lives inside a method's settings object (pld/best/analytic `settings=Settings(...)`)
_SETTINGS_FLAGS = ("loss-step", "grid-step", "tail")
#: a method name in a remedy (not a word of the sentence around it: "--method pld or a larger --budget")
_NAMES = r"\b(?!(?:or|and|a|an|the|another)\b)[a-z][a-z0-9_]*\b"


def python_words(text: str) -> str:
    """A message's command-line remedies in Python's words: `--method pld, rdp or best` -> `method="pld", "rdp" or
    "best"`, `--budget` -> `budget=...`, `--loss-step` -> `Settings(loss_step=...)`, any other `--some-flag` ->
    `some_flag=...`."""

    def methods(m):
        names = _re.sub(_NAMES, lambda n: f'"{n.group(0)}"', m.group(1))
        return "method=" + names

    text = _re.sub(rf"--method ({_NAMES}(?:(?:, | or | / |\|){_NAMES})*)", methods, text)
    for flag in _SETTINGS_FLAGS:
        text = text.replace(f"--{flag}", f"Settings({flag.replace('-', '_')}=...)")
    text = _re.sub(  # `--budget 610` -> `budget=610`
        r"(?<![\w-])--([a-z][a-z0-9-]*) ([0-9][0-9.e+-]*[0-9])\b",
        lambda m: m.group(1).replace("-", "_") + "=" + m.group(2),
        text,
    )
    return _re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_") + "=...", text)


def in_python_words(exc: VeriallocError) -> VeriallocError:
    """`exc` with its message in Python's words (`python_words`), same class and fields."""
    text = str(exc)
    new = python_words(text)
    if new == text:
        return exc
    exc.args = (new,)
    for field in ("supported", "valid"):
        if isinstance(getattr(exc, field, None), str):
            setattr(exc, field, python_words(getattr(exc, field)))
    return exc


#: a remedy that picks a method ("; use --method exact", "; or use --method rdp / analytic (cheaper upper bounds)")
_METHOD_REMEDY = _re.compile(r";? (?:or )?use (?:another )?--method[^;]*")


def without_method_choice(exc: UnsupportedRequest, chooser: str) -> UnsupportedRequest:
    """`exc` raised inside an entry point that chooses its methods itself (certify, calibrate): its "use --method X"
    remedies do not apply there, so they are replaced by what `chooser` tried. Same class and fields."""
    if "--method " not in str(exc):
        return exc
    tail = f" ({chooser})"
    exc.supported = _METHOD_REMEDY.sub("", exc.supported).replace("--method ", "method ") + tail
    exc.args = (_METHOD_REMEDY.sub("", str(exc)).replace("--method ", "method ") + tail,)
    return exc


def chooses_methods(chooser: str):
    """Decorator of an entry point that chooses its methods itself: refusals leave it in its words
    (`without_method_choice`)."""

    def wrap(fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except UnsupportedRequest as exc:
                raise without_method_choice(exc, chooser) from None

        return wrapper

    return wrap


#: the interface whose words remedies take: "python", or "cli" while the command line runs (`command_line`)
_interface = ["python"]


class command_line:
    """Context manager: while the command line runs (verialloc.cli.main), messages keep their flags."""

    def __enter__(self):
        _interface.append("cli")

    def __exit__(self, *exc):
        _interface.pop()


def interface() -> str:
    """The interface whose words remedies take now: "cli" inside `command_line`, else "python"."""
    return _interface[-1]


def python_remedies(fn):
    """Decorator of a Python entry point: a VeriallocError leaving it names its remedies in Python's words, unless
    the command line is running (`command_line`), whose messages keep their flags."""

    @_functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except VeriallocError as exc:
            if _interface[-1] != "cli":
                in_python_words(exc)
            raise

    return wrapper
