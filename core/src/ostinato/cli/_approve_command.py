"""``ostinato approve``: decide the tool calls a durable turn waits for, or list the
waiting turns, on the installed durable engine.

A turn is named by its id or by the start of it, as long as that start is unique (among
the waiting turns first, then among all turns). Errors are raised, not printed: the
``ostinato`` command shows them as every command's errors (``error``, then ``fix``), and
never with the engine's own error text.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Final

from ostinato.cli._engine_choice import add_engine_option, open_engine
from ostinato.errors import DurableTurnError

if TYPE_CHECKING:
    from ostinato.cli._context import CliContext
    from ostinato.durable import EngineOperations

__all__ = ["APPROVE_HELP", "add_approve_command", "approve", "resolve_turn", "run_approve"]

#: ``ostinato help`` line of ``ostinato approve``.
APPROVE_HELP: Final = "approve or deny the tool calls a durable turn waits for"

_LIST_FIX: Final = "fix: `ostinato approve --list` shows the turns waiting for a decision"
_SHOWN: Final = 5  # ids listed in an ambiguity error


def add_approve_command(subparsers: Any) -> None:
    """Declare ``ostinato approve``."""
    parser = subparsers.add_parser("approve", help=APPROVE_HELP, description=APPROVE_HELP)
    _declare(parser)
    parser.set_defaults(handler=approve)


def run_approve(argv: list[str], context: CliContext | None = None) -> int:
    """``ostinato approve ARGV`` in this process, its errors raised rather than printed.

    Raises:
        ConfigurationError: no (or no single) durable engine is installed.
        DurableTurnError: see :func:`resolve_turn`.
    """
    from ostinato.cli._context import load_context

    parser = argparse.ArgumentParser(prog="ostinato approve", description=APPROVE_HELP)
    _declare(parser)
    return approve(parser.parse_args(argv), load_context() if context is None else context)


def _declare(parser: Any) -> None:
    parser.add_argument("turn_id", nargs="?", help="the turn's id, or a unique start of it")
    parser.add_argument("--deny", action="store_true", help="deny instead of approving")
    parser.add_argument("--reason", help="why (the model reads it when denied)")
    parser.add_argument("--list", action="store_true", help="list the waiting turns")
    add_engine_option(parser)


def _ambiguous(prefix: str, ids: list[str], which: str) -> DurableTurnError:
    shown = ", ".join(ids[:_SHOWN]) + (
        f", and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else ""
    )
    return DurableTurnError(
        f"{prefix!r} starts the ids of {len(ids)} {which}: {shown}\n"
        "fix: give more of the id, enough to name one turn",
        turn_id=prefix,
        status="unknown",
    )


def resolve_turn(engine: EngineOperations, given: str) -> str:
    """The id of the waiting turn ``given`` names (its id, or a unique start of it).

    Raises:
        DurableTurnError: no turn has such an id, the start names several turns, or the
            turn named waits for no decision.
    """
    ids = list(engine.turn_ids(given))
    if given in ids:
        ids = [given]
    waiting = [turn_id for turn_id in ids if engine.turn(turn_id).pending() is not None]
    if len(waiting) == 1:
        return waiting[0]
    if len(waiting) > 1:
        raise _ambiguous(given, waiting, "waiting turns")
    if not ids:
        raise DurableTurnError(
            f"no durable turn has the id {given!r} (nor an id starting with it)\n{_LIST_FIX}",
            turn_id=given,
            status="unknown",
        )
    if len(ids) > 1:
        raise _ambiguous(given, ids, "turns, none of them waiting for a decision")
    status = engine.turn(ids[0]).status.value
    raise DurableTurnError(
        f"the durable turn {ids[0]!r} waits for no decision (status {status})\n{_LIST_FIX}",
        turn_id=ids[0],
        status=status,
    )


def _list(engine: EngineOperations) -> int:
    waiting = engine.waiting()
    if not waiting:
        print("no durable turn waits for a decision")
        return 0
    for turn_id in waiting:
        pending = engine.turn(turn_id).pending()
        calls = pending.calls if pending is not None else ()
        print(f"{turn_id}  " + ", ".join(f"{c.name}({c.arguments})" for c in calls))
    return 0


def approve(args: argparse.Namespace, context: CliContext) -> int:
    """``ostinato approve ID [--deny] [--reason TEXT]`` decides every call the turn ``ID``
    (or the one turn whose id starts with ``ID``) waits for; ``ostinato approve --list``
    (or no ``ID``) lists the waiting turns and their calls.

    Raises:
        ConfigurationError: no (or no single) durable engine is installed.
        DurableTurnError: see :func:`resolve_turn`.
    """
    from ostinato.tools import ApprovalDecision

    engine = open_engine(context, args.engine, "approve")
    try:
        if args.list or args.turn_id is None:
            return _list(engine)
        turn_id = resolve_turn(engine, args.turn_id.strip())
        handle = engine.turn(turn_id)
        pending = handle.pending()
        calls = pending.calls if pending is not None else ()
        decision = ApprovalDecision.deny(args.reason) if args.deny else ApprovalDecision.approve()
        handle.decide({call.id: decision for call in calls})
        verb = "denied" if args.deny else "approved"
        print(f"{verb} {len(calls)} call(s) of {turn_id}")
    finally:
        engine.close()
    return 0
