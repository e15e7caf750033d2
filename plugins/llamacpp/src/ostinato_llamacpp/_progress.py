"""``Progress``: what ``ostinato local setup`` prints while it works.

On a terminal a running line is redrawn in place; elsewhere (CI logs) a line is printed
per step and at every tenth of a long task, so logs stay short. Writes to stderr by
default; output is the only side effect.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "format_size"]


def format_size(size: float) -> str:
    """``1117320768`` -> ``"1.1 GB"`` (decimal units, as download tools show)."""
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


class Progress:
    """Step headers, progress of long tasks, and notes.

    Args:
        stream: where to write (default ``sys.stderr``).
        interactive: redraw one line in place (default: whether ``stream`` is a TTY).
        quiet: print only step headers and notes, no progress.
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        interactive: bool | None = None,
        quiet: bool = False,
    ) -> None:
        self._stream = stream or sys.stderr
        self._interactive = self._stream.isatty() if interactive is None else interactive
        self._quiet = quiet
        self._open_line = False
        self._last_tenth = -1
        self._started = time.monotonic()

    def step(self, number: int, total: int, title: str) -> None:
        """Announce step ``number`` of ``total``."""
        self._end_line()
        self._last_tenth = -1
        self._started = time.monotonic()
        self._write(f"[{number}/{total}] {title}\n")

    def note(self, text: str) -> None:
        """A line of information under the current step."""
        self._end_line()
        self._write(f"      {text}\n")

    def update(self, done: float, total: float, label: str = "", *, sizes: bool = False) -> None:
        """Progress of the current task: ``done`` of ``total`` (bytes when ``sizes``)."""
        if self._quiet or total <= 0:
            return
        fraction = min(max(done / total, 0.0), 1.0)
        amount = f"{format_size(done)} / {format_size(total)}" if sizes else f"{done:g}/{total:g}"
        line = f"      {fraction:6.1%}  {amount}  {label}".rstrip()
        if self._interactive:
            self._write(f"\r\x1b[K{line}")
            self._open_line = True
            return
        tenth = int(fraction * 10)
        if tenth > self._last_tenth:
            self._last_tenth = tenth
            self._write(f"{line}\n")

    def done(self, text: str) -> None:
        """The current step finished: ``text`` and how long it took."""
        self._end_line()
        elapsed = time.monotonic() - self._started
        self._write(f"      {text} ({elapsed:.0f} s)\n")

    def _end_line(self) -> None:
        if self._open_line:
            self._write("\n")
            self._open_line = False

    def _write(self, text: str) -> None:
        self._stream.write(text)
        self._stream.flush()
