"""Rendering the advisors' prompt templates: ``{name}`` placeholders replaced in one pass,
so braces in documents or questions are never read as placeholders."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["check_template", "render"]

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def render(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced (others left as they are)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def check_template(template: object, required: Sequence[str], what: str) -> str:
    """``template``, checked to be a str holding every ``{name}`` of ``required``.

    Raises:
        TypeError: not a str.
        ValueError: a placeholder is missing (the message names it).
    """
    if not isinstance(template, str):
        raise TypeError(f"{what} must be a str, got {type(template).__name__}")
    missing = [f"{{{name}}}" for name in required if f"{{{name}}}" not in template]
    if missing:
        raise ValueError(
            f"{what} lacks {' and '.join(missing)}: {template!r}\n"
            f"fix: include {', '.join(f'{{{n}}}' for n in required)}"
        )
    return template
