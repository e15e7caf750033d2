"""Every ```python block in docs/ and README.md runs, in order, one namespace per file.

A python block followed directly by a plain ``` block is an example with its output: the
printed text must match it exactly (trailing spaces aside), so the docs cannot drift.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([*ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"])
BLOCK = re.compile(r"^```(?P<lang>[^\n]*)\n(?P<body>.*?)^```\s*$", re.DOTALL | re.MULTILINE)


def snippets(text: str) -> list[tuple[str, str | None]]:
    """(code, expected output or None) for each python block."""
    blocks = list(BLOCK.finditer(text))
    found = []
    for i, block in enumerate(blocks):
        if block.group("lang").strip() != "python":
            continue
        expected = None
        if i + 1 < len(blocks):
            following = blocks[i + 1]
            between = text[block.end() : following.start()]
            if following.group("lang").strip() == "" and not between.strip():
                expected = following.group("body")
        found.append((block.group("body"), expected))
    return found


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_snippets_run_and_print_what_the_docs_say(path: Path) -> None:
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem}"}
    for number, (code, expected) in enumerate(snippets(path.read_text(encoding="utf-8")), 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{path.name}#snippet{number}", "exec"), namespace)
        if expected is not None:
            assert _normalise(out.getvalue()) == _normalise(expected), f"snippet {number}"
