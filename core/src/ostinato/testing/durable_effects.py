"""The destructive tools of the durable engine kit's crash matrix, imported by name by
the workers (``ostinato.testing.durable_effects:pay_reconcile``): one tool per in-doubt
rule. Outside :mod:`ostinato.testing.durable_engine` (which imports pytest) so that a
worker imports it fast: Temporal imports a turn's tools in workflow code, where a task
that does not yield within two seconds fails.

Each counts its own side effect: one ``effect <turn> <key> <pid>`` line appended to the
journal (``$DURABLE_KIT_EFFECTS/journal``), between an ``enter`` and an ``exit`` line of
the same process. The plan of a turn (``$DURABLE_KIT_EFFECTS/plans/<turn>``: a point and
the seconds the effect takes) may name a point inside the tool where its worker kills
itself (SIGKILL, once per turn): ``before_effect`` or ``after_effect``.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

from ostinato.tools import tool
from ostinato.units import idempotency_key

__all__ = ["effects_of", "pay_approve", "pay_fail", "pay_reconcile"]


def _root() -> Path:
    return Path(os.environ["DURABLE_KIT_EFFECTS"])


def _journal(kind: str, turn: str) -> None:
    line = f"{kind} {turn} {idempotency_key()} {os.getpid()}\n"
    fd = os.open(_root() / "journal", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def _point(turn: str, point: str) -> None:
    plan = _root() / "plans" / turn
    if not plan.exists() or plan.read_text().split()[0] != point:
        return
    try:
        (_root() / "plans" / f"{turn}.killed").touch(exist_ok=False)  # once per turn
    except FileExistsError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


def _pay(turn: str) -> str:
    _journal("enter", turn)
    _point(turn, "before_effect")
    time.sleep(float((_root() / "plans" / turn).read_text().split()[1]))
    _journal("effect", turn)
    _point(turn, "after_effect")
    _journal("exit", turn)
    return f"paid {turn}"


def effects_of(turn: str, key: str | None = None) -> int:
    """How many times the effect of ``turn`` (with idempotency key ``key``) happened."""
    path = _root() / "journal"
    lines = path.read_text().splitlines() if path.exists() else []
    return sum(
        1
        for line in lines
        if line.split()[:2] == ["effect", turn] and (key is None or line.split()[2] == key)
    )


def _reconcile(arguments: str, key: str) -> str | None:
    turn = json.loads(arguments)["turn"]
    return f"paid {turn} (reconciled)" if effects_of(turn, key) else None


@tool(description="Pay for this turn", effect="destructive", reconcile=_reconcile)
def pay_reconcile(turn: str) -> str:
    """Pay; after a crash its hook says whether the payment went through."""
    return _pay(turn)


@tool(description="Pay for this turn", effect="destructive")
def pay_approve(turn: str) -> str:
    """Pay; after a crash a person decides (the default for a destructive tool)."""
    return _pay(turn)


@tool(description="Pay for this turn", effect="destructive", in_doubt="fail")
def pay_fail(turn: str) -> str:
    """Pay; after a crash in doubt the turn fails."""
    return _pay(turn)
