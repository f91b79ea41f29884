"""Output files are checked before any work (hostile-user pass, issue #30): a FIFO would block the write forever, a
full device or a non-directory parent is the user's environment (exit 2, one line), never an internal error."""

import os

import pytest

from verialloc.cli import main

PROBE = ["stability", "--probe", "rdp-linear", "--x", "8", "--y", "1000"]


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "internal error" not in err
    return err


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("flag, suffix", [("--csv", ".csv"), ("--png", ".png")])
def test_a_fifo_output_is_refused_before_it_blocks(capsys, tmp_path, fifo, flag, suffix):
    link = tmp_path / f"out{suffix}"
    link.symlink_to(fifo)
    assert "must be a regular file" in _error(capsys, [*PROBE, flag, str(link)])


def test_a_report_into_a_fifo_is_refused_before_certifying(capsys, tmp_path, fifo):
    link = tmp_path / "cert.md"
    link.symlink_to(fifo)
    argv = ["certify", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--claimed-epsilon", "20"]
    assert "report=" in _error(capsys, [*argv, "--report", str(link)])


def test_a_parent_that_is_a_file_is_named_as_such(capsys, tmp_path):
    parent = tmp_path / "file"
    parent.write_text("x")
    assert "is not a directory" in _error(capsys, [*PROBE, "--png", str(parent / "x.png")])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_device_is_an_error_of_the_output_not_a_bug(capsys):
    assert "No space left" in _error(capsys, [*PROBE, "--csv", "/dev/full"])
