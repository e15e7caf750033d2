"""Plain-text output for the CLI: aligned tables, one-line errors and warnings."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["print_error", "print_json", "print_warning", "render_table", "summarize"]


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> str:
    """Rows under headers, columns aligned, the last column left ragged."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return "\n".join(lines)


def summarize(message: str) -> tuple[str, list[str]]:
    """An error message as one line (its first line and its ``fix:``) plus its details."""
    lines = [line for line in message.strip().splitlines() if line.strip()]
    if not lines:
        return "unknown error", []
    head, rest = lines[0].rstrip(":"), lines[1:]
    fixes = [line.strip() for line in rest if line.strip().startswith("fix:")]
    details = [line for line in rest if not line.strip().startswith("fix:")]
    one_line = f"{head}; {fixes[0]}" if fixes else head
    return one_line, details


def print_error(message: str, stream: TextIO | None = None) -> None:
    """``ostinato: error: what (fix: how)``, then any details indented below; the
    environment's credentials masked."""
    from ostinato.cli._secrets import mask_secrets

    out = stream or sys.stderr
    one_line, details = summarize(mask_secrets(message))
    print(f"ostinato: error: {one_line}", file=out)
    for line in details:
        print(f"  {line.strip()}", file=out)


def print_warning(message: str, stream: TextIO | None = None) -> None:
    """``ostinato: warning: ...``, the same shape as errors (credentials masked too)."""
    from ostinato.cli._secrets import mask_secrets

    out = stream or sys.stderr
    one_line, details = summarize(mask_secrets(message))
    print(f"ostinato: warning: {one_line}", file=out)
    for line in details:
        print(f"  {line.strip()}", file=out)


def print_json(data: Any, stream: TextIO | None = None) -> None:
    """``data`` as indented JSON."""
    print(json.dumps(data, indent=2, sort_keys=False), file=stream or sys.stdout)
