"""Which model ``ostinato chat`` talks to, getting the local default ready, and what its
failures mean.

The model is ``--model``, else ``OSTINATO_MODEL``, else the local default
``llamacpp:default`` when the ``llamacpp`` plugin is installed. The local default is
made ready with the plugin's own command (``ostinato local status``, then
``ostinato local setup`` when it is not set up): a build and a download, so only after
the user agrees (on a terminal, or with ``--yes``). Model errors are turned
into one line with the fix: unreachable server, refused credentials, unknown model...
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, TextIO

from ostinato.config._default_model import (
    LOCAL_DEFAULT_MODEL,
    LOCAL_PROVIDER,
    default_model,
    missing_model_fix,
)
from ostinato.config._provider_hint import unknown_provider_fix
from ostinato.errors import (
    AuthenticationError,
    ConfigurationError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
    NotFoundError,
    OstinatoError,
    PermissionDeniedError,
    RateLimitError,
)
from ostinato.plugins import Registration, Registry
from ostinato.settings._model_form import model_example

__all__ = [
    "LOCAL_COMMAND",
    "LOCAL_DEFAULT_MODEL",
    "LOCAL_PROVIDER",
    "ModelChoice",
    "choose_model",
    "describe_model_error",
    "ensure_local_model",
    "installed_providers",
    "local_model_ready",
]

#: The command the local provider registers (``ostinato local setup`` / ``status``).
LOCAL_COMMAND: Final = "local"


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """The model to use, and where that choice came from.

    Attributes:
        model: ``provider:model``.
        provider: the provider part, lower-cased.
        source: ``--model``, ``OSTINATO_MODEL`` or ``the local default``.
    """

    model: str
    provider: str
    source: str

    @property
    def is_local_default(self) -> bool:
        """Whether this is ``llamacpp:default`` (or ``llamacpp:``, which means the same)."""
        provider, _, name = self.model.partition(":")
        return provider.strip().lower() == LOCAL_PROVIDER and name.strip() in ("", "default")


def installed_providers(providers: Mapping[str, Registration[Any]]) -> str:
    """``"llamacpp, openai"`` (or ``"none"``)."""
    return ", ".join(sorted(providers)) or "none"


def _parse(value: str, source: str) -> tuple[str, str]:
    provider, sep, name = value.strip().partition(":")
    if not sep or not provider.strip() or any(c.isspace() for c in value.strip()):
        raise ConfigurationError(
            f"{source} {value!r} is not provider:model\nfix: write it like {model_example(value)}"
        )
    return provider.strip().lower(), name.strip()


def choose_model(explicit: str | None, configured: str | None, registry: Registry) -> ModelChoice:
    """``explicit`` (``--model``), else ``configured`` (``OSTINATO_MODEL``), else the
    local default when its provider is installed.

    Raises:
        ConfigurationError: no model is configured and there is no local provider; the
            value is not ``provider:model``; or its provider is not installed (the
            installed ones are listed on the first line).
    """
    providers = registry.chat_models
    if explicit:
        value, source = explicit, "--model"
    elif configured:
        value, source = configured, "OSTINATO_MODEL"
    elif (fallback := default_model(providers)) is not None:
        value, source = fallback, "the local default"
    else:
        raise ConfigurationError(
            f"no chat model is configured (installed providers: {installed_providers(providers)})\n"
            f"fix: {missing_model_fix(option='--model')}"
        )
    provider, name = _parse(value, source)
    if provider not in providers:
        flag = "--model " if source == "--model" else "OSTINATO_MODEL="
        raise ConfigurationError(
            f"unknown model provider {provider!r} in {source} {value!r} "
            f"(installed providers: {installed_providers(providers)})\n"
            f"fix: {unknown_provider_fix(provider, name, providers, flag)}"
        )
    return ModelChoice(value.strip(), provider, source)


def local_model_ready(registry: Registry) -> bool | None:
    """Whether ``ostinato local status`` says the local default is ready (its exit code 0);
    ``None`` when no plugin registered the ``local`` command."""
    registration = registry.commands.get(LOCAL_COMMAND)
    if registration is None:
        return None
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return registration.value.run(["status"]) == 0


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _consents(why: str, stdin: TextIO, err: TextIO) -> bool:
    print(
        f"ostinato: {why} {LOCAL_DEFAULT_MODEL} runs a small local model, which is not set up "
        f"yet: `ostinato {LOCAL_COMMAND} setup` installs llama-server and fetches a 1.1 GB "
        "model (about a minute; longer where llama-server must be built from source; once)",
        file=err,
        flush=True,
    )
    print("set it up now? [y/N] ", end="", file=err, flush=True)
    answer = stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def ensure_local_model(
    choice: ModelChoice,
    registry: Registry,
    err: TextIO,
    *,
    assume_yes: bool = False,
    stdin: TextIO | None = None,
) -> None:
    """Run ``ostinato local setup`` when ``choice`` is the local default and it is not set
    up: after asking on a terminal, at once with ``assume_yes`` (``--yes``); without a
    terminal and without ``assume_yes`` nothing is built or fetched.

    Raises:
        ConfigurationError: it is not set up and the user declined, or there is no
            terminal to ask on and ``assume_yes`` is false (the fix names the command).
        OstinatoError: the setup failed or was interrupted.
    """
    if not choice.is_local_default or local_model_ready(registry) is not False:
        return
    why = "no model is configured, so" if choice.source == "the local default" else "since"
    setup = f"ostinato {LOCAL_COMMAND} setup"
    refused = ConfigurationError(
        f"{LOCAL_DEFAULT_MODEL} is not set up (llama-server is not built, or the model is "
        "not fetched)\n"
        f"fix: run `{setup}` first (a 1.1 GB download and about a minute, once), pass "
        "--yes to let ostinato chat run it, or choose another model with --model"
    )
    if not assume_yes:
        source = stdin if stdin is not None else sys.stdin
        if not _is_terminal(source):
            raise refused
        if not _consents(why, source, err):
            raise refused
    else:
        print(
            f"ostinato: {why} {LOCAL_DEFAULT_MODEL} runs a small local model, which is not set "
            f"up yet: running `{setup}` (installs llama-server and fetches the model; about "
            "a minute, longer where llama-server must be built from source; once)",
            file=err,
            flush=True,
        )
    code = registry.commands[LOCAL_COMMAND].value.run(["setup"])
    if code != 0:
        raise OstinatoError(
            f"`{setup}` did not finish (exit code {code})\n"
            f"fix: read its output above, then run `{setup}` again "
            "(it resumes), or choose another model with --model"
        )


def _variable(provider: str, suffix: str) -> str:
    return f"OSTINATO_{provider.upper().replace('-', '_')}_{suffix}"


def _lines(error: BaseException) -> tuple[str, list[str]]:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__, []
    return lines[0].rstrip(":"), lines[1:]


def describe_model_error(error: ModelError, choice: ModelChoice) -> str:
    """``error`` as a message whose first line says what failed, then its details, then a
    ``fix:`` line saying what to do (errors that bring their own ``fix:`` keep it)."""
    text = str(error).strip()
    if any(line.strip().startswith("fix:") for line in text.splitlines()):
        return text
    provider = error.provider or choice.provider
    what, details = _lines(error)
    log_path = getattr(error, "log_path", None)  # a server process ostinato started
    if isinstance(error, AuthenticationError):
        head = f"{provider} refused the credentials (HTTP {error.status or 401}): {what}"
        fix = (
            f"set {_variable(provider, 'API_KEY')} to a valid key (`ostinato config` shows "
            "where the current one comes from)"
        )
    elif isinstance(error, PermissionDeniedError):
        head = f"{provider} denied access to {choice.model} (HTTP 403): {what}"
        fix = "use a key allowed to use this model, or another model (--model)"
    elif isinstance(error, ModelConnectionError) and log_path is not None:
        head = f"the local {provider} model server failed: {what}"
        fix = (
            f"read its log ({log_path}); `ostinato config` shows the "
            f"{_variable(provider, '*')} settings it started with"
        )
    elif isinstance(error, ModelConnectionError):
        head = f"cannot reach the {provider} model server: {what}"
        fix = (
            f"start the server, or point {_variable(provider, 'BASE_URL')} at it "
            "(`ostinato config` shows the current value)"
        )
    elif isinstance(error, ModelTimeoutError):
        head = f"the {provider} model server did not answer in time: {what}"
        fix = f"try again, or raise {_variable(provider, 'TIMEOUT')}"
    elif isinstance(error, NotFoundError):
        head = f"{provider} does not know the model of {choice.model!r} (HTTP 404): {what}"
        fix = "check the model name; `ostinato models` lists the installed providers"
    elif isinstance(error, RateLimitError):
        wait = f" (retry after {error.retry_after:g} s)" if error.retry_after else ""
        head = f"{provider} is rate limiting requests{wait}: {what}"
        fix = "wait and try again, or raise your provider's limits"
    else:
        head = f"the {provider} model failed ({type(error).__name__}): {what}"
        fix = "try again; if it persists, check the model server's logs"
    return "\n".join([head, *details, f"fix: {fix}"])
