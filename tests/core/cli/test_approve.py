"""``ostinato chat --approve``: each tool call waits for y / n / edit typed at a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.cli.test_interactive import ROOT, Terminal, _controlling_terminal
from tests.fakes.distributions import FakeDistributions
from tests.fakes.scripted_provider import WEATHER_ANSWER

WEATHER_PY = str(ROOT / "examples" / "weather.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


@pytest.fixture
def approving(scripted: FakeDistributions, tmp_path: Path) -> Iterator[Terminal]:
    master, slave = pty.openpty()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "PYTHONPATH": os.pathsep.join([str(scripted.root), str(ROOT)]),
        "OSTINATO_LOAD_PLUGINS": "scripted",
        "TERM": "xterm",
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    argv = ["chat", "-m", "scripted:weather", "--tools", WEATHER_PY, "--approve", "Weather?"]
    process = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", *argv],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=tmp_path,
        preexec_fn=_controlling_terminal,
    )
    os.close(slave)
    try:
        yield Terminal(process, master)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        os.close(master)


def test_each_call_is_approved_denied_or_edited_at_the_terminal(approving: Terminal) -> None:
    approving.expect(r'approve get_weather\(city="Paris"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
    approving.type("e\n")
    approving.expect(r"arguments \(a JSON object\): ")
    approving.type("not json\n")
    approving.expect(r"not JSON .*try again")
    approving.type('{"city": "Lyon"}\n')
    approving.expect(r'approve get_weather\(city="Tokyo"\)\? \[y\]es / \[n\]o / \[e\]dit: ')
    approving.type("n\n")
    approving.expect(r'← get_weather\(city="Lyon"\) [0-9.]+ s: \{"city": "Lyon"')
    approving.expect(WEATHER_ANSWER[:20])
    approving.expect(r"usage: ")
    assert approving.process.wait(timeout=20) == 0
