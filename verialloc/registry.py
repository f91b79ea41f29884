"""The accounting methods, by the name `method=` / `--method` takes: one registered object each
(verialloc.method.Method), read by the API, the command line, certify, the cost model, the fuzzer and the audit."""

from __future__ import annotations

from .auto_method import METHOD as AUTO
from .errors import InvalidParameter
from .exact.method import METHOD as EXACT
from .method import Method
from .numeric.analytic.method import METHOD as ANALYTIC
from .numeric.best.method import METHOD as BEST
from .numeric.montecarlo.method import METHOD as MC
from .numeric.pld.method import METHOD as PLD
from .numeric.rdp.method import METHOD as RDP
from .validation import abbreviated

#: name -> method, in the order the command line lists them; "auto" (the default) chooses exact or best
METHODS: dict[str, Method] = {m.name: m for m in (AUTO, EXACT, PLD, RDP, ANALYTIC, MC, BEST)}

#: the method of the API, the command line and api.compile when none is named
DEFAULT = AUTO.name


def method(name) -> Method:
    """The registered method called `name`; InvalidParameter listing the names otherwise."""
    if not isinstance(name, str) or name not in METHODS:
        raise InvalidParameter("method", abbreviated(name), "must be one of " + "|".join(METHODS))
    return METHODS[name]


def flags() -> dict:
    """{flag name: (Flag, [names of the methods that take it])} over every method, in registry order."""
    out: dict = {}
    for m in METHODS.values():
        for f in m.flags:
            out.setdefault(f.name, (f, []))[1].append(m.name)
    return out
