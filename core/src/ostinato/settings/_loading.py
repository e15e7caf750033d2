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
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict, SettingsError

from ostinato.errors import ConfigurationError
from ostinato.settings._fields import SettingField, env_file_values, environment
from ostinato.settings._problems import json_problems, problems_message, validation_problems

__all__ = [
    "PluginSettings",
    "UnknownSettingWarning",
    "load_settings",
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


def _owner(settings_class: type[BaseSettings]) -> str:
    return "ostinato" if settings_class.__name__ == "Settings" else settings_class.__name__


def load_settings(settings_class: type[S], *, env_file: Any = _UNSET) -> S:
    """Instantiate ``settings_class`` from the environment (and ``.env``).

    Args:
        settings_class: a pydantic-settings class (core's :class:`Settings` or a plugin's).
        env_file: the ``.env`` file(s) to read instead of the class's own (``None``: none).

    Raises:
        ConfigurationError: one or more variables have bad values (not valid JSON where
            JSON is read, or invalid); the message lists each by variable name, with its
            value (a secret's masked, and credentials inside any value) and what was
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
    except SettingsError as exc:
        # Raised while decoding a JSON value, before validation; it names only the field.
        dotenv = env_file_values(settings_class, None if env_file is _UNSET else env_file)
        problems = json_problems(settings_class, environ=environment(), dotenv=dotenv) or [
            f"  {settings_class.__name__}: {str(exc).partition(chr(10))[0]}"
        ]
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
