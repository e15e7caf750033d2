"""Instrumentation scopes: code a plugin wraps around each tool call, *while it runs*.

Loop events (:mod:`ostinato.events`) are observations after the fact. Some instrumentation
must instead be *current* while the code runs: a tracing span that spans the tool makes
itself (a database call, an HTTP call) nest under. A tool scope is that wrapper::

    import contextlib
    from ostinato.instrumentation import add_tool_scope

    @contextlib.contextmanager
    def traced(call, callback):
        with tracer.start_as_current_span(f"execute_tool {call.name}"):
            yield lambda outcome: None  # told the call's text or ToolError at the end

    remove = add_tool_scope(traced)

A scope is called with the :class:`~ostinato.messages.ToolCall` and the
:class:`~ostinato.tools.ToolCallback` about to run and returns a context manager; it is
entered in the tool call's own task, just around the tool (after the concurrency cap
and inside its timeout's reach), so whatever it makes current is current in async
tools, in sync tools on the tool pool (they run in a copy of the task's context) and in
sync faces. What the context manager yields is called once with the call's outcome (its
text, or the :class:`~ostinato.errors.ToolError` the model will read) when the tool
returned; a cancellation leaves through ``__exit__`` with the exception. Scopes are
process-wide, registered at boot; with none registered a tool call pays one tuple
check. A scope must not raise: an exception from it fails the turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from ostinato.errors import ToolError
    from ostinato.messages import ToolCall
    from ostinato.tools import ToolCallback

__all__ = ["ToolOutcomeReport", "ToolScope", "add_tool_scope", "tool_scopes"]

#: Called once with a tool call's outcome: its text, or the ``ToolError`` the model reads.
ToolOutcomeReport: TypeAlias = "Callable[[str | ToolError], None]"

#: ``(call, callback) -> context manager`` entered around one tool call while it runs.
ToolScope: TypeAlias = (
    "Callable[[ToolCall, ToolCallback], AbstractContextManager[ToolOutcomeReport]]"
)

_lock = threading.Lock()
_scopes: tuple[ToolScope, ...] = ()


def add_tool_scope(scope: ToolScope) -> Callable[[], None]:
    """Wrap every tool call of the process in ``scope`` (innermost last added).

    Returns a function removing it again (calling it twice is harmless).
    """
    global _scopes
    with _lock:
        _scopes = (*_scopes, scope)

    def remove() -> None:
        global _scopes
        with _lock:
            _scopes = tuple(s for s in _scopes if s is not scope)

    return remove


def tool_scopes() -> tuple[ToolScope, ...]:
    """The registered tool scopes, outermost first (empty: nothing wraps tool calls)."""
    return _scopes
