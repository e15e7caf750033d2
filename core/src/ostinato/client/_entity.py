"""Structured output for ``call().entity(type)``: format instructions and parsing."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from ostinato.errors import OutputParsingError

__all__ = ["EntityConverter"]

T = TypeVar("T")

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class EntityConverter:
    """Turns a Python type into format instructions for the model, and the model's JSON
    answer back into an instance of that type (validated by pydantic)."""

    __slots__ = ("_adapter", "_wrapped", "output_type", "schema")

    def __init__(self, output_type: Any, *, native: bool = False) -> None:
        from pydantic import TypeAdapter

        from ostinato.tools import json_schema_for

        self.output_type = output_type
        self._adapter: Any = TypeAdapter(output_type)
        schema = json_schema_for(output_type)
        # Providers enforce only object schemas; any other answer travels as {"value": ...}.
        self._wrapped = native and schema.get("type") != "object"
        self.schema: dict[str, Any] = _wrapped_schema(schema) if self._wrapped else schema

    @property
    def format_instructions(self) -> str:
        """Text appended to the user message asking for JSON matching the schema."""
        schema = json.dumps(self.schema, ensure_ascii=False)
        return (
            "Answer with JSON only: one value that conforms to the JSON Schema below, "
            "with no explanation before or after it and no Markdown code fences.\n"
            f"JSON Schema:\n{schema}"
        )

    def convert(self, text: str | None) -> Any:
        """Parse and validate ``text`` (code fences around it are tolerated)."""
        if text is None or not text.strip():
            raise OutputParsingError(
                f"the model returned no text to convert to {_type_name(self.output_type)}",
                text=text,
            )
        body = strip_code_fence(text)
        try:
            if self._wrapped:
                return self._adapter.validate_python(_unwrapped(body))
            return self._adapter.validate_json(body)
        except ValueError as error:
            excerpt = body if len(body) <= 200 else body[:199] + "…"
            raise OutputParsingError(
                f"the model's answer is not a valid {_type_name(self.output_type)}: {error}\n"
                f"answer: {excerpt!r}",
                text=text,
            ) from error


def strip_code_fence(text: str) -> str:
    """``text`` without a surrounding Markdown code fence (```json ... ```)."""
    match = _FENCE.match(text)
    return match.group(1) if match else text.strip()


def _wrapped_schema(schema: dict[str, Any]) -> dict[str, Any]:
    inner = dict(schema)
    wrapper: dict[str, Any] = {
        "type": "object",
        "properties": {"value": inner},
        "required": ["value"],
        "additionalProperties": False,
    }
    if "$defs" in inner:  # references are from the root: the definitions move up with it
        wrapper["$defs"] = inner.pop("$defs")
    return wrapper


def _unwrapped(body: str) -> Any:
    value = json.loads(body)
    if not isinstance(value, dict) or set(value) != {"value"}:
        raise ValueError('expected a JSON object {"value": ...} (native structured output)')
    return value["value"]


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)
