"""The recorded-exchange corpus ships with the repository, whole.

A fresh clone replays every exchange: this test fails (never skips) when a folder or a
file the corpus README counts is missing.
"""

from __future__ import annotations

import re

from tests.fakes.wire import WIRE_DIR, exchange_names


def test_every_folder_holds_the_files_its_readme_counts():
    table = re.findall(
        r"^\| `([a-z-]+)/` \| .* \| (\d+) \|$",
        (WIRE_DIR / "README.md").read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert {folder for folder, _ in table} == {"openai", "anthropic", "ollama", "openai-compatible"}
    for folder, count in table:
        assert len(exchange_names(folder)) == int(count), folder
