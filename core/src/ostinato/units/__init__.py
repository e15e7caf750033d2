"""Units and the one wrapper stack: the steps of a turn as values, and what wraps them.

A *unit* is one step of a turn a wrapper may observe, steer, record or replay: a model
round (:class:`ModelCall`, :class:`ModelStream`), a tool call (:class:`ToolInvocation`),
a chat memory read or write (:class:`MemoryRead`, :class:`MemoryWrite`), a vector store
search (:class:`Retrieval`, made by :func:`search_documents`); a model call made
outside the loop (a summary) is one too with :func:`call_model`. Each has a kind,
a sequence number in its turn, a JSON description of its input and a codec for its
result. A client runs every unit through one :class:`UnitStack` of
:class:`UnitWrapper` values, composed once: core's own (the tool concurrency cap, the
tool events, retries, the tool timeout), those plugins register
(``register_unit_wrappers``) and those a builder adds (``ChatClientBuilder.unit_wrappers``).
A durable engine's recorder runs a call with effects through :func:`run_guarded`, so a
crash never runs it twice silently, and keeps the notes a unit leaves for a later run of
itself (:func:`unit_notes`). See the units guide.
Every name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports

if TYPE_CHECKING:
    from ostinato.units._codecs import MESSAGES, NOTHING, RESPONSE, TOOL_OUTCOME
    from ostinato.units._in_doubt import (
        RecordedSteps,
        ask_reconcile_hook,
        in_doubt_rule,
        resolve_in_doubt,
        run_guarded,
    )
    from ostinato.units._memory import read_memory, write_memory
    from ostinato.units._model_call import call_model
    from ostinato.units._notes import UnitNotes, keeping_unit_notes, unit_notes
    from ostinato.units._retrieval import (
        DOCUMENTS,
        Retrieval,
        search_documents,
        using_unit_stack,
    )
    from ostinato.units._stack import (
        Around,
        AroundStream,
        UnitOrder,
        UnitStack,
        UnitWrapper,
        current_unit_stack,
    )
    from ostinato.units._streams import aggregate, recorded_stream
    from ostinato.units._tool_unit import ToolInvocation
    from ostinato.units._unit import (
        TurnScope,
        Unit,
        UnitCodec,
        UnitKind,
        current_turn,
        current_unit,
        durable_turn,
        idempotency_key,
    )
    from ostinato.units._values import MemoryRead, MemoryWrite, ModelCall, ModelStream

__all__ = [
    "DOCUMENTS",
    "MESSAGES",
    "NOTHING",
    "RESPONSE",
    "TOOL_OUTCOME",
    "Around",
    "AroundStream",
    "MemoryRead",
    "MemoryWrite",
    "ModelCall",
    "ModelStream",
    "RecordedSteps",
    "Retrieval",
    "ToolInvocation",
    "TurnScope",
    "Unit",
    "UnitCodec",
    "UnitKind",
    "UnitNotes",
    "UnitOrder",
    "UnitStack",
    "UnitWrapper",
    "aggregate",
    "ask_reconcile_hook",
    "call_model",
    "current_turn",
    "current_unit",
    "current_unit_stack",
    "durable_turn",
    "idempotency_key",
    "in_doubt_rule",
    "keeping_unit_notes",
    "read_memory",
    "recorded_stream",
    "resolve_in_doubt",
    "run_guarded",
    "search_documents",
    "unit_notes",
    "using_unit_stack",
    "write_memory",
]

# Every name loads on first use: the hot path imports ``ostinato.units._stack`` and
# ``_unit``, and that must not load the rest of the package with it.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DOCUMENTS": "ostinato.units._retrieval",
        "MESSAGES": "ostinato.units._codecs",
        "NOTHING": "ostinato.units._codecs",
        "RESPONSE": "ostinato.units._codecs",
        "TOOL_OUTCOME": "ostinato.units._codecs",
        "Around": "ostinato.units._stack",
        "AroundStream": "ostinato.units._stack",
        "MemoryRead": "ostinato.units._values",
        "MemoryWrite": "ostinato.units._values",
        "ModelCall": "ostinato.units._values",
        "ModelStream": "ostinato.units._values",
        "call_model": "ostinato.units._model_call",
        "RecordedSteps": "ostinato.units._in_doubt",
        "Retrieval": "ostinato.units._retrieval",
        "search_documents": "ostinato.units._retrieval",
        "using_unit_stack": "ostinato.units._retrieval",
        "ask_reconcile_hook": "ostinato.units._in_doubt",
        "in_doubt_rule": "ostinato.units._in_doubt",
        "resolve_in_doubt": "ostinato.units._in_doubt",
        "run_guarded": "ostinato.units._in_doubt",
        "ToolInvocation": "ostinato.units._tool_unit",
        "TurnScope": "ostinato.units._unit",
        "Unit": "ostinato.units._unit",
        "UnitCodec": "ostinato.units._unit",
        "UnitKind": "ostinato.units._unit",
        "UnitNotes": "ostinato.units._notes",
        "UnitOrder": "ostinato.units._stack",
        "UnitStack": "ostinato.units._stack",
        "UnitWrapper": "ostinato.units._stack",
        "aggregate": "ostinato.units._streams",
        "current_turn": "ostinato.units._unit",
        "current_unit": "ostinato.units._unit",
        "current_unit_stack": "ostinato.units._stack",
        "durable_turn": "ostinato.units._unit",
        "idempotency_key": "ostinato.units._unit",
        "keeping_unit_notes": "ostinato.units._notes",
        "unit_notes": "ostinato.units._notes",
        "read_memory": "ostinato.units._memory",
        "recorded_stream": "ostinato.units._streams",
        "write_memory": "ostinato.units._memory",
    },
)
