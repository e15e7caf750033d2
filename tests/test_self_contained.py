"""Docs, code and tests stand on their own: they never cite documents kept outside the
repository (a design document, a behaviour catalogue, a sibling folder).

A reader of a clone has only the repository; a citation of something else sends them
nowhere. Say the thing itself instead.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Spelled in pieces so that this file does not match itself.
_CITATIONS = re.compile(
    "|".join(
        [
            "DESIGN" + r"(\.md)?\s*§",
            "DESIGN" + r"\.md",
            r"\.\./" + "shared",
            "spring-ai-" + "behaviour",
            r"\[ref" + r"\b",
            r"\bthe " + r"reference\b(?!\s+(page|pages|docs|documentation))",
        ]
    ),
    flags=re.IGNORECASE,
)
_SUFFIXES = {".py", ".md", ".toml", ".yml", ".yaml", ".cfg", ".txt", ".html", ".js", ".css"}


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if Path(name).suffix in _SUFFIXES
        and not name.startswith("tests/wire/")
        and name != "tests/test_self_contained.py"
        and (ROOT / name).is_file()
    ]


def test_nothing_cites_documents_outside_the_repository():
    if not (ROOT / ".git").exists():
        pytest.fail("run from a git checkout: the files to check are the tracked ones")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _tracked_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _CITATIONS.search(line)
    ]
    assert not found, "citations of documents outside the repository:\n" + "\n".join(found)
