"""The interactive ``ostinato chat`` session: a prompt, one turn per line.

Line editing and history come from :mod:`readline` where Python has it (the history is
kept in ``$XDG_STATE_HOME/ostinato/chat_history``, else
``~/.local/state/ostinato/chat_history``). Ctrl-C during a turn cancels that turn (the
model request and running async tools are cancelled; the conversation is left as it was)
and the session goes on; Ctrl-C at the prompt clears the line, and so does a press
between turns, at the next prompt (see :mod:`ostinato.cli._interrupts`); Ctrl-D or
``/exit`` quits.
A line starting with ``/`` is a command: an unknown one is an error, never a question
(``//text`` asks ``/text``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Final

from ostinato.cli._chat_command import ask_once
from ostinato.cli._chat_session import ChatSession
from ostinato.cli._interrupts import SessionInterrupts
from ostinato.cli._output import print_error
from ostinato.errors import OstinatoError

__all__ = ["PROMPT", "history_path", "run_interactive"]

#: What the session prompts with.
PROMPT: Final = "> "
_QUIT: Final = frozenset({"/exit", "/quit"})
_HELP: Final = """\
type a question and press Enter; the model may call the tools you passed with --tools
  Ctrl-C      cancel the running turn (or clear the line)
  Ctrl-D      quit (so do /exit and /quit)
  Up/Down     earlier questions
  //text      ask "/text" (a line starting with one "/" is a command)"""
_COMMANDS: Final = ("/help", "/exit", "/quit")


def _unknown_command(line: str) -> str:
    word = line.split()[0]
    return (
        f"unknown command {word!r} (commands: {', '.join(_COMMANDS)}); nothing was sent to "
        "the model\n"
        f"fix: to ask a question that starts with '/', double it: /{line}"
    )


def history_path() -> Path:
    """Where the question history is kept."""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "ostinato" / "chat_history"


def _readline() -> ModuleType | None:
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input()
        return None
    return readline


class _History:
    """The readline history, loaded at the start and saved at the end (best effort)."""

    def __init__(self) -> None:
        self._readline = _readline()
        self._path = history_path()
        if self._readline is not None:
            self._readline.set_history_length(1000)
            with contextlib.suppress(OSError):
                self._readline.read_history_file(str(self._path))

    def length(self) -> int:
        """How many lines the history holds now (0 without readline)."""
        return 0 if self._readline is None else self._readline.get_current_history_length()

    def entered_since(self, length: int) -> str | None:
        """The line entered since the history held ``length`` lines, if one was."""
        if self._readline is None or self.length() <= length:
            return None
        line: str | None = self._readline.get_history_item(length + 1)
        return line

    def save(self) -> None:
        if self._readline is None:
            return
        with contextlib.suppress(OSError):
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._readline.write_history_file(str(self._path))


def _banner(session: ChatSession) -> str:
    choice = session.choice
    tools = ", ".join(t.tool_definition.name for t in session.tools) or "none"
    memory = f"; conversation {session.conversation_id}" if session.conversation_id else ""
    return (
        f"ostinato chat: {choice.model} ({choice.source}); tools: {tools}{memory}\n"
        "Ctrl-C cancels a turn; Ctrl-D or /exit quits; /help"
    )


def run_interactive(session: ChatSession, runner: asyncio.Runner, *, as_json: bool) -> int:
    """Prompt for questions until Ctrl-D or ``/exit``, one turn each; exit code 0."""
    with SessionInterrupts() as interrupts:
        return _prompt_loop(session, runner, interrupts, as_json=as_json)


def _prompt_loop(
    session: ChatSession, runner: asyncio.Runner, interrupts: SessionInterrupts, *, as_json: bool
) -> int:
    out, err = sys.stdout, sys.stderr
    history = _History()
    print(_banner(session), file=err, flush=True)
    try:
        while True:
            length = history.length()
            try:
                line = interrupts.read_line(lambda: input(PROMPT))
            except EOFError:
                print(file=out, flush=True)
                return 0
            except KeyboardInterrupt:
                # A press seen only as input() returned (readline's gap, see
                # ostinato.cli._interrupts): the line, already complete (and in the
                # history), is kept and asked.
                entered = history.entered_since(length)
                if entered is None:
                    print("\n(Ctrl-D or /exit quits)", file=err, flush=True)
                    continue
                line = entered
            question = line.strip()
            if not question:
                continue
            if question in _QUIT:
                return 0
            if question == "/help":
                print(_HELP, file=err, flush=True)
                continue
            if question.startswith("//"):
                question = question[1:]  # a question that starts with "/", escaped
            elif question.startswith("/"):
                print_error(_unknown_command(question), err, exit_code=2)
                continue
            try:
                ask_once(
                    session,
                    runner,
                    question,
                    as_json=as_json,
                    out=out,
                    err=err,
                    interrupts=interrupts,
                )
            except OstinatoError as exc:  # e.g. a limit; the session goes on
                print_error(str(exc), err, error=exc)
    finally:
        history.save()
