"""How ``ostinato chat`` shows a turn: the answer on stdout, everything else on stderr.

:class:`TerminalRenderer` receives the observer's events (model rounds, tool calls) and
the answer's text as it arrives. The answer goes to ``out`` untouched, so
``ostinato chat "..." > answer.txt`` keeps only the answer; tool calls, usage totals and
errors go to ``err``. A progress indicator (a spinner with the seconds waited) runs on
``err`` while the model thinks or tools run, only when ``err`` is a terminal. All methods
are called from the event loop running the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from typing import Final, TextIO

from ostinato.cli._observer import ToolCallEvent
from ostinato.cli._secrets import mask_secrets
from ostinato.model import ChatResponse

__all__ = ["TerminalRenderer", "format_call", "one_line"]

_DIM: Final = "\033[2m"
_RED: Final = "\033[31m"
_RESET: Final = "\033[0m"
_CLEAR_LINE: Final = "\r\033[K"
_FANCY: Final = {"call": "→", "done": "←", "failed": "✗", "frames": "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"}
_PLAIN: Final = {"call": "->", "done": "<-", "failed": "x", "frames": "|/-\\"}


def one_line(text: str, limit: int = 160) -> str:
    """``text`` with its whitespace collapsed, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_call(name: str, arguments: str, limit: int = 120) -> str:
    """``get_weather(city="Paris")`` from the JSON arguments the model wrote."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        inner = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in parsed.items())
    else:
        inner = arguments.strip()
    return one_line(f"{name}({inner})", limit)


def _glyphs(stream: TextIO) -> dict[str, str]:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "".join(_FANCY.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return _PLAIN
    return _FANCY


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class TerminalRenderer:
    """Shows one turn (a :class:`~ostinato.cli._observer.ChatEvents` implementation).

    Args:
        out: where the answer goes.
        err: where tool calls, usage, progress and errors go.
        progress: show the spinner (default: when ``err`` is a terminal).
        show_answer: print the answer's text (``False`` for ``--json``).
    """

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        progress: bool | None = None,
        show_answer: bool = True,
    ) -> None:
        self._out = out
        self._err = err
        self._progress = _is_terminal(err) if progress is None else progress
        self._color = self._progress and not os.environ.get("NO_COLOR")
        self._glyphs = _glyphs(err)
        self._show_answer = show_answer
        self._line_open = False
        self._spinner: asyncio.Task[None] | None = None
        self._spinner_visible = False
        self._running_tools: list[str] = []

    # -- the observer's events ------------------------------------------------------------

    def model_started(self, round_number: int) -> None:
        """A model round starts: show that the model is thinking."""
        self._start_progress("thinking")

    def tool_started(self, name: str, arguments: str, effect: str | None = None) -> None:
        """Print the call as it starts (with its effect class, when it declares one)."""
        self._running_tools.append(name)
        shown = "" if effect is None else f" [{effect.replace('_', '-')}]"
        self._note(f"{self._glyphs['call']} {format_call(name, arguments)}{shown}")
        self._start_progress(f"running {name}")

    def tool_progress(self, name: str, text: str, fraction: float | None) -> None:
        """A running tool reported progress: the spinner's label says it."""
        done = "" if fraction is None else f" {fraction:.0%}"
        shown = one_line(mask_secrets(text))[:60]
        self._start_progress(f"running {name}:{done} {shown}".rstrip())

    def tool_finished(self, event: ToolCallEvent) -> None:
        """Print the call's result or error, with its duration."""
        if event.name in self._running_tools:
            self._running_tools.remove(event.name)
        took = f" {event.duration:.2f} s" if event.duration is not None else ""
        call = format_call(event.name, event.arguments)
        if event.error is not None:
            error = mask_secrets(event.error)  # a tool's error may quote a URL or a key
            line = f"{self._glyphs['failed']} {call}{took}: {one_line(error)}"
            self._note(line, color=_RED)
        else:
            self._note(f"{self._glyphs['done']} {call}{took}: {one_line(event.result or '')}")
        if self._running_tools:
            self._start_progress(f"running {self._running_tools[0]}")

    def denied(self, name: str, arguments: str, reason: str | None) -> None:
        """Print a call the user denied (``--approve``), with the reason given, if any."""
        why = f": {one_line(mask_secrets(reason))}" if reason else ""
        self._note(f"{self._glyphs['failed']} {format_call(name, arguments)} denied{why}")

    # -- the answer -------------------------------------------------------------------------

    def answer(self, text: str) -> None:
        """Print a piece of the answer as it arrives."""
        if not text or not self._show_answer:
            return
        self._stop_progress()
        self._out.write(text)
        self._out.flush()
        self._line_open = not text.endswith("\n")

    def finish(self, response: ChatResponse | None, rounds: int, seconds: float) -> None:
        """End the turn: close the answer's line, then print the usage totals."""
        self.stop()
        parts = []
        usage = response.usage if response is not None else None
        if usage is not None and not usage.is_empty:
            parts.append(
                f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion = "
                f"{usage.total_tokens} tokens"
            )
        parts.append(f"{rounds} model round{'s' if rounds != 1 else ''}")
        parts.append(f"{seconds:.1f} s")
        self._note(f"usage: {'; '.join(parts)}")

    def cancelled(self) -> None:
        """The turn was cancelled (Ctrl-C)."""
        self.stop()
        self._note("cancelled", color=_RED)

    def stop(self) -> None:
        """Stop the spinner and close the answer's line (idempotent)."""
        self._stop_progress()
        self._close_line()

    # -- output helpers ---------------------------------------------------------------------

    def _close_line(self) -> None:
        if self._line_open:
            self._out.write("\n")
            self._out.flush()
            self._line_open = False

    def _note(self, text: str, *, color: str = _DIM) -> None:
        self.stop()
        if self._color:
            text = f"{color}{text}{_RESET}"
        print(text, file=self._err, flush=True)

    def _start_progress(self, label: str) -> None:
        if not self._progress:
            return
        self._stop_progress()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._spinner = loop.create_task(self._spin(label))

    def _stop_progress(self) -> None:
        if self._spinner is not None:
            self._spinner.cancel()
            self._spinner = None
        if self._spinner_visible:
            self._err.write(_CLEAR_LINE)
            self._err.flush()
            self._spinner_visible = False

    async def _spin(self, label: str) -> None:
        frames = self._glyphs["frames"]
        started = time.monotonic()
        with contextlib.suppress(asyncio.CancelledError):
            for tick in range(10**9):
                if self._line_open:
                    return  # never draw over a line of the answer
                waited = time.monotonic() - started
                frame = frames[tick % len(frames)]
                self._err.write(f"{_CLEAR_LINE}{frame} {label} {waited:.1f} s")
                self._err.flush()
                self._spinner_visible = True
                await asyncio.sleep(0.1)
