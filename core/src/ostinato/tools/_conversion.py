"""Turn whatever a tool function returned into the text the model reads.

Rules, in order: ``None`` → :data:`DONE_RESULT`; a string → itself (unquoted, unlike the
reference, which JSON-quotes plain strings); an enum member → its value; a pydantic model
→ ``model_dump_json()``; anything JSON can express (dicts, lists, tuples, numbers, bools,
dataclasses, and those nested) → ``json.dumps`` with non-ASCII kept; anything else →
``str(value)``. Inside containers, values JSON cannot express (dates, UUIDs, sets,
paths...) become their ``str``/list form rather than failing.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["DONE_RESULT", "tool_result_to_text"]

#: What the model reads when a tool returns ``None``: the call happened and succeeded.
DONE_RESULT: Final = "Done"

_JSON_TYPES = (dict, list, tuple, int, float, bool)


def _pydantic_model(value: object) -> Any:
    """``value`` if it is a pydantic model, else ``None`` (without importing pydantic)."""
    pydantic = sys.modules.get("pydantic")  # not imported: value cannot be a model
    return value if pydantic is not None and isinstance(value, pydantic.BaseModel) else None


def _json_default(value: Any) -> Any:
    if (model := _pydantic_model(value)) is not None:
        return model.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, Mapping):
        return dict(value)
    return str(value)


# json.dumps with arguments builds an encoder per call: one kept encoder writes the same text.
_ENCODE: Final = json.JSONEncoder(ensure_ascii=False, default=_json_default).encode


def tool_result_to_text(value: object) -> str:
    """The text the model reads for a tool's return ``value`` (see the module docstring)."""
    if value is None:
        return DONE_RESULT
    kind = type(value)  # the common plain types first, without a look at pydantic or ABCs
    if kind is str:
        return value  # type: ignore[return-value]  # exactly a str
    if kind is int:
        return int.__repr__(value)  # what json.dumps writes
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, str):
        return str.__str__(value)  # plain text even for str subclasses
    if (model := _pydantic_model(value)) is not None:
        return str(model.model_dump_json())
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if isinstance(value, _JSON_TYPES) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        try:
            return _ENCODE(value)
        except (TypeError, ValueError):  # e.g. tuple keys or a circular structure
            pass
    return str(value)
