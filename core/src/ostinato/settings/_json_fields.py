"""Which variables pydantic-settings reads as JSON: complex fields, and nested models set whole.

A ``dict``, ``list`` or model field is decoded from JSON (``OSTINATO_OPENAI_EXTRA_HEADERS=
'{"X-Team": "a"}'``) unless it is marked ``NoDecode`` (comma-separated lists); with a
nested delimiter a nested model may be set whole (``OSTINATO_TOOLS='{...}'``) or field by
field (``OSTINATO_TOOLS__MAX_ITERATIONS=5``, read as text).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode

__all__ = ["json_variables"]


def _json_kind(annotation: Any, metadata: Iterable[Any] = ()) -> str | None:
    """``"a JSON object ..."`` / ``"a JSON array ..."`` when the type is read as JSON."""
    if any(m is NoDecode or isinstance(m, NoDecode) for m in metadata):
        return None
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        return _json_kind(inner, extra)
    if origin in (typing.Union, types.UnionType):
        # A union with a plain member (``str | dict``) takes text that is not JSON as is.
        kinds = [_json_kind(a) for a in typing.get_args(annotation) if a is not type(None)]
        return kinds[0] if kinds and None not in kinds else None
    target = origin or annotation
    if isinstance(target, type) and issubclass(target, BaseModel | Mapping):
        return 'a JSON object ({"name": value, ...})'
    if isinstance(target, type) and issubclass(target, list | tuple | set | frozenset):
        return "a JSON array ([value, ...])"
    return None


def _nested(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        models = [m for a in typing.get_args(annotation) if (m := _nested(a)) is not None]
        return models[0] if len(models) == 1 else None
    return None


def _names(info: FieldInfo, default: str) -> tuple[str, ...]:
    alias = info.validation_alias
    if isinstance(alias, str):
        return (alias.upper(),)
    if isinstance(alias, AliasChoices):
        return tuple(c.upper() for c in alias.choices if isinstance(c, str)) or (default,)
    return (default,)


def json_variables(
    settings_class: type[BaseSettings], names: Iterable[str]
) -> Iterator[tuple[str, str]]:
    """``(variable, what it must hold)`` for each of ``names`` (upper case) that
    ``settings_class`` reads as JSON."""
    config = settings_class.model_config
    prefix = (config.get("env_prefix") or "").upper()
    delimiter = (config.get("env_nested_delimiter") or "").upper()
    present = sorted(set(names))

    def walk(model: type[BaseModel], variable: str, info: FieldInfo) -> Iterator[tuple[str, str]]:
        kind = _json_kind(info.annotation, info.metadata)
        if kind is not None and variable in present:
            yield variable, kind
        nested = _nested(info.annotation)
        if nested is None or not delimiter:
            return
        for name, child in nested.model_fields.items():
            yield from walk(nested, f"{variable}{delimiter}{name.upper()}", child)

    for name, info in settings_class.model_fields.items():
        for variable in _names(info, f"{prefix}{name.upper()}"):
            yield from walk(settings_class, variable, info)
