"""Reading recorded spans as trees."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["by_name", "tree"]


def tree(spans: Sequence[ReadableSpan]) -> list[Any]:
    """Each root as ``(name, kind, [children...])``, children in start order."""
    ids = {s.context.span_id for s in spans}

    def node(span: ReadableSpan) -> tuple[str, str, list[Any]]:
        children = sorted(
            (s for s in spans if s.parent is not None and s.parent.span_id == span.context.span_id),
            key=lambda s: (s.start_time or 0, s.name),
        )
        return (span.name, span.kind.name, [node(c) for c in children])

    roots = [s for s in spans if s.parent is None or s.parent.span_id not in ids]
    return [node(r) for r in sorted(roots, key=lambda s: s.start_time or 0)]


def by_name(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans called ``name``, in start order."""
    return sorted((s for s in spans if s.name == name), key=lambda s: s.start_time or 0)
