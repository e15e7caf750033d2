"""Read a tool function's docstring: its summary and its parameter descriptions.

Understands the three common styles: Google (``Args:``), reST (``:param x: text``) and
NumPy (``Parameters`` underlined with dashes). It never fails: text it does not recognise
simply yields no descriptions. It must not import pydantic or anything of ostinato.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["ParsedDocstring", "parse_docstring"]

_GOOGLE_PARAM_HEADERS = frozenset(
    {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
)
_GOOGLE_HEADER = re.compile(r"^(?P<title>[A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}(?P<name>\w+)\s*(?:\([^)]*\))?\s*:(?:\s+(?P<text>.*))?$")
_REST_FIELD = re.compile(r"^:(?P<kind>\w+)(?:\s+(?P<rest>[^:]*))?:(?:\s*(?P<text>.*))?$")
_NUMPY_UNDERLINE = re.compile(r"^-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}(?P<name>\w+)(?:\s*:.*)?$")
_NUMPY_PARAM_HEADERS = frozenset({"parameters", "other parameters", "keyword arguments"})
_GOOGLE_SECTIONS = _GOOGLE_PARAM_HEADERS | {
    "attributes",
    "example",
    "examples",
    "note",
    "notes",
    "other parameters",
    "raises",
    "return",
    "returns",
    "see also",
    "todo",
    "warning",
    "warnings",
    "yield",
    "yields",
}


@dataclass(frozen=True, slots=True)
class ParsedDocstring:
    """What a docstring says about a tool.

    Attributes:
        summary: the first paragraph, its lines joined by spaces (``""`` when none).
        params: parameter name → description, for every documented parameter.
    """

    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Parse ``doc`` (raw ``__doc__``, indentation included) into summary and parameters."""
    if not doc or not doc.strip():
        return ParsedDocstring()
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    params.update(_numpy_params(lines))
    params.update(_google_params(lines))
    params.update(_rest_params(lines))
    return ParsedDocstring(_summary(lines), params)


def _is_section_start(lines: list[str], i: int) -> bool:
    line = lines[i].strip()
    if line.startswith(":") and _REST_FIELD.match(line):
        return True
    header = _GOOGLE_HEADER.match(line)
    if header and header["title"].strip().lower() in _GOOGLE_SECTIONS:
        return True
    return i + 1 < len(lines) and bool(line) and bool(_NUMPY_UNDERLINE.match(lines[i + 1]))


def _summary(lines: list[str]) -> str:
    summary: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() or _is_section_start(lines, i):
            if summary:
                break
            if line.strip():
                return ""
            continue
        summary.append(line.strip())
    return " ".join(summary)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p for p in (s.strip() for s in parts) if p)


def _google_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        header = _GOOGLE_HEADER.match(lines[i].strip())
        if not header or header["title"].strip().lower() not in _GOOGLE_PARAM_HEADERS:
            i += 1
            continue
        base = _indent(lines[i])
        entry_indent: int | None = None
        current: str | None = None
        parts: list[str] = []
        i += 1
        while i < len(lines):
            line = lines[i]
            if line.strip() and _indent(line) <= base:
                break
            if line.strip():
                indent = _indent(line)
                if entry_indent is None:
                    entry_indent = indent
                entry = _GOOGLE_ENTRY.match(line.strip()) if indent == entry_indent else None
                if entry:
                    if current is not None:
                        params[current] = _join(parts)
                    current, parts = entry["name"], [entry["text"] or ""]
                elif current is not None:
                    parts.append(line)
            i += 1
        if current is not None:
            params[current] = _join(parts)
    return params


def _rest_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    parts: list[str] = []
    for line in lines:
        match = _REST_FIELD.match(line.strip())
        if match:
            if current is not None:
                params[current] = _join(parts)
            current, parts = None, []
            rest = (match["rest"] or "").split()
            if match["kind"] in ("param", "parameter", "arg", "argument", "key") and rest:
                current, parts = rest[-1], [match["text"] or ""]
        elif current is not None:
            if line.strip() and not line.startswith((" ", "\t")):
                params[current] = _join(parts)
                current, parts = None, []
            else:
                parts.append(line)
    if current is not None:
        params[current] = _join(parts)
    return params


def _numpy_params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    i = 0
    while i + 1 < len(lines):
        if not (
            lines[i].strip().lower() in _NUMPY_PARAM_HEADERS
            and _NUMPY_UNDERLINE.match(lines[i + 1])
        ):
            i += 1
            continue
        base = _indent(lines[i])
        current: str | None = None
        parts: list[str] = []
        i += 2
        while i < len(lines):
            line = lines[i]
            if i + 1 < len(lines) and _NUMPY_UNDERLINE.match(lines[i + 1]) and line.strip():
                break  # the next section's title
            if line.strip() and _indent(line) == base:
                entry = _NUMPY_ENTRY.match(line.strip())
                if current is not None:
                    params[current] = _join(parts)
                current, parts = (entry["name"], []) if entry else (None, [])
            elif current is not None:
                parts.append(line)
            i += 1
        if current is not None:
            params[current] = _join(parts)
    return params
