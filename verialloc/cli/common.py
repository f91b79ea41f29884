"""Shared pieces of the command line: the one-line-error parser, configuration flags, bracket JSON, progress."""

from __future__ import annotations

import argparse
import difflib
import sys
import time

from ..errors import InvalidParameter, UsageError
from ..validation import abbreviated

# The mechanisms, the configuration files and the number formatting (sympy, scipy, mpmath) load when a subcommand's
# flags are built or its work runs, not at start-up: `verialloc --help` imports none of them (cli/__init__.py).


def __getattr__(name: str):
    if name == "CONFIG_FLAGS":  # the configuration flags (= the configuration file keys, io/config_file.py)
        return _config_flags()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _config_flags() -> tuple:
    from ..io import config_file

    return config_file.KEYS


CONFIG_DEFAULTS = {"k": "1", "epochs": "1"}  # no scheme: a rate means poisson, else allocation (Config)
DEFAULT_DIGITS = 12
#: exit statuses (docs/cli.md, "Exit codes"): 1 is never used by verialloc itself
OK, USER_ERROR, INTERNAL_ERROR, REFUTED, INCONCLUSIVE, INTERRUPTED, BROKEN_PIPE = 0, 2, 3, 4, 5, 130, 141
#: other libraries' names for the query's flags (dp_accounting, opacus), accepted as aliases of the same flag; those
#: of the configuration keys are the configuration files' (io/config_file.KEY_ALIASES: --num-steps, --sample-rate),
#: and a mechanism's parameter declares its own (`Mechanism.parameter_aliases`: --noise-multiplier for --sigma)
FLAG_ALIASES = {"delta": ("target-delta",), "epsilon": ("target-epsilon",)}


def spellings(name: str, aliases=()) -> list[str]:
    """`--name` and its aliases (FLAG_ALIASES, KEY_ALIASES and `aliases`), for add_argument (the destination stays
    `name`)."""
    from ..io.config_file import KEY_ALIASES

    keyed = (alias.replace("_", "-") for alias, key in KEY_ALIASES.items() if key == name)
    return [f"--{name}", *(f"--{a}" for a in dict.fromkeys((*FLAG_ALIASES.get(name, ()), *keyed, *aliases)))]


class StoreOnce(argparse._StoreAction):
    """argparse's `store`, refusing a second value for the same flag (argparse keeps the last one silently, while a
    configuration file refuses a repeated key); an alias is the same flag."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_flags", {})
        if self.dest in given:
            raise InvalidParameter(
                self.dest.replace("_", "-"),
                abbreviated(values),
                f"given more than once ({given[self.dest]}, then {option_string} {abbreviated(values)}): give it once",
            )
        given[self.dest] = f"{option_string} {abbreviated(values)}"
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2 through the CLI's error boundary, no usage dump), flags that take a
    value given at most once (StoreOnce), and the closest flag suggested for an unknown one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # `--alpha` was read as --alpha-max, `--sig` as --sigma: silently
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)

    def parse_args(self, args=None, namespace=None):
        """Parse (an unknown flag is refused naming the closest known one), then read `--config FILE` into the
        configuration flags (apply_config_file)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            raise UsageError(self._unrecognized(extras, getattr(parsed, "command", None)))
        if hasattr(parsed, "_given_flags"):
            del parsed._given_flags
        return apply_config_file(parsed)

    def _unrecognized(self, extras: list[str], command) -> str:
        """`unrecognized argument --foo; did you mean --bar?` naming the first unknown flag (or token) and the
        closest flag of the subcommand it was given to."""
        flags = [t for t in extras if t.startswith("-")]
        token = (flags or extras)[0]
        parser = subcommand_parsers(self).get(command, self)
        known = sorted(s for s in parser._option_string_actions if s.startswith("--"))
        close = difflib.get_close_matches(token.split("=", 1)[0], known, n=1, cutoff=0.6) if flags else []
        where = f"`{parser.prog} --help`"
        hint = f"; did you mean {close[0]}? (see {where})" if close else f" (see {where})"
        return f"unrecognized argument {abbreviated(token)}{hint}"

    def error(self, message):
        message = " ".join(str(message).split())
        if "required: command" in message:  # bare `verialloc` (or only global flags)
            raise UsageError(no_subcommand_hint(self))
        message = message.replace("argument command: invalid choice", "unknown subcommand")
        raise UsageError(f"{message} (see `{self.prog} --help`)")


