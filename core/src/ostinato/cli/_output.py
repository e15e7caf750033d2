"""Plain-text output for the CLI: aligned tables, one-line errors and warnings.

How errors are shown for the running command is an :class:`ErrorStyle` (set once by
``main`` from ``--json`` and ``--debug``): always the one line on stderr; with ``--json``
also a JSON object on stdout; with ``--debug`` also the traceback of the exception.
"""

from __future__ import annotations

import contextvars
import json
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

__all__ = [
    "ERROR_STYLE",
    "ErrorStyle",
    "error_json",
    "print_error",
    "print_json",
    "print_warning",
    "render_table",
    "summarize",
]


@dataclass(frozen=True, slots=True)
class ErrorStyle:
    """How the running command shows errors.

    Attributes:
        as_json: also print each error as a JSON object on stdout (``--json``).
        debug: also print the traceback of the exception behind it (``--debug``).
    """

    as_json: bool = False
    debug: bool = False


#: The running command's error style.
ERROR_STYLE: contextvars.ContextVar[ErrorStyle] = contextvars.ContextVar(
    "ostinato_cli_error_style",
    default=ErrorStyle(),  # noqa: B039 - frozen, never mutated
)


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


def error_json(message: str, exit_code: int, error: BaseException | None = None) -> dict[str, Any]:
    """An error as ``--json`` prints it: ``{"error": {"message", "fix", "details",
    "type", "exit_code"}}`` (credentials masked)."""
    from ostinato.cli._secrets import mask_secrets

    lines = [line.strip() for line in mask_secrets(message).strip().splitlines() if line.strip()]
    fixes = [line.removeprefix("fix:").strip() for line in lines[1:] if line.startswith("fix:")]
    return {
        "error": {
            "message": lines[0].rstrip(":") if lines else "unknown error",
            "fix": fixes[0] if fixes else None,
            "details": [line for line in lines[1:] if not line.startswith("fix:")],
            "type": type(error).__name__ if error is not None else None,
            "exit_code": exit_code,
        }
    }


def print_error(
    message: str,
    stream: TextIO | None = None,
    *,
    error: BaseException | None = None,
    exit_code: int = 1,
    with_json: bool = True,
) -> None:
    """``ostinato: error: what (fix: how)``, then any details indented below; the
    environment's credentials masked. In the :data:`ERROR_STYLE` of the command, also
    the JSON object on stdout (``--json``, unless ``with_json`` is false: the command
    puts the error in its own JSON) and the traceback of ``error`` (``--debug``)."""
    from ostinato.cli._secrets import mask_secrets

    out = stream or sys.stderr
    style = ERROR_STYLE.get()
    if style.debug and error is not None:
        text = "".join(traceback.format_exception(error))
        print(mask_secrets(text).rstrip(), file=out)
    one_line, details = summarize(mask_secrets(message))
    print(f"ostinato: error: {one_line}", file=out)
    for line in details:
        print(f"  {line.strip()}", file=out)
    if style.as_json and with_json:
        print_json(error_json(message, exit_code, error), sys.stdout)


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
