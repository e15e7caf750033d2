"""Prompt templates: text with ``{name}`` placeholders, filled in when a request is built.

``PromptTemplate("Tell me about {topic}").render(topic="owls")`` gives
``"Tell me about owls"``. ``{{`` and ``}}`` write literal braces. A placeholder is a plain
name and nothing else: attribute or index access (``{user.name}``, ``{items[0]}``),
conversions (``{x!r}``), format specs (``{x:>10}``) and positional fields (``{}``,
``{0}``) are refused when the template is made, so a template taken from users can never
reach into the objects given to it. Rendering names every missing and every unused
parameter. This module must not import anything above :mod:`ostinato.errors`.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ostinato.errors import PromptTemplateError

__all__ = ["PromptTemplate"]

_PARSER = string.Formatter()


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A reusable prompt text with ``{name}`` placeholders (``{{``/``}}`` for braces).

    Give it to ``.user(...)``, ``.system(...)`` or the builder's ``default_user`` /
    ``default_system`` together with the parameters, or call :meth:`render` yourself.
    Made once, it is checked once: a malformed template raises
    :class:`~ostinato.errors.PromptTemplateError` here, not at the first request.
    """

    text: str
    placeholders: frozenset[str] = field(init=False, compare=False, repr=False)
    """The names the template needs, each once."""
    _pieces: tuple[tuple[str, str | None], ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"a prompt template is a str, got {type(self.text).__name__}")
        pieces = _parse(self.text)
        object.__setattr__(self, "_pieces", pieces)
        object.__setattr__(self, "placeholders", frozenset(n for _, n in pieces if n))

    def render(self, params: Mapping[str, Any] | None = None, /, **values: Any) -> str:
        """The text with every placeholder replaced by ``str(value)``.

        Parameters come as a mapping, as keywords, or both (keywords win). Every
        placeholder needs a value and every value needs a placeholder; otherwise
        :class:`~ostinato.errors.PromptTemplateError` names the ones at fault.
        """
        given = {**params, **values} if params else values
        missing = self.placeholders.difference(given)
        unused = set(given).difference(self.placeholders)
        if missing or unused:
            raise PromptTemplateError(_mismatch(self.text, missing, unused))
        return "".join(
            literal if name is None else literal + str(given[name])
            for literal, name in self._pieces
        )


def template_for(text: str) -> PromptTemplate:
    """The template for ``text``, parsed once per distinct text (requests repeat them)."""
    return _cached(text)


@lru_cache(maxsize=256)
def _cached(text: str) -> PromptTemplate:
    return PromptTemplate(text)


def _parse(text: str) -> tuple[tuple[str, str | None], ...]:
    try:
        parsed = list(_PARSER.parse(text))
    except ValueError as error:
        raise PromptTemplateError(
            f"the prompt template {_excerpt(text)} is malformed: {error}\n"
            "write {{ and }} for literal braces"
        ) from error
    pieces: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in parsed:
        if name is None:
            pieces.append((literal, None))
            continue
        field_text = (
            "{"
            + name
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
        if not name.isidentifier() or conversion or spec:
            raise PromptTemplateError(
                f"the prompt template {_excerpt(text)} has the placeholder {field_text}; "
                "expected a plain name such as {topic}\n"
                "attribute and index access, conversions, format specs and positional "
                "fields are not supported: compute the value before passing it, or write "
                "{{ and }} for literal braces"
            )
        pieces.append((literal, name))
    return tuple(pieces)


def _mismatch(text: str, missing: set[str] | frozenset[str], unused: set[str]) -> str:
    lines = [f"the prompt template {_excerpt(text)} does not match its parameters"]
    if missing:
        lines.append(f"missing parameter(s): {', '.join(sorted(missing))}")
    if unused:
        lines.append(f"unused parameter(s): {', '.join(sorted(unused))}")
    lines.append("pass exactly one value for each {name} in the text")
    return "\n".join(lines)


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:59] + "…")
