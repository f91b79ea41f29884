"""README examples run as written: console blocks (`$ verialloc ...` with their exact output; `...` stands for
run-dependent text such as timings) and doctests."""

import doctest
import re
import shlex
from pathlib import Path

import pytest

from verialloc.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def console_examples():
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), flags=re.S):
        command, *expected = block.rstrip("\n").split("\n")
        assert command.startswith("$ verialloc ")
        yield command[2:], "\n".join(expected)


@pytest.mark.parametrize("command,expected", list(console_examples()))
def test_console_example(capsys, command, expected):
    status = main(shlex.split(command)[1:])
    captured = capsys.readouterr()
    shown = (captured.out + captured.err).rstrip("\n")
    pattern = ".*?".join(re.escape(part) for part in expected.split("..."))
    assert re.fullmatch(pattern, shown, flags=re.S), shown
    verdict = re.search(r"^verdict: (\w+)$", expected, flags=re.M)
    codes = {"CERTIFIED": 0, "REFUTED": 4, "INCONCLUSIVE": 5}  # docs/cli.md, "Exit codes"
    assert status == (2 if "error:" in expected else codes[verdict.group(1)] if verdict else 0)


def test_python_examples():
    text = "\n".join(re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def test_two_commands_come_first():
    text = README.read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, flags=re.S).group(1)
    assert [line.split()[1] for line in first_block.strip().splitlines()] == ["demo", "test"]
