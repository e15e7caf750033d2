"""The JSON side of the schema validator: how values are typed, compared and shown.

JSON's rules differ from Python's in small ways that matter to a validator: ``true`` is
not the number ``1``, ``1`` equals ``1.0``, ``3.0`` is an integer. The helpers here apply
JSON's rules, and render values and paths for the one-line messages of
:mod:`ostinato.advisors._json_schema`. Standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "child_path",
    "is_json_type",
    "is_number",
    "json_equal",
    "number_keyword",
    "show",
    "type_list",
]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MAX_SHOWN = 60


# -- rendering ------------------------------------------------------------------------------


def show(value: Any) -> str:
    """A value as it appears in messages: strings quoted like Python, the rest as JSON."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        except (TypeError, ValueError):
            text = repr(value)
    if len(text) > _MAX_SHOWN:
        text = text[: _MAX_SHOWN - 3] + "..."
    return text


def child_path(path: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``path`` (``$.a``, ``$[0]``, ``$['a b']``)."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


def type_list(names: Sequence[str]) -> str:
    """Type names as messages list them: ``'string', 'null'``."""
    return ", ".join(repr(n) for n in names)


# -- JSON semantics -------------------------------------------------------------------------


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (booleans are not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def number_keyword(schema: Mapping[str, Any], key: str) -> float | None:
    """The numeric value of keyword ``key`` of ``schema``, ``None`` when absent or not a number."""
    value = schema.get(key)
    return value if is_number(value) else None


def is_json_type(value: Any, name: str) -> bool:
    """Whether ``value`` is of JSON Schema type ``name`` (``3.0`` is an ``integer``)."""
    match name:
        case "null":
            return value is None
        case "boolean":
            return isinstance(value, bool)
        case "integer":
            if isinstance(value, bool):
                return False
            return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        case "number":
            return is_number(value)
        case "string":
            return isinstance(value, str)
        case "array":
            return isinstance(value, list | tuple)
        case "object":
            return isinstance(value, Mapping)
    return False


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``1 == 1.0`` but ``true != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)
