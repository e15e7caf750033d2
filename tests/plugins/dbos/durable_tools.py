"""Tools the durable-turn tests' workers import by name: each call is counted by the
fake model server (it records the call's start and its end), with its idempotency key."""

from __future__ import annotations

import os
import urllib.parse
import urllib.request

from ostinato import tool
from ostinato.durable import idempotency_key
from ostinato.tools import report_progress


def _visit(kind: str, turn: str) -> str:
    query = urllib.parse.urlencode({"kind": kind, "turn": turn, "key": idempotency_key() or ""})
    with urllib.request.urlopen(f"{os.environ['DBOS_TEST_SERVER']}/tool?{query}") as reply:
        text: str = reply.read().decode()
    return text


@tool(description="Count this turn")
def count(turn: str) -> str:
    """Count one call for ``turn``."""
    return _visit("count", turn)


@tool(description="Count this turn in steps, reporting each")
def steps(turn: str) -> str:
    """Count one call for ``turn``, reporting its progress twice."""
    report_progress(f"step 1 of 2 for {turn}", data={"step": 1}, fraction=0.5)
    report_progress(f"step 2 of 2 for {turn}", data={"step": 2}, fraction=1.0)
    return _visit("count", turn)


@tool(description="Pay for this turn", requires_approval=True)
def pay(turn: str) -> str:
    """Pay (it waits for a person's approval)."""
    return _visit("pay", turn)
