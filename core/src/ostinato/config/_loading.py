"""Loading settings classes, with errors and warnings that name environment variables.

A pydantic ``ValidationError`` speaks of fields (``tools.max_iterations``); users set
variables (``OSTINATO_TOOLS__MAX_ITERATIONS``). :func:`load_settings` raises one
:class:`~ostinato.errors.ConfigurationError` listing every bad variable with its value
(never a secret's) and what was expected. :func:`warn_unknown_variables` catches
misspelled ``OSTINATO_*`` names.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from ostinato.config._fields import (
    SECRET_MASK,
    SettingField,
    env_file_values,
    environment,
    setting_fields,
)
from ostinato.errors import ConfigurationError

__all__ = [
    "PluginSettings",
    "UnknownSettingWarning",
    "load_settings",
    "problems_message",
    "validation_problems",
    "warn_unknown_variables",
]

S = TypeVar("S", bound=BaseSettings)

_UNSET: Any = object()


class UnknownSettingWarning(UserWarning):
    """An ``OSTINATO_*`` variable that no settings class reads (probably misspelled)."""


class PluginSettings(BaseSettings):
    """A convenient base for a plugin's settings: reads ``.env``, ignores other variables.

    Subclasses set their flat prefix::

        class AcmeSettings(PluginSettings):
            model_config = SettingsConfigDict(env_prefix="OSTINATO_ACME_")

            api_key: SecretStr | None = None
    """

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )


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


def _owner(settings_class: type[BaseSettings]) -> str:
    return "ostinato" if settings_class.__name__ == "Settings" else settings_class.__name__


def problems_message(problems: Sequence[str], owner: str = "ostinato") -> str:
    """The message of a :class:`ConfigurationError` listing ``problems`` (indented lines)."""
    n = len(problems)
    verb = "has a bad value" if n == 1 else "have bad values"
    return (
        f"{n} {owner} setting{'s' if n != 1 else ''} {verb}:\n"
        + "\n".join(problems)
        + "\nfix: correct or unset these variables (in the environment or .env)"
    )


def load_settings(settings_class: type[S], *, env_file: Any = _UNSET) -> S:
    """Instantiate ``settings_class`` from the environment (and ``.env``).

    Args:
        settings_class: a pydantic-settings class (core's :class:`Settings` or a plugin's).
        env_file: the ``.env`` file(s) to read instead of the class's own (``None``: none).

    Raises:
        ConfigurationError: one or more variables have bad values; the message lists
            each by variable name, with its value (masked for secrets) and what was
            expected.
    """
    try:
        if env_file is _UNSET:
            return settings_class()
        return settings_class(_env_file=env_file)
    except ValidationError as exc:
        dotenv = env_file_values(settings_class, None if env_file is _UNSET else env_file)
        problems = validation_problems(settings_class, exc, environ=environment(), dotenv=dotenv)
        raise ConfigurationError(problems_message(problems, _owner(settings_class))) from None


def warn_unknown_variables(
    fields: Iterable[SettingField], names: Iterable[str], *, stacklevel: int = 2
) -> list[str]:
    """Warn about each ``OSTINATO_*`` name in ``names`` that no settings field reads.

    Args:
        fields: every known field: core's and those of every registered plugin settings
            class (so a misspelling under a plugin's prefix is caught too).
        names: the variable names to check (environment and ``.env``), upper case.
        stacklevel: passed to :func:`warnings.warn`.

    Returns:
        The unknown names, each of which got an :class:`UnknownSettingWarning` naming the
        closest known variable.
    """
    known = {name for f in fields for name in f.env_names}
    # A nested model may also be set whole, as JSON (OSTINATO_TOOLS='{"...": 1}').
    for name in list(known):
        parts = name.split("__")
        known |= {"__".join(parts[:i]) for i in range(1, len(parts))}
    candidates = sorted(n for n in known if n.startswith("OSTINATO_"))
    unknown = sorted(n for n in set(names) if n.startswith("OSTINATO_") and n not in known)
    for name in unknown:
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]}?" if close else "see `ostinato config` for the variables"
        warnings.warn(
            f"{name} is set, but no ostinato setting reads it\n{hint}",
            UnknownSettingWarning,
            stacklevel=stacklevel,
        )
    return unknown
