"""The ``@tool`` decorator: mark a function or method as a tool the model may call.

The decorator only records a :class:`ToolSpec` on the function (under
:data:`TOOL_SPEC_ATTRIBUTE`); the function stays exactly as callable as before. The work
(reading the signature, building the schema) happens when the tool is turned into a
callback by ``tool_callbacks(...)`` or :class:`~ostinato.tools.FunctionToolCallback`, so
types defined later in the module are fine.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, overload

from ostinato._tool_contract import InDoubtRule, Reconcile, ToolEffect
from ostinato.errors import ConfigurationError

__all__ = [
    "TOOL_SPEC_ATTRIBUTE",
    "ToolSpec",
    "check_effect",
    "check_timeout",
    "tool",
    "tool_spec_of",
]

#: The attribute ``@tool`` sets on the decorated function.
TOOL_SPEC_ATTRIBUTE: Final = "__ostinato_tool__"

_F = TypeVar("_F")


def _check_text(what: str, value: object) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ConfigurationError(f"@tool({what}=...) must be a non-blank string, got {value!r}")


def check_timeout(value: object, where: str = "@tool(timeout=...)") -> None:
    """Raise :class:`ConfigurationError` unless ``value`` is ``None`` or a positive number."""
    if value is None:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ConfigurationError(
            f"{where} must be a positive number of seconds or None for no timeout, got {value!r}"
        )


def check_effect(
    effect: object, reconcile: object, in_doubt: object, where: str = "@tool"
) -> tuple[ToolEffect | None, InDoubtRule | None]:
    """``effect`` and ``in_doubt`` as their enums (names accepted), checked with
    ``reconcile``; raise :class:`ConfigurationError` for a value that does not fit."""
    try:
        found = None if effect is None else ToolEffect(effect)  # type: ignore[arg-type]
        rule = None if in_doubt is None else InDoubtRule(in_doubt)  # type: ignore[arg-type]
    except ValueError as e:
        raise ConfigurationError(
            f"{where}: {e}\n  expected: effect one of {', '.join(ToolEffect)}, in_doubt one "
            f"of {', '.join(InDoubtRule)}\nfix: pass a ToolEffect / InDoubtRule or its name"
        ) from None
    if reconcile is not None and not callable(reconcile):
        raise ConfigurationError(
            f"{where}(reconcile=...) must be callable as reconcile(arguments, key), "
            f"got {reconcile!r}"
        )
    if rule is InDoubtRule.RECONCILE and reconcile is None:
        raise ConfigurationError(
            f"{where}(in_doubt='reconcile') needs a reconcile hook\n"
            "fix: pass reconcile=fn (fn(arguments, key) -> result text or None)"
        )
    return found, rule


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What ``@tool(...)`` said about a function.

    Attributes:
        name: the tool name, or ``None`` for the function's name.
        description: the description, or ``None`` for the docstring's first paragraph
            (else the name split into words).
        return_direct: hand the result to the caller instead of back to the model.
        sequential: never run concurrently with other calls of the same batch.
        timeout: seconds after which a call is abandoned (``None``: no limit).
        requires_approval: each call waits for an approval decision before it runs.
        effect: what a call does (:class:`~ostinato.tools.ToolEffect`; ``None``:
            undeclared).
        reconcile: after a crash, whether a call in flight took effect
            (:data:`~ostinato.tools.Reconcile`).
        in_doubt: how a durable turn resolves a call a crash left in doubt.
        localns: the namespace the function was defined in, to resolve type hints that
            name local types (not part of equality).
    """

    name: str | None = None
    description: str | None = None
    return_direct: bool = False
    sequential: bool = False
    timeout: float | None = None
    localns: Mapping[str, Any] | None = field(default=None, repr=False, compare=False)
    requires_approval: bool = False
    effect: ToolEffect | None = None
    reconcile: Reconcile | None = field(default=None, compare=False)
    in_doubt: InDoubtRule | None = None

    def __post_init__(self) -> None:
        _check_text("name", self.name)
        _check_text("description", self.description)
        for flag in ("return_direct", "sequential", "requires_approval"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigurationError(
                    f"@tool({flag}=...) must be True or False, got {getattr(self, flag)!r}"
                )
        check_timeout(self.timeout)
        effect, rule = check_effect(self.effect, self.reconcile, self.in_doubt)
        object.__setattr__(self, "effect", effect)
        object.__setattr__(self, "in_doubt", rule)


def tool_spec_of(obj: object) -> ToolSpec | None:
    """The :class:`ToolSpec` ``@tool`` attached to ``obj`` (function, method, static or
    class method), or ``None`` if it is not decorated."""
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    spec = getattr(obj, TOOL_SPEC_ATTRIBUTE, None)
    return spec if isinstance(spec, ToolSpec) else None


@overload
def tool(function: _F, /) -> _F: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    return_direct: bool = False,
    sequential: bool = False,
    timeout: float | None = None,
    requires_approval: bool = False,
    effect: ToolEffect | str | None = None,
    reconcile: Reconcile | None = None,
    in_doubt: InDoubtRule | str | None = None,
) -> Callable[[_F], _F]: ...


