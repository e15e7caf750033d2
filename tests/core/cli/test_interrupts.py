"""Ctrl-C in an interactive session: at the prompt, in a turn, and in between (real
SIGINTs sent to this process at chosen lines)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest

from ostinato.cli._interrupts import SessionInterrupts, TurnInterrupted

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")


def _press() -> None:
    os.kill(os.getpid(), signal.SIGINT)


def test_a_press_in_a_turn_cancels_it_once_and_its_cleanup_runs_to_the_end() -> None:
    cleaned: list[str] = []

    async def turn() -> str:
        try:
            _press()
            await asyncio.Event().wait()  # blocks: only the press ends it
        finally:
            _press()  # impatient: pressed again while the turn unwinds
            await asyncio.sleep(0.01)
            cleaned.append("done")
        return "never"

    with SessionInterrupts() as interrupts, asyncio.Runner() as runner:
        with pytest.raises(TurnInterrupted):
            interrupts.run_turn(runner, turn())
        assert cleaned == ["done"]
        assert not interrupts.take_press()  # the second press belonged to the turn
        assert runner.run(asyncio.sleep(0, "next")) == "next"  # the runner still works


def test_a_press_after_the_line_was_read_cancels_the_turn_before_it_starts() -> None:
    started: list[bool] = []

    async def turn() -> None:
        started.append(True)

    with SessionInterrupts() as interrupts, asyncio.Runner() as runner:
        _press()
        with pytest.raises(TurnInterrupted):
            interrupts.run_turn(runner, turn())
    assert started == []


def test_a_press_outside_the_prompt_and_turns_is_held_for_the_prompt() -> None:
    with SessionInterrupts() as interrupts:
        _press()  # no KeyboardInterrupt here
        with pytest.raises(KeyboardInterrupt):
            interrupts.read_line(lambda: "never read")
        assert interrupts.read_line(lambda: "a line") == "a line"


def test_a_press_at_the_prompt_interrupts_the_read() -> None:
    def read() -> str:
        _press()
        return "not reached"

    with SessionInterrupts() as interrupts:
        with pytest.raises(KeyboardInterrupt):
            interrupts.read_line(read)
        assert not interrupts.take_press()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_turn_that_ends_by_itself_gives_the_signal_back_to_the_session() -> None:
    async def turn() -> str:
        return "answer"

    with SessionInterrupts() as interrupts, asyncio.Runner() as runner:
        assert interrupts.run_turn(runner, turn()) == "answer"
        _press()
        assert interrupts.take_press()
