"""JSON schemas as ostinato sends them to models, built with pydantic.

One set of conventions for every schema we emit (tool arguments and, later, structured
output): no ``title`` keys; ``additionalProperties: false`` on every object node that has
``properties`` and does not say otherwise; ``$defs`` at the root only when something
refers to them; an object root always lists ``required`` (possibly empty); key order is
pydantic's (declaration order for properties), so the JSON text is deterministic.

This module does not know about functions or tools; see ``_signature`` for that. It
imports pydantic only when a schema is built, so that ``import ostinato`` stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ostinato.errors import ConfigurationError

__all__ = ["json_schema_for", "schema_to_json", "tidy_schema"]

# Keys whose value maps names to subschemas (the names themselves are data, not keywords).
_NAMED_SUBSCHEMAS = frozenset(
    {"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"}
)
_SUBSCHEMA = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
    }
)
_SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems", "items"})
_ROOT_ORDER = ("type", "description", "properties", "required", "additionalProperties")


def _tidy_node(node: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key in _NAMED_SUBSCHEMAS and isinstance(value, Mapping):
            out[key] = {
                name: _tidy_node(sub) if isinstance(sub, Mapping) else sub
                for name, sub in value.items()
            }
        elif key in _SUBSCHEMA and isinstance(value, Mapping):
            out[key] = _tidy_node(value)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [_tidy_node(sub) if isinstance(sub, Mapping) else sub for sub in value]
        else:
            out[key] = value
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def tidy_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Apply ostinato's conventions (see the module docstring) to a pydantic JSON schema.

    Returns a new dict; ``schema`` is not modified.
    """
    tidy = _tidy_node(schema)
    defs = tidy.pop("$defs", None)
    if tidy.get("type") == "object" and "properties" in tidy:
        tidy.setdefault("required", [])
        ordered = {key: tidy.pop(key) for key in _ROOT_ORDER if key in tidy}
        ordered.update(tidy)
        tidy = ordered
    if defs:
        tidy["$defs"] = defs
    return tidy


def json_schema_for(type_: Any) -> dict[str, Any]:
    """The JSON schema of any type pydantic understands, with ostinato's conventions.

    Works for pydantic models, dataclasses, ``TypedDict`` (from ``typing_extensions`` on
    Python < 3.12), enums, ``Literal``, lists, dicts, optional values and plain scalars.

    Raises:
        ConfigurationError: pydantic cannot describe ``type_``.
    """
    import pydantic  # here, not at module level: importing ostinato must stay cheap

    try:
        raw = pydantic.TypeAdapter(type_).json_schema()
    except (pydantic.PydanticUserError, TypeError, ValueError) as e:
        raise ConfigurationError(
            f"cannot build a JSON schema for {_type_name(type_)}: {e}\n"
            "Use types pydantic understands (models, dataclasses, TypedDict, enums, "
            "Literal, lists, dicts, scalars)."
        ) from e
    return tidy_schema(raw)


def schema_to_json(schema: Mapping[str, Any]) -> str:
    """``schema`` as compact, deterministic JSON text (key order kept, non-ASCII kept)."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def _type_name(type_: Any) -> str:
    return getattr(type_, "__qualname__", None) or repr(type_)
