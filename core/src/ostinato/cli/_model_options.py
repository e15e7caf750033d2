"""``-o key=value``: model options from the command line, checked against the model.

Each key must be a field of the model's options class (``type(model.default_options)``:
``ChatOptions`` or a provider's subclass); each value is converted to that field's type
(``temperature=0.2`` a float, ``max_tokens=50`` an int, ``stop_sequences=END,STOP`` a
tuple, anything else JSON or text). A misspelt key or a value of the wrong type is a
:class:`~ostinato.errors.ConfigurationError` naming the known keys; nothing is sent.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Sequence
from typing import Any

from ostinato.config._provider_hint import nearest
from ostinato.errors import ConfigurationError
from ostinato.prompt import ChatOptions

__all__ = ["model_options"]

_INTERNAL = frozenset({"tool_callbacks", "tool_context", "internal_tool_execution_enabled"})


def _hints(cls: type) -> dict[str, Any]:
    """The field types of ``cls``, class by class along its bases (a base whose
    annotations name what is not importable here keeps its fields untyped: ``Any``)."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        try:
            hints.update(typing.get_type_hints(klass))
        except Exception:  # names under TYPE_CHECKING: JSON or text for those fields
            hints.update(dict.fromkeys(inspect.get_annotations(klass), Any))
    return hints


def _fields(options: ChatOptions) -> dict[str, Any]:
    hints = _hints(type(options))
    return {
        f.name: hints.get(f.name, Any)
        for f in dataclasses.fields(options)
        if f.init and f.name not in _INTERNAL and not f.name.startswith("_")
    }


def _plain(hint: Any) -> Any:
    """``float | None`` -> ``float``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(hint) if a is not type(None)]
        return kept[0] if len(kept) == 1 else Any
    return hint


def _convert(raw: str, hint: Any) -> Any:
    kind = _plain(hint)
    origin = typing.get_origin(kind) or kind
    if kind is bool:
        if raw.lower() in ("true", "1", "yes", "on"):
            return True
        if raw.lower() in ("false", "0", "no", "off"):
            return False
        raise ValueError("true or false")
    if kind in (int, float, str):
        return kind(raw)
    if origin in (tuple, list):
        if raw.startswith("["):
            return origin(json.loads(raw))
        return origin(part for part in raw.split(",") if part)
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _type_name(hint: Any) -> str:
    kind = _plain(hint)
    return getattr(kind, "__name__", str(kind)).replace("typing.", "")


def model_options(pairs: Sequence[str], defaults: ChatOptions, provider: str) -> ChatOptions | None:
    """The options ``-o key=value`` pairs set, as the model's own options class (``None``
    without pairs).

    Raises:
        ConfigurationError: a pair is not ``key=value``, the key is not an option of the
            model, or the value does not convert to the option's type.
    """
    if not pairs:
        return None
    fields = _fields(defaults)
    known = ", ".join(sorted(fields))
    cls = type(defaults).__name__
    changes: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ConfigurationError(
                f"-o {pair!r} is not an option=value pair\n"
                "fix: e.g. -o temperature=0.2 -o max_tokens=200"
            )
        if key not in fields:
            close = nearest(key, fields)
            hint = f" (did you mean {close}?)" if close else ""
            raise ConfigurationError(
                f"-o {pair!r}: {provider} models have no option {key!r}{hint}\n"
                f"  the options of {cls}: {known}\n"
                "fix: use one of those keys"
            )
        try:
            changes[key] = _convert(raw.strip(), fields[key])
        except ValueError as exc:
            raise ConfigurationError(
                f"-o {pair!r}: {key} takes {_type_name(fields[key])}, got {raw!r}\n"
                f"fix: e.g. -o {key}=..., a value of that type"
            ) from exc
    try:
        return defaults.copy(**changes)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(
            f"-o {' '.join(pairs)}: {cls} refused them: {exc}\nfix: check the values"
        ) from exc
