"""The plugin README's Python examples run and print what the README says."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from tests.docs.test_snippets import snippets

README = Path(__file__).resolve().parents[3] / "plugins" / "anthropic" / "README.md"


def test_readme_examples_run():
    namespace: dict[str, object] = {"__name__": "readme_anthropic"}
    found = snippets(README.read_text(encoding="utf-8"))
    assert found
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md#snippet{number}", "exec"), namespace)
        if expected is not None:
            assert out.getvalue().strip() == expected.strip()
