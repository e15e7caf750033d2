"""Output piped into a reader that goes away (``ostinato ... | head``): no traceback.

Every command runs in a child process whose standard output is a pipe nobody reads any
more (its read end closed before the child starts), so the first write meets a closed
pipe, whatever the timing; the child must exit with 141 (128 + SIGPIPE) and print no
traceback on standard error (only what it prints there anyway: the usage line of a turn). A real shell-style pipeline into ``head`` checks the same for
an answer far longer than a pipe holds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ostinato.cli._main import EXIT_BROKEN_PIPE
from tests.fakes.distributions import FakeDistributions

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes and SIGPIPE")

COMMANDS = [
    ["chat", "-m", "scripted:long", "hi"],
    ["chat", "-m", "scripted:hello", "hi"],
    ["chat", "-m", "scripted:hello", "--no-stream", "hi"],
    ["chat", "-m", "scripted:hello", "--json", "hi"],
    ["config"],
    ["config", "--json"],
    ["models"],
    ["models", "--json"],
    ["plugins"],
    ["plugins", "--json"],
    ["--help"],
    ["chat", "--help"],
    ["--version"],
]


def environment(scripted: FakeDistributions) -> dict[str, str]:
    # Python's own buffering, as in a user's shell (PYTHONUNBUFFERED would let argparse
    # drop the error of --help and --version itself: a quiet exit with 0).
    return {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.startswith("OSTINATO_") and k != "PYTHONUNBUFFERED"
        },
        "PYTHONPATH": os.pathsep.join([str(scripted.root), str(ROOT)]),
        "OSTINATO_LOAD_PLUGINS": "scripted",
    }


def quiet(stderr: bytes) -> bool:
    """Nothing on standard error but a turn's usage line: no traceback, no warning."""
    return all(line.startswith("usage: ") for line in stderr.decode().splitlines())


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_closed_pipe_ends_the_command_quietly_with_141(scripted, tmp_path, argv):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte is written
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "ostinato.cli", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=environment(scripted),
            cwd=tmp_path,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert quiet(completed.stderr)
    assert completed.returncode == EXIT_BROKEN_PIPE


@pytest.mark.skipif(shutil.which("head") is None, reason="needs head")
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "no-stream"])
def test_a_long_answer_piped_into_head(scripted, tmp_path, stream):
    argv = ["chat", "-m", "scripted:long", "hi", *([] if stream else ["--no-stream"])]
    chat = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=environment(scripted),
        cwd=tmp_path,
    )
    assert chat.stdout is not None
    head = subprocess.Popen(["head", "-n", "2"], stdin=chat.stdout, stdout=subprocess.PIPE)
    chat.stdout.close()  # head alone reads it: ostinato sees the pipe close when head exits
    try:
        shown, _ = head.communicate(timeout=60)
        _, err = chat.communicate(timeout=60)
    finally:
        for process in (chat, head):
            if process.poll() is None:
                process.kill()
    assert shown == b"line 0\nline 1\n"
    assert quiet(err)
    assert chat.returncode == EXIT_BROKEN_PIPE