def no_subcommand_hint(parser: argparse.ArgumentParser) -> str:
    names = ",".join(subcommand_parsers(parser))
    return f"no subcommand given; usage: verialloc [--version] [--debug] {{{names}}} [flags] (see `verialloc --help`)"


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict:
    """name -> parser of every subcommand of `parser` (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def add_config_flags(p: argparse.ArgumentParser, *, steps_required: bool = True) -> None:
    """The configuration flags and `--config FILE` (which replaces them). --mechanism and --steps are checked when
    the Config is built (config_from_args), so that a config file can supply them; `steps_required` only shapes
    the help text (certify and audit take them optionally)."""
    need = "required unless --config" if steps_required else "or --config"
    p.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (.json or .toml; keys as the flags below, docs/cli.md) instead of the "
        "configuration flags; a configuration flag given with it is an error",
    )
    from ..mechanisms.registry import MECHANISMS, PARAMETERS, owners

    p.add_argument("--mechanism", help="|".join(MECHANISMS) + f" ({need}; --sigma alone means gaussian)")
    for parameter in PARAMETERS:  # each mechanism's one parameter (mechanisms.registry), each flag once
        mechanisms = [MECHANISMS[name] for name in owners(parameter)]
        p.add_argument(
            *spellings(parameter, (a for m in mechanisms for a in m.parameter_aliases)),
            help="; ".join(dict.fromkeys(m.parameter_help for m in mechanisms)),
        )
    p.add_argument("--scheme", help="allocation | poisson (default: poisson when --rate is given, else allocation)")
    p.add_argument(*spellings("steps"), help=f"number of steps t >= 1 ({need})")
    p.add_argument("--k", help="steps per element (allocation only), 1 <= k <= steps (default 1)")
    p.add_argument("--epochs", help="number of epochs (compositions) >= 1 (default 1)")
    p.add_argument(*spellings("rate"), help="Poisson sampling probability λ in (0, 1] (required with --scheme poisson)")


def apply_config_file(args):
    """For a subcommand with configuration flags: `--config FILE` sets them from the file's keys (as the text the
    flags would carry, io.config_file.flag_values), refusing any configuration flag also given on the command
    line (one rule for every command: the file replaces the configuration flags); a file of phases sets
    `args.phases` instead (config_from_args then gives their Ledger). Then the defaults of the optional flags
    (scheme, k, epochs) are filled in. Other namespaces are returned unchanged."""
    from ..io import config_file

    CONFIG_FLAGS = _config_flags()
    if not hasattr(args, "config") or not all(hasattr(args, f) for f in CONFIG_FLAGS):
        return args
    args.phases = None
    if args.config is not None:
        given = [f for f in CONFIG_FLAGS if getattr(args, f) is not None]
        if given:
            raise InvalidParameter(
                given[0],
                abbreviated(getattr(args, given[0])),
                f"--{given[0]} cannot be combined with --config (the file gives the whole "
                "configuration): drop the flag or the file",
            )
        values = config_file.file_values(args.config)
        if "phases" in values:
            args.phases = [{**CONFIG_DEFAULTS, **phase} for phase in values["phases"]]
        else:
            for key, value in values.items():
                setattr(args, key, value)
    for key, default in CONFIG_DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    return args


OPACUS_HELP = (
    "the configuration of an opacus accountant history: JSON [[sigma, q, steps], ...] or "
    '{"history": [...]} as its state_dict() (docs/integrations.md); replaces --config and the configuration flags'
)


def config_from_args(args):
    """What the configuration flags (after apply_config_file) describe, validated like a config file's keys: a
    Config, or the Ledger of a file's phases; or, with --from-opacus-history FILE, the history's accounted events
    (integrations.opacus), which then stand alone."""
    from ..io import config_file

    if getattr(args, "from_opacus_history", None) is not None:
        given = [f for f in _config_flags() if getattr(args, f) not in (None, CONFIG_DEFAULTS.get(f))]
        if args.config is not None or given:
            flag = "config" if args.config is not None else given[0]
            raise InvalidParameter(
                flag,
                abbreviated(getattr(args, flag)),
                f"--{flag} cannot be combined with --from-opacus-history (the history gives the whole configuration)",
            )
        from ..integrations.opacus import from_opacus_history

        return from_opacus_history(args.from_opacus_history)
    if getattr(args, "phases", None):
        return config_file.accounted_from_values({"phases": args.phases})
    return config_file.config_from_values({f: getattr(args, f) for f in _config_flags()})


def bracket_json(b, digits: int) -> dict:
    """lower rounded down, upper rounded up (exact results round to nearest, so lower == upper)."""
    from ..formatting import decimal
    from ..result import Bracket

    if b.error_kind == "exact":
        lo = hi = decimal(b.lower, digits)
    else:
        lo, hi = decimal(b.lower, digits, "down"), decimal(b.upper, digits, "up")
    out = {"lower": lo, "upper": hi, "error_kind": b.error_kind}
    if b.direction == "both":
        out["per_direction"] = {
            d: bracket_json(sub, digits) for d, sub in b.details.items() if isinstance(sub, Bracket)
        }
    elif b.error_kind == "bound":
        out["budget"] = {key: b.details[key] for key in ("truncated", "float_error", "notes") if key in b.details}
    if b.error_kind == "statistical":
        out["statistics"] = {
            k: b.details[k]
            for k in ("certified", "confidence", "samples", "seed", "interval", "estimate")
            if k in b.details
        }
    if isinstance(b.details.get("best"), str):
        out["bound"] = b.details["best"]  # analytic: the bound that won
    for key in ("upper_from", "lower_from"):
        if key in b.details:
            out[key] = b.details[key]
    return out


#: progress reporters not yet closed (main closes them before it prints the result or an error)
_OPEN: list = []
#: off a terminal, at most one progress line per this many seconds
LOG_INTERVAL = 10.0


class Progress:
    """A callable tick(stage) reporting long computations on stderr.

    On a terminal: a tqdm status line that appears only after ~2 s and is erased when done. Off a terminal (logs,
    CI, pipes): no carriage returns, only plain lines "verialloc: <elapsed> s, <n> steps, <stage>", the first after
    LOG_INTERVAL seconds and then at most one per LOG_INTERVAL seconds.
    """

    def __init__(self, desc: str = "verialloc", interval: float = LOG_INTERVAL, stream=None):
        self.desc, self.interval = desc, interval
        self.stream = sys.stderr if stream is None else stream
        self.start = time.monotonic()
        self.next = self.start + interval
        self.count = 0
        self.bar = None
        if _isatty(self.stream):
            from tqdm import tqdm

            self.bar = tqdm(
                total=None,
                desc=desc,
                delay=2.0,
                file=self.stream,
                leave=False,
                bar_format="{desc}: {elapsed} {postfix}",
            )
        _OPEN.append(self)

    def __call__(self, stage: str) -> None:
        self.count += 1
        if self.bar is not None:
            self.bar.set_postfix_str(str(stage), refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if now >= self.next:
            self.next = now + self.interval
            print(f"{self.desc}: {now - self.start:.0f} s, {self.count} steps, {stage}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self in _OPEN:
            _OPEN.remove(self)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def close_progress() -> None:
    """Close every open progress reporter (erases the terminal status line before anything else is printed)."""
    for p in list(_OPEN):
        try:
            p.close()
        except Exception:  # a broken stderr must not hide the real outcome
            if p in _OPEN:
                _OPEN.remove(p)


def progress_bar(desc: str = "verialloc") -> Progress:
    """A callable tick(stage): a tqdm status line on a terminal, plain periodic lines elsewhere (see Progress)."""
    return Progress(desc)
