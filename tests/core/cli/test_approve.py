"""``ostinato chat --approve``: each tool call waits for y / n / edit typed at a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.core.cli.cli_process import ROOT
from tests.core.cli.terminal import Terminal, ostinato_on_terminal
from tests.fakes.distributions import FakeDistributions
from tests.fakes.scripted_provider import WEATHER_ANSWER

WEATHER_PY = str(ROOT / "examples" / "weather.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


@pytest.fixture
def approving(scripted: FakeDistributions, tmp_path: Path) -> Iterator[Terminal]:
    argv = ["chat", "-m", "scripted:weather", "--tools", WEATHER_PY, "--approve", "Weather?"]
    with ostinato_on_terminal(scripted, tmp_path, *argv) as terminal:
        yield terminal


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
