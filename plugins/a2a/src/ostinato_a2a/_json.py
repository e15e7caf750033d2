"""JSON values read back from A2A data parts and metadata."""

from __future__ import annotations

from typing import Any

__all__ = ["narrowed"]


def narrowed(value: Any) -> Any:
    """``value`` with its whole floats made ints again: a protobuf ``Value`` keeps every
    number as a double, so ``5`` sent comes back ``5.0``."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [narrowed(v) for v in value]
    if isinstance(value, dict):
        return {k: narrowed(v) for k, v in value.items()}
    return value
