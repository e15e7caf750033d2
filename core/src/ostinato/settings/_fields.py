"""Settings fields as environment variables: their names, where their values came from.

pydantic-settings knows how to *read* variables; this module answers the questions it
does not: which variable a field is (for error messages and ``ostinato config``), whether
it holds a secret, and whether its value came from the environment, ``.env`` or the
default. It never prints a secret.
"""

from __future__ import annotations

import json
import os
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import AliasChoices, BaseModel, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from ostinato.redaction import is_credential_name, mask_credentials, mask_url

__all__ = [
    "SECRET_MASK",
    "SettingField",
    "SettingValue",
    "Source",
    "describe_settings",
    "describe_unloaded",
    "env_file_values",
    "environment",
    "masked_text",
    "setting_fields",
]

#: What a secret's value looks like wherever ostinato shows it.
SECRET_MASK: Final = "**********"

#: Where a value came from.
Source = Literal["env", ".env", "default"]


@dataclass(frozen=True, slots=True)
class SettingField:
    """One leaf field of a settings class, seen as environment variables.

    Attributes:
        path: the attribute path, e.g. ``("tools", "max_iterations")``.
        env_names: the variables that set it, in priority order (``OSTINATO_X``, then
            ecosystem aliases such as ``OPENAI_API_KEY``).
        secret: the value is a ``SecretStr``/``SecretBytes`` and is never shown.
        description: the field's docstring or description, if any.
    """

    path: tuple[str, ...]
    env_names: tuple[str, ...]
    secret: bool
    description: str | None

    @property
    def env_name(self) -> str:
        """The main variable (the first of :attr:`env_names`)."""
        return self.env_names[0]


@dataclass(frozen=True, slots=True)
class SettingValue:
    """A field's effective value, for ``ostinato config``.

    Attributes:
        field: the field.
        value: the value as text (secrets masked; ``""`` for unset).
        source: ``"env"``, ``".env"`` or ``"default"``.
        variable: the variable that gave the value (``None`` for the default).
    """

    field: SettingField
    value: str
    source: Source
    variable: str | None


def _is_secret(annotation: Any) -> bool:
    if annotation in (SecretStr, SecretBytes):
        return True
    return any(_is_secret(arg) for arg in typing.get_args(annotation))


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        models = [m for a in typing.get_args(annotation) if (m := _nested_model(a)) is not None]
        return models[0] if len(models) == 1 else None
    return None


def _aliases(info: FieldInfo) -> tuple[str, ...]:
    alias = info.validation_alias
    if isinstance(alias, str):
        return (alias.upper(),)
    if isinstance(alias, AliasChoices):
        return tuple(c.upper() for c in alias.choices if isinstance(c, str))
    return ()


def setting_fields(settings_class: type[BaseSettings]) -> list[SettingField]:
    """Every leaf field of ``settings_class`` with its variable names, in declaration order."""
    config = settings_class.model_config
    prefix = (config.get("env_prefix") or "").upper()
    delimiter = config.get("env_nested_delimiter") or None

    def walk(model: type[BaseModel], path: tuple[str, ...], name: str) -> Iterator[SettingField]:
        for field_name, info in model.model_fields.items():
            own = (*path, field_name)
            aliases = _aliases(info) if not path else ()
            env_name = (
                f"{name}{delimiter}{field_name.upper()}"
                if path
                else f"{prefix}{field_name.upper()}"
            )
            nested = _nested_model(info.annotation)
            if nested is not None and delimiter:
                yield from walk(nested, own, env_name)
                continue
            yield SettingField(
                path=own,
                env_names=aliases or (env_name,),
                secret=_is_secret(info.annotation),
                description=info.description,
            )

    return list(walk(settings_class, (), prefix))


def environment() -> dict[str, str]:
    """The process environment with upper-cased names (settings match case-insensitively)."""
    return {name.upper(): value for name, value in os.environ.items()}


