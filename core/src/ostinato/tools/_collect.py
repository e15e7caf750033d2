"""``tool_callbacks(...)``: turn functions, objects and callbacks into ``ToolCallback``\\ s.

The Python face of Spring's ``ToolCallbacks.from(...)``. Declaration order is kept, and
two tools with one name are refused here, where the user can still see where each came
from.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any

from ostinato._tool_contract import ToolCallback, ToolCallbackProvider
from ostinato.errors import ConfigurationError
from ostinato.prompt import accept_tool_sources
from ostinato.tools._decorator import tool_spec_of
from ostinato.tools._function import FunctionToolCallback

__all__ = ["tool_callbacks"]


def _where(obj: object) -> str:
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if isinstance(qualname, str):
        return f"{module}.{qualname}" if module else qualname
    return type(obj).__name__


def _is_function_like(obj: object) -> bool:
    return (
        inspect.isfunction(obj)
        or inspect.ismethod(obj)
        or inspect.isbuiltin(obj)
        or isinstance(obj, functools.partial | staticmethod)
    )


def _methods_of(obj: object) -> list[tuple[Any, str]]:
    """The ``@tool`` members of an object, class or module, bound, in declaration order."""
    if isinstance(obj, types.ModuleType):
        return [
            (value, _where(value))
            for value in vars(obj).values()
            if tool_spec_of(value) is not None and callable(value)
        ]
    owner = obj if isinstance(obj, type) else type(obj)
    names: dict[str, None] = {}
    for klass in reversed(owner.__mro__):
        names.update(dict.fromkeys(vars(klass)))
    if not isinstance(obj, type):
        names.update(dict.fromkeys(getattr(obj, "__dict__", {})))
    found: list[tuple[Any, str]] = []
    for name in names:
        try:
            raw = inspect.getattr_static(obj, name)
        except AttributeError:
            continue
        if tool_spec_of(raw) is None:
            continue
        if isinstance(obj, type) and inspect.isfunction(raw):
            raise ConfigurationError(
                f"@tool method {owner.__name__}.{name} needs an instance: pass "
                f"{owner.__name__}() to tool_callbacks(), not the class {owner.__name__}"
            )
        found.append((getattr(obj, name), f"{owner.__name__}.{name}"))
    return found


def tool_callbacks(*sources: object) -> list[ToolCallback]:
    """Turn functions, objects and callbacks into tool callbacks, in the order given.

    Each source may be:

    * a ``ToolCallback`` (passed through) or a ``ToolCallbackProvider`` (its callbacks);
    * a function, method or ``functools.partial``, decorated with ``@tool`` or not (then
      with default settings);
    * an object, a class (for static and class methods) or a module: every member
      decorated with ``@tool``, bound, in declaration order (base classes first).

    Raises:
        ConfigurationError: an object has no ``@tool`` members; two tools share a name
            (the message says where each came from); a function cannot be a tool.
    """
    collected: list[tuple[ToolCallback, str]] = []
    for source in sources:
        if not isinstance(source, type) and isinstance(source, ToolCallback):
            collected.append((source, repr(source)))
        elif (
            not isinstance(source, type | types.ModuleType)
            and isinstance(source, ToolCallbackProvider)
            and not _is_function_like(source)
        ):
            collected.extend(
                (cb, f"{_where(source)} provider") for cb in source.get_tool_callbacks()
            )
        elif _is_function_like(source) or (
            callable(source) and not isinstance(source, type) and tool_spec_of(source)
        ):
            collected.append((FunctionToolCallback(source), _where(source)))  # type: ignore[arg-type]
        else:
            members = _methods_of(source)
            if not members:
                kind = source.__name__ if isinstance(source, type) else type(source).__name__
                raise ConfigurationError(
                    f"No @tool methods found on {kind} ({source!r}). Decorate the methods "
                    "the model may call with @tool, or pass functions or ToolCallbacks."
                )
            collected.extend((FunctionToolCallback(fn), where) for fn, where in members)
    _check_unique(collected)
    return [cb for cb, _ in collected]


def _check_unique(collected: list[tuple[ToolCallback, str]]) -> None:
    origins: dict[str, list[str]] = {}
    for cb, where in collected:
        origins.setdefault(cb.tool_definition.name, []).append(where)
    duplicates = {name: wheres for name, wheres in origins.items() if len(wheres) > 1}
    if duplicates:
        lines = "\n".join(f"  '{name}': {', '.join(wheres)}" for name, wheres in duplicates.items())
        raise ConfigurationError(
            f"Multiple tools with the same name ({', '.join(repr(n) for n in duplicates)}):\n"
            f"{lines}\nGive each tool a unique name with @tool(name=...)."
        )


# ToolCallingChatOptions(tool_callbacks=...) takes @tool functions and objects as .tools() does.
accept_tool_sources(tool_callbacks)