def tool(
    function: Any = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    return_direct: bool = False,
    sequential: bool = False,
    timeout: float | None = None,
    requires_approval: bool = False,
    effect: ToolEffect | str | None = None,
    reconcile: Reconcile | None = None,
    in_doubt: InDoubtRule | str | None = None,
) -> Any:
    """Mark a function or method as a tool; use it bare (``@tool``) or with arguments.

    Works on plain functions, methods, static and class methods, sync or async. The
    function is returned unchanged (it only gains a :class:`ToolSpec` attribute), so it
    can still be called directly. Turn it into a callback with ``tool_callbacks(...)``.

    Args:
        name: the name the model calls it by; defaults to the function's name.
        description: what it does, for the model; defaults to the docstring's first
            paragraph, else the name split into words.
        return_direct: hand the result straight to the caller instead of the model (only
            when every call of the batch is return-direct).
        sequential: run alone: never concurrently with other calls of the same batch.
        timeout: seconds after which a call is abandoned and reported to the model as
            timed out.
        requires_approval: each call waits for a decision (an approver on the request,
            or the turn ends with :class:`~ostinato.tools.PendingToolCalls`) before it runs.
        effect: what a call does: ``"read_only"``, ``"idempotent"``,
            ``"side_effecting"`` or ``"destructive"`` (:class:`~ostinato.tools.ToolEffect`);
            it drives ordering, approvals by class, retries, early start and crash
            recovery. Undeclared (``None``): as before effect classes existed.
        reconcile: ``reconcile(arguments, key)``: after a crash, did the call with this
            idempotency key take effect? The result text if it did, ``None`` if not.
        in_doubt: how a durable turn resolves a side-effecting or destructive call a
            crash left in doubt: ``"approve"``, ``"reconcile"`` or ``"fail"`` (default:
            ``reconcile`` with a hook, else ``approve``).
    """
    if function is not None and not callable(function) and not _is_method_wrapper(function):
        raise ConfigurationError(
            f"@tool got {function!r} where a function was expected; "
            "pass options by keyword: @tool(name=..., description=...)"
        )
    frame = sys._getframe(1)
    localns = None if frame.f_locals is frame.f_globals else frame.f_locals
    spec = ToolSpec(
        name,
        description,
        return_direct,
        sequential,
        timeout,
        localns,
        requires_approval,
        effect,  # type: ignore[arg-type]  # a name is checked and made the enum
        reconcile,
        in_doubt,  # type: ignore[arg-type]
    )

    def decorate(fn: _F) -> _F:
        target: Any = fn.__func__ if _is_method_wrapper(fn) else fn  # type: ignore[attr-defined]
        if not callable(target):
            raise ConfigurationError(
                f"@tool decorates functions and methods, got {type(fn).__name__}: {fn!r}"
            )
        try:
            setattr(target, TOOL_SPEC_ATTRIBUTE, spec)
        except (AttributeError, TypeError) as e:
            raise ConfigurationError(
                f"@tool cannot mark {fn!r} ({type(fn).__name__}): {e}. Decorate the function "
                "where it is defined, or wrap it: FunctionToolCallback(fn, name=...)."
            ) from e
        return fn

    return decorate(function) if function is not None else decorate


def _is_method_wrapper(obj: object) -> bool:
    return isinstance(obj, staticmethod | classmethod)
