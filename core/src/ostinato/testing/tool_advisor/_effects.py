"""Effect classes in a replacement tool advisor: the order of a batch, and the crash
rules' path.

A tool advisor that runs its calls through the default tool calling manager (or any
manager keeping its rules) passes these: in a batch with calls that have effects, the
read-only calls run first and the side-effecting and destructive ones after them, one at
a time in the model's order, their events carrying the class; and every call reaches the
unit stack as a :class:`~ostinato.units.ToolInvocation` carrying its effect, so a durable
engine's recorder can guard a call with effects (:func:`~ostinato.units.in_doubt_rule`:
``approve`` for a destructive tool without a hook, ``None`` for a read-only one) — the
crash rules themselves are the recorder's, checked by the engines' crash matrices.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from ostinato.advisors import ToolAdvisor
from ostinato.client import ChatClient
from ostinato.events import ToolStarted
from ostinato.model import ChatResponse
from ostinato.testing._scripted import ScriptedChatModel, text_response, tool_call_response
from ostinato.testing.tool_advisor._harness import WAYS, run_way
from ostinato.tools import tool
from ostinato.units import UnitKind, UnitOrder, UnitWrapper, in_doubt_rule

__all__ = ["EffectConformance", "EffectTools"]


class EffectTools:
    """A read-only, a side-effecting and a destructive tool; ``log`` says what ran."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self._lock = threading.Lock()

    def _ran(self, line: str) -> str:
        with self._lock:
            self.log.append(line)
        return line

    @tool(effect="destructive")
    def erase(self, item: str) -> str:
        """Erase an item."""
        return self._ran(f"erase {item}")

    @tool(effect="read_only")
    def read(self, item: str) -> str:
        """Read an item."""
        return self._ran(f"read {item}")

    @tool(effect="side_effecting")
    def send(self, item: str) -> str:
        """Send an item."""
        return self._ran(f"send {item}")


_NAMES = ("erase", "read", "send")


def _batch() -> ChatResponse:
    return tool_call_response(
        ("erase", {"item": "a"}), ("read", {"item": "b"}), ("send", {"item": "c"})
    )


class EffectConformance:
    """Effect-class checks (see the module)."""

    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        """The tool advisor under test (implemented by the conformance class)."""
        raise NotImplementedError

    def discovery(self, tool_names: Sequence[str]) -> list[ChatResponse]:
        """Model responses that come first in every turn (see the conformance class)."""
        return []

    def _effect_turn(self, path: str, face: str) -> tuple[Any, EffectTools, list[Any]]:
        tools = EffectTools()
        seen: list[Any] = []

        async def record(unit: Any, next: Any) -> Any:
            seen.append((unit.name, unit.effect, in_doubt_rule(unit)))
            return await next(unit)

        recorder = UnitWrapper(
            "kit-effects", UnitOrder.DURABLE + 1, frozenset({UnitKind.TOOL_CALL}), record
        )
        model = ScriptedChatModel([*self.discovery(_NAMES), _batch(), text_response("Done.")])
        advisor = self.make_advisor()
        client = ChatClient.builder(model, tool_advisor=advisor).unit_wrappers(recorder).build()
        run = run_way(path, face, lambda c: c.prompt().user("Tidy up.").tools(tools), client)
        return run, tools, seen

    def test_reads_run_before_effects_and_effects_in_the_models_order(self) -> None:
        """Read-only calls first; then each call with effects, in call order."""
        for path, face in WAYS:
            run, tools, _ = self._effect_turn(path, face)
            assert run.error is None, run.error
            assert tools.log == ["read b", "erase a", "send c"], (path, face, tools.log)
            effects = {e.call.name: e.effect for e in run.of(ToolStarted) if e.call.name in _NAMES}
            assert effects == {
                "erase": "destructive",
                "read": "read_only",
                "send": "side_effecting",
            }

    def test_calls_reach_the_unit_stack_with_their_effect_and_crash_rule(self) -> None:
        """A durable recorder sees each call's effect and in-doubt rule."""
        for path, face in WAYS:
            _, _, seen = self._effect_turn(path, face)
            found = {
                name: (effect and effect.value, rule and rule.value)
                for name, effect, rule in seen
                if name in _NAMES
            }
            assert found == {
                "read": ("read_only", None),
                "erase": ("destructive", "approve"),
                "send": ("side_effecting", "approve"),
            }, (path, face, seen)
