"""The counting tools of the durable engine kit, imported by name by the workers
(``ostinato.testing.durable_engine.tools:count``): each call is counted by the kit's
fake model server (``DURABLE_KIT_SERVER``), with its idempotency key and its worker's
process id."""

from __future__ import annotations

import os
import urllib.parse
import urllib.request

from ostinato.tools import tool
from ostinato.units import idempotency_key

__all__ = ["count", "pay"]


def _visit(kind: str, turn: str) -> str:
    query = urllib.parse.urlencode(
        {"kind": kind, "turn": turn, "key": idempotency_key() or "", "pid": os.getpid()}
    )
    with urllib.request.urlopen(f"{os.environ['DURABLE_KIT_SERVER']}/tool?{query}") as reply:
        text: str = reply.read().decode()
    return text


@tool(description="Count this turn")
def count(turn: str) -> str:
    """Count one call for ``turn``."""
    return _visit("count", turn)


@tool(description="Pay for this turn", requires_approval=True)
def pay(turn: str) -> str:
    """Pay (it waits for a person's approval)."""
    return _visit("pay", turn)
