"""Setting problems as users see them: one line per variable, never a secret.

A pydantic ``ValidationError`` speaks of fields (``tools.max_iterations``); users set
variables (``OSTINATO_TOOLS__MAX_ITERATIONS``). These functions turn each problem into
``VARIABLE='value': expected ...`` and gather the lines into the message of one
:class:`~ostinato.errors.ConfigurationError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from ostinato.settings._fields import SECRET_MASK, SettingField, setting_fields

__all__ = ["problems_message", "validation_problems"]


def _field_for(loc: tuple[int | str, ...], fields: Sequence[SettingField]) -> SettingField | None:
    best: SettingField | None = None
    for field in fields:
        keys = [field.path] + [(alias,) for alias in field.env_names]
        for key in keys:
            head = tuple(str(p).upper() for p in loc[: len(key)])
            if head == tuple(k.upper() for k in key) and (
                best is None or len(key) > len(best.path)
            ):
                best = field
    return best


def _expected(error: Mapping[str, Any]) -> str:
    """``expected a valid integer``, or pydantic's own sentence when it is not one."""
    message = str(error.get("msg", "")) or "a valid value"
    for lead in ("Input should be ", "Value error, ", "Assertion failed, "):
        if message.startswith(lead):
            return f"expected {message[len(lead) :]}"
    return message[:1].lower() + message[1:]


def validation_problems(
    settings_class: type[BaseSettings],
    error: ValidationError,
    *,
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> list[str]:
    """One line per problem of ``error``: ``VARIABLE='value': expected ...``."""
    fields = setting_fields(settings_class)
    lines = []
    for item in error.errors(include_url=False):
        loc = tuple(item.get("loc", ()))
        field = _field_for(loc, fields)
        if field is None:
            where = ".".join(str(p) for p in loc) or settings_class.__name__
            lines.append(f"  {where}: {_expected(item)}")
            continue
        variable = next((n for n in field.env_names if n in environ or n in dotenv), None)
        name = variable or field.env_name
        raw = environ.get(name, dotenv.get(name)) if variable else item.get("input")
        shown = SECRET_MASK if field.secret else repr(raw)
        origin = " (from .env)" if variable and variable not in environ else ""
        lines.append(f"  {name}={shown}{origin}: {_expected(item)}")
    return list(dict.fromkeys(lines))


def problems_message(problems: Sequence[str], owner: str = "ostinato") -> str:
    """The message of a :class:`ConfigurationError` listing ``problems`` (indented lines)."""
    n = len(problems)
    verb = "has a bad value" if n == 1 else "have bad values"
    return (
        f"{n} {owner} setting{'s' if n != 1 else ''} {verb}:\n"
        + "\n".join(problems)
        + "\nfix: correct or unset these variables (in the environment or .env)"
    )