def env_file_values(settings_class: type[BaseSettings], env_file: Any = None) -> dict[str, str]:
    """The variables of the ``.env`` file(s) ``settings_class`` reads, names upper-cased."""
    from dotenv import dotenv_values  # pydantic-settings' own dependency

    files = env_file if env_file is not None else settings_class.model_config.get("env_file")
    if files is None:
        return {}
    found: dict[str, str] = {}
    for file in (files,) if isinstance(files, str | os.PathLike) else files:
        path = Path(file).expanduser()
        if path.is_file():
            encoding = settings_class.model_config.get("env_file_encoding")
            for name, value in dotenv_values(path, encoding=encoding).items():
                if value is not None:
                    found[name.upper()] = value
    return found


def masked_text(text: str) -> str:
    """A value's text with its credentials masked: a URL's password and key-like query
    parameters, and whatever looks like a credential (``api_key=...``, ``Bearer ...``)."""
    return mask_credentials(mask_url(text) if "://" in text or "@" in text else text)


def _masked(value: Any) -> Any:
    """``value`` (a mapping, list or scalar) with credential-like entries masked."""
    if isinstance(value, Mapping):
        return {
            k: SECRET_MASK if is_credential_name(str(k)) else _masked(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_masked(v) for v in value]
    if isinstance(value, str):
        return masked_text(value)
    return value


def _display(value: Any, secret: bool) -> str:
    if value is None:
        return ""
    if secret:
        return SECRET_MASK
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(masked_text(str(v)) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        # Headers and query parameters may carry a credential (Azure's ``api-key``).
        return json.dumps(_masked(value), default=str)
    if isinstance(value, BaseModel):
        return json.dumps(_masked(value.model_dump(mode="json")), default=str)
    return masked_text(str(value))  # a URL's user:password@ and ?key= are masked


def describe_settings(
    settings: BaseSettings,
    *,
    environ: Mapping[str, str] | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> list[SettingValue]:
    """The effective value of every field of ``settings``, and where it came from.

    Args:
        settings: a loaded settings object.
        environ: the environment, names upper-cased (default: :func:`environment`).
        dotenv: the ``.env`` variables, names upper-cased (default: the class's file).
    """
    environ = environment() if environ is None else environ
    dotenv = env_file_values(type(settings)) if dotenv is None else dotenv
    described = []
    for field in setting_fields(type(settings)):
        value: Any = settings
        for part in field.path:
            value = getattr(value, part)
        source: Source = "default"
        variable = None
        for origin, variables in (("env", environ), (".env", dotenv)):
            variable = next((n for n in field.env_names if n in variables), None)
            if variable is not None:
                source = typing.cast(Source, origin)
                break
        described.append(SettingValue(field, _display(value, field.secret), source, variable))
    return described


def describe_unloaded(
    settings_class: type[BaseSettings],
    *,
    environ: Mapping[str, str] | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> list[SettingValue]:
    """Every field of ``settings_class`` as set, for a class that cannot be loaded.

    A variable's value is its text as set (secrets masked, credentials inside masked);
    an unset field shows its default. ``ostinato config`` shows this next to the
    problems that stopped loading.
    """
    environ = environment() if environ is None else environ
    dotenv = env_file_values(settings_class) if dotenv is None else dotenv
    defaults = settings_class.model_construct()
    described = []
    for field in setting_fields(settings_class):
        for origin, variables in (("env", environ), (".env", dotenv)):
            variable = next((n for n in field.env_names if n in variables), None)
            if variable is not None:
                raw = variables[variable]
                shown = SECRET_MASK if field.secret and raw else masked_text(raw)
                source = typing.cast(Source, origin)
                described.append(SettingValue(field, shown, source, variable))
                break
        else:
            value: Any = defaults
            for part in field.path:
                value = getattr(value, part, None)
            described.append(SettingValue(field, _display(value, field.secret), "default", None))
    return described
