"""The `verialloc` command line (contract: docs/cli.md). One module per subcommand, each exposing
`register(subparsers)`; a subcommand sets `run(args) -> dict` (JSON-ready) and `render(out) -> str`.

Bad input exits with status 2 and one line naming the parameter and its valid range.
"""
from __future__ import annotations

import json
import sys

from ..errors import InternalError, VeriallocError
from . import audit, certify, demo, fuzz, query, stability
from .common import Parser

SUBCOMMANDS = (query, certify, audit, stability, demo, fuzz)


def build_parser() -> Parser:
    parser = Parser(prog="verialloc", description="Certified privacy accounting for random allocation and Poisson subsampling.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def run(argv: list[str]) -> dict:
    """Parse and execute; returns the JSON-ready result (raises VeriallocError on bad input)."""
    args = build_parser().parse_args(argv)
    return args.run(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
        out = args.run(args)
    except VeriallocError as exc:
        print(f"verialloc: error: {exc}", file=sys.stderr)
        return 2
    except InternalError as exc:
        print(f"verialloc: internal error (a bug, please report it with the command line): {exc}", file=sys.stderr)
        return 3
    if getattr(args, "json", False):
        print(json.dumps(out))
    else:
        text = args.render(out)
        if text:
            print(text)
    return 0
