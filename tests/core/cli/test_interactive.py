"""The interactive ``ostinato chat`` session, driven through a pseudo-terminal (see
``tests.core.cli.terminal``: Ctrl-C there is a real ``\\x03`` typed at the terminal,
pressed only once the child waits for input or events)."""

from __future__ import annotations

import builtins
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from ostinato.cli import _interactive
from tests.core.cli.cli_process import child_environment
from tests.core.cli.terminal import Terminal, ostinato_on_terminal, wait_until_waiting
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pty")


@pytest.fixture
def terminal(scripted: FakeDistributions, tmp_path: Path) -> Iterator[Terminal]:
    state = {"XDG_STATE_HOME": str(tmp_path / "state")}
    argv = ("chat", "--model", "scripted:interactive")
    with ostinato_on_terminal(scripted, tmp_path, *argv, env=state) as terminal:
        yield terminal


def test_a_session_answers_cancels_a_turn_with_ctrl_c_and_goes_on(terminal, tmp_path):
    terminal.expect(r"ostinato chat: scripted:interactive \(--model\); tools: none")
    terminal.expect(r"\n> ")
    terminal.type("hello\n")
    terminal.expect(r"You said 'hello'; I see 0 earlier message\(s\)\.")
    terminal.expect(r"usage: 1 model round; [0-9.]+ s")
    terminal.expect(r"\n> ")

    terminal.type("tell me a slow story\n")
    terminal.expect(r"Once upon a time")
    terminal.interrupt()  # Ctrl-C: SIGINT from the terminal
    terminal.expect(r"\ncancelled")
    terminal.expect(r"\n> ")

    # The session goes on, and the cancelled turn is not part of the conversation.
    terminal.type("and now?\n")
    terminal.expect(r"You said 'and now\?'; I see 2 earlier message\(s\)\.")
    terminal.expect(r"\n> ")

    # Up-arrow recalls the previous question (readline history).
    terminal.type("\x1b[A\n")
    terminal.expect(r"You said 'and now\?'; I see 4 earlier message\(s\)\.")
    terminal.expect(r"\n> ")

    terminal.type("\x04")  # Ctrl-D quits
    assert terminal.process.wait(timeout=20) == 0
    history = tmp_path / "state" / "ostinato" / "chat_history"
    assert "tell me a slow story" in history.read_text(encoding="utf-8")


def test_the_progress_indicator_shows_while_the_model_thinks(terminal):
    terminal.expect(r"\n> ")
    terminal.type("slow one\n")
    terminal.expect(r"thinking [0-9.]+ s")
    terminal.expect(r"Once upon a time")
    terminal.interrupt()
    terminal.expect(r"cancelled")
    terminal.expect(r"\n> ")
    terminal.interrupt()  # Ctrl-C at the prompt: a hint, not an exit
    terminal.expect(r"\(Ctrl-D or /exit quits\)")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0


def test_scripted_provider_is_importable_by_the_child():
    # The child imports the provider by the same module name as the tests do.
    assert scripted_provider.__name__ == "tests.fakes.scripted_provider"


def test_ctrl_c_during_a_one_shot_turn_exits_130(scripted, tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "ostinato.cli", "chat", "-m", "scripted:interactive", "slow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=child_environment(scripted),
        cwd=tmp_path,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.read(len("Once upon a time")) == b"Once upon a time"
        wait_until_waiting(process.pid)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert out == b"\n"  # the answer's line is closed
    assert err.decode().splitlines()[-1] == "cancelled"


def test_an_unknown_slash_command_is_an_error_not_a_question(terminal):
    terminal.expect(r"\n> ")
    terminal.type("/exti\n")
    terminal.expect(
        r"ostinato: error: unknown command '/exti' \(commands: /help, /exit, /quit\); nothing "
        r"was sent to the model; fix: to ask a question that starts with '/', double it: //exti"
    )
    terminal.expect(r"\n> ")
    terminal.type("//etc is a folder\n")
    terminal.expect(r"You said '/etc is a folder'; I see 0 earlier message\(s\)\.")
    terminal.expect(r"\n> ")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0


def test_ctrl_c_twice_during_a_turn_keeps_the_next_question(terminal):
    terminal.expect(r"\n> ")
    terminal.type("tell me a slow story\n")
    terminal.expect(r"Once upon a time")
    terminal.interrupt()
    terminal.type("\x03")  # pressed again at once, impatient
    terminal.expect(r"cancelled")
    terminal.expect(r"\n> ")
    terminal.type("and now?\n")
    terminal.expect(r"You said 'and now\?'")
    terminal.expect(r"\n> ")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0


def _press() -> None:
    """Ctrl-C, delivered to this process at exactly this line."""
    os.kill(os.getpid(), signal.SIGINT)


def _session() -> SimpleNamespace:
    choice = SimpleNamespace(model="scripted:interactive", source="--model")
    return SimpleNamespace(choice=choice, tools=(), conversation_id=None)


def test_ctrl_c_while_a_turn_is_reported_acts_at_the_next_prompt(monkeypatch, tmp_path, capsys):
    # A press after the turn ended, while it is reported: no KeyboardInterrupt lands in
    # the reporting code; the next prompt acts on it, and the session goes on.
    lines = iter(["first", "second", "/exit"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    asked: list[str] = []

    def ask_once(session, runner, question, **kwargs):
        asked.append(question)
        _press()
        print("reported", file=sys.stderr)  # the rest of the reporting still runs
        return 0

    monkeypatch.setattr(_interactive, "ask_once", ask_once)
    assert _interactive.run_interactive(_session(), None, as_json=False) == 0
    assert asked == ["first", "second"]
    err = capsys.readouterr().err
    assert err.count("reported\n\n(Ctrl-D or /exit quits)\n") == 2


def test_ctrl_c_between_the_prompt_and_a_turn_never_raises(monkeypatch, capsys):
    # A press while the session prepares the next prompt (here: reading the history's
    # length) is held for that prompt.
    lines = iter(["/exit"])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(lines))
    length = _interactive._History.length
    presses = [_press]

    def pressed_length(self):
        if presses:
            presses.pop()()
        return length(self)

    monkeypatch.setattr(_interactive._History, "length", pressed_length)
    assert _interactive.run_interactive(_session(), None, as_json=False) == 0
    assert capsys.readouterr().err.endswith("\n(Ctrl-D or /exit quits)\n")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_ctrl_c_in_a_turn_is_seen_without_waiting_for_the_session_to_block(terminal):
    # Pressed as soon as the answer appears, not once the child waits: the event loop's
    # signal handler wakes the loop even when the press lands just before it blocks.
    terminal.expect(r"\n> ")
    for presses in ("\x03", "\x03\x03", "\x03"):
        terminal.type("tell me a slow story\n")
        terminal.expect(r"Once upon a time")
        terminal.type(presses)
        terminal.expect(r"\ncancelled", timeout=10)
        terminal.expect(r"\n> ")
    terminal.type("and now?\n")
    terminal.expect(r"You said 'and now\?'; I see 0 earlier message\(s\)\.")
    terminal.expect(r"\n> ")
    terminal.type("/exit\n")
    assert terminal.process.wait(timeout=20) == 0
