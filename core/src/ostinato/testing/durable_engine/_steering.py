"""The steering check of the durable engine kit: a message steered into a running turn
joins it at its next round boundary, and one that comes after its last boundary runs as
its follow-up (:func:`ostinato.durable.follow_up_id`); nothing steered is lost."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ostinato.durable import follow_up_id, steer_turn
from ostinato.errors import DurableTurnError

if TYPE_CHECKING:
    from ostinato.testing.durable_engine._checks import Kit

__all__ = ["SteeringChecks"]


class SteeringChecks:
    """The steering check, mixed into the kit's conformance class."""

    def test_a_steered_message_joins_the_turn_or_runs_as_its_follow_up(self, kit: Kit) -> None:
        """A message steered while a tool runs joins the next round; one steered in the
        last round (at the iteration cap, where the answer's boundary takes nothing) runs
        as the turn's follow-up, after it; steering an ended turn that read nothing is an
        error naming its status."""
        from ostinato.durable import TurnRequest
        from ostinato.testing.durable_engine._checks import TOOLS

        kit.workers.env["OSTINATO_TOOLS__MAX_ITERATIONS"] = "2"
        tool = kit.server.gate(("count", "k9", 0))
        last = kit.server.gate(("model", "k9", 2))
        kit.workers.start()
        request = TurnRequest("k9 tool", conversation_id="k9", tools=(f"{TOOLS}:count",))
        handle = kit.engine.submit(request, turn_id="turn:k9:1")
        assert tool.arrived.wait(kit.workers.patience)
        steer_turn(handle, "k9 mid")  # taken after the tool's result
        tool.release.set()
        assert last.arrived.wait(kit.workers.patience)
        steer_turn(handle, "k9 late")  # no boundary left: the follow-up runs it
        last.release.set()
        assert handle.result(timeout=kit.workers.patience).text == "done k9"
        follow_up = kit.engine.turn(follow_up_id(handle.id))
        assert follow_up.id == "turn:k9:2"
        assert follow_up.result(timeout=kit.workers.patience).text == "done k9"
        with pytest.raises(DurableTurnError) as ended:
            steer_turn(follow_up, "after the end")
        assert ended.value.status == "succeeded"
        # Each round's last user message: the turn's second round, then the follow-up's.
        assert kit.server.user_texts[("model", "k9", 2)] == ["k9 mid", "k9 late"]
        assert kit.remembered("k9") == ["k9 tool", "k9 mid", "done k9", "k9 late", "done k9"]
