"""The kit's checks of ordered turns: an engine whose ``submit`` takes ``exclusive`` and
``after`` (as ``ostinato serve`` needs for its ``enqueue`` and ``interrupt`` policies and
its claim of a conversation's next turn).

* ``exclusive=True``: of two processes submitting one new id at the same instant, one
  creates the turn and the other gets ``DurableTurnError`` (status ``"exists"``); the id
  of a turn that has ended is taken too;
* ``after=<id>``: an unknown id fails at once (status ``"unknown"``); a turn submitted
  after another starts its first model round only once that one has ended, however it
  ended (here: cancelled in its model round);
* ``turn_ids(prefix)``, where the engine has it, lists the series' turns.

An engine without ``exclusive`` and ``after`` skips them, saying so.
"""

from __future__ import annotations

import inspect
import threading
import uuid
from typing import TYPE_CHECKING, Any

import pytest

from ostinato.durable import DurableEngine, TurnRequest, TurnStatus
from ostinato.errors import DurableTurnError

if TYPE_CHECKING:
    from ostinato.testing.durable_engine._checks import Kit

__all__ = ["OrderedTurnsChecks"]


def _ordered_submit(engine: DurableEngine) -> Any:
    """The engine's ``submit``, or a skip when it has no ``exclusive`` and ``after``."""
    parameters = inspect.signature(engine.submit).parameters
    if "exclusive" not in parameters or "after" not in parameters:
        pytest.skip(
            f"{type(engine).__name__}.submit has no exclusive and after parameters: "
            "the engine has no ordered turns"
        )
    return engine.submit


def _race(submit: Any, request: TurnRequest, turn_id: str) -> list[object]:
    """Submit ``request`` as ``turn_id``, exclusively, from two threads at once: what
    each got (a handle or the error)."""
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def one() -> None:
        barrier.wait(10)
        try:
            outcomes.append(submit(request, turn_id=turn_id, exclusive=True))
        except DurableTurnError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return outcomes


class OrderedTurnsChecks:
    """The checks of ordered turns (see the module's docstring); a base of
    :class:`~ostinato.testing.durable_engine.DurableEngineConformance`, whose fixture
    ``kit`` and :meth:`cancel` they use."""

    def cancel(self, engine: DurableEngine, turn_id: str) -> None:
        """Cancel the turn ``turn_id`` the engine's own way (the kit's subclass does)."""
        raise NotImplementedError

    def test_an_exclusive_id_is_taken_once_and_a_turn_after_another_waits_for_its_end(
        self, kit: Kit
    ) -> None:
        """Two racing exclusive submissions: one turn, one ``"exists"``; ``after`` an
        unknown turn fails; a turn after another runs once that one ended (cancelled);
        the ended turn's id stays taken."""
        submit = _ordered_submit(kit.engine)
        series = f"o-{uuid.uuid4().hex[:8]}"
        first_id, second_id = f"{series}:1", f"{series}:2"
        held = kit.server.gate(("model", "o1", 1))
        second_round = kit.server.gate(("model", "o2", 1))
        kit.workers.start()
        outcomes = _race(submit, TurnRequest("o1 plain", conversation_id=series), first_id)
        refused = [o for o in outcomes if isinstance(o, DurableTurnError)]
        assert len(outcomes) == 2, f"a submission did not return: {outcomes}"
        assert len(refused) == 1, f"expected one turn and one refusal, got {outcomes}"
        assert refused[0].status == "exists", refused[0]
        with pytest.raises(DurableTurnError) as unknown:
            submit(TurnRequest("o9 plain"), turn_id=f"{series}:9", after=f"{series}:0")
        assert unknown.value.status == "unknown"
        second = submit(
            TurnRequest("o2 plain", conversation_id=f"{series}-b"),
            turn_id=second_id,
            after=first_id,
            exclusive=True,
        )
        assert held.arrived.wait(kit.workers.patience)  # the first turn in its round
        assert not second_round.arrived.is_set()
        self.cancel(kit.engine, first_id)
        held.release.set()
        assert second_round.arrived.wait(kit.workers.patience)
        # Its first round began only once the first turn had ended.
        assert kit.engine.turn(first_id).status is TurnStatus.CANCELLED
        second_round.release.set()
        assert second.result(timeout=kit.workers.patience).text == "done o2"
        with pytest.raises(DurableTurnError) as reused:
            submit(TurnRequest("o1 plain"), turn_id=first_id, exclusive=True)
        assert reused.value.status == "exists"
        find = getattr(kit.engine, "turn_ids", None)
        if find is not None:  # the engine's listing may lag behind its turns a moment
            kit.wait_until(lambda: find(f"{series}:") == [first_id, second_id], "the listing")
