"""Setting problems as users see them: one line per variable, never a secret.

A pydantic ``ValidationError`` speaks of fields (``tools.max_iterations``), and
pydantic-settings' ``SettingsError`` (a value that is not JSON where JSON is read) names
only the field; users set variables (``OSTINATO_TOOLS__MAX_ITERATIONS``). These functions
turn each problem into ``VARIABLE='value': expected ...`` and gather the lines into the
message of one :class:`~ostinato.errors.ConfigurationError`. A value is shown with its
credentials masked (:mod:`ostinato.redaction`): a secret field's value entirely, and in
any other value whatever looks like a credential, even inside unparseable JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from ostinato.redaction import Redactor
from ostinato.settings._fields import SECRET_MASK, SettingField, masked_text, setting_fields
from ostinato.settings._json_fields import json_variables

__all__ = [
    "json_problems",
    "problems_message",
    "secret_values",
    "shown_value",
    "validation_problems",
]


def secret_values(
    settings_class: type[BaseSettings], environ: Mapping[str, str], dotenv: Mapping[str, str]
) -> list[str]:
    """The values of the secret fields of ``settings_class`` set in the environment or ``.env``
    (masked wherever they appear in another value too)."""
    return [
        value
        for field in setting_fields(settings_class)
        if field.secret
        for name in field.env_names
        if (value := environ.get(name, dotenv.get(name)))
    ]


def shown_value(raw: object, *, secret: bool, secrets: Iterable[str] = ()) -> str:
    """``raw`` as a message shows it: ``**********`` for a secret, otherwise its repr with
    every credential in it masked (the ``secrets`` given, and whatever looks like one)."""
    if secret:
        return SECRET_MASK
    redactor = Redactor(secrets)
    if isinstance(raw, str):
        return repr(redactor.mask(masked_text(raw)))
    return redactor.mask(masked_text(repr(raw)))


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
    secrets = secret_values(settings_class, environ, dotenv)
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
        shown = shown_value(raw, secret=field.secret, secrets=secrets)
        origin = " (from .env)" if variable and variable not in environ else ""
        lines.append(f"  {name}={shown}{origin}: {_expected(item)}")
    return list(dict.fromkeys(lines))


def json_problems(
    settings_class: type[BaseSettings],
    *,
    environ: Mapping[str, str],
    dotenv: Mapping[str, str],
) -> list[str]:
    """One line per variable whose value must be JSON and is not: ``VARIABLE='value':
    expected a JSON object ...`` (pydantic-settings stops at the first with a
    ``SettingsError`` naming only the field; this finds every one, by variable)."""
    secrets = secret_values(settings_class, environ, dotenv)
    lines = []
    for variable, expected in json_variables(settings_class, [*environ, *dotenv]):
        raw = environ.get(variable, dotenv.get(variable))
        if raw is None:
            continue
        try:
            json.loads(raw)
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            shown = shown_value(raw, secret=False, secrets=secrets)
            origin = " (from .env)" if variable not in environ else ""
            lines.append(
                f"  {variable}={shown}{origin}: expected {expected}; it is not valid JSON "
                f"({reason[:1].lower()}{reason[1:]})"
            )
    return lines


def problems_message(problems: Sequence[str], owner: str = "ostinato") -> str:
    """The message of a :class:`ConfigurationError` listing ``problems`` (indented lines)."""
    n = len(problems)
    verb = "has a bad value" if n == 1 else "have bad values"
    return (
        f"{n} {owner} setting{'s' if n != 1 else ''} {verb}:\n"
        + "\n".join(problems)
        + "\nfix: correct or unset these variables (in the environment or .env)"
    )
