"""The errors of a local ``llama-server``, and the advice a small model needs.

::

    ModelConnectionError                (ostinato.errors)
    └── LlamaServerError                the local llama-server process failed
        ├── LlamaServerStartError       it exited, or never became healthy, while starting
        └── LlamaServerCrashedError     it exited while it was serving (e.g. mid-turn)

Each carries the exit code (``None`` if it had not exited), the path of the server's log
and its last lines. A 500 from the server stays a :class:`~ostinato.errors.ServerError`,
with :func:`small_model_hint` appended to its message.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Final

from ostinato.errors import ModelConnectionError, ModelError

__all__ = [
    "PROVIDER",
    "LlamaServerCrashedError",
    "LlamaServerError",
    "LlamaServerStartError",
    "exit_signal",
    "small_model_hint",
    "with_hint",
]

#: The provider name errors carry and ``OSTINATO_MODEL=llamacpp:...`` selects.
PROVIDER: Final = "llamacpp"

_STRONGER: Final = (
    "fix: point OSTINATO_MODEL at a stronger model, e.g. "
    "OSTINATO_MODEL=llamacpp:/path/to/a-larger-model.gguf, OSTINATO_MODEL=ollama:qwen3, "
    "or OSTINATO_MODEL=openai:gpt-4.1-mini (with OSTINATO_OPENAI_API_KEY)"
)


def exit_signal(exit_code: int | None) -> str | None:
    """The signal that ended a process (``"SIGILL"``), from its exit status.

    Negative statuses are Python's (``-4``); statuses above 128 are the guard's and the
    shell's (``132``: 128 + SIGILL's number). ``None`` when no signal ended it.
    """
    if exit_code is None or 0 <= exit_code <= 128:
        return None
    number = -exit_code if exit_code < 0 else exit_code - 128
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


class LlamaServerError(ModelConnectionError):
    """The local ``llama-server`` process failed.

    Attributes:
        exit_code: the process's exit status (negative: killed by that signal), or
            ``None`` when it had not exited.
        log_path: the file its output went to, if kept.
        log_tail: the last lines of that output.
    """

    def __init__(
        self,
        message: str,
        *,
        exit_code: int | None = None,
        log_path: Path | None = None,
        log_tail: str = "",
    ) -> None:
        super().__init__(message, provider=PROVIDER)
        self.exit_code = exit_code
        self.log_path = log_path
        self.log_tail = log_tail


class LlamaServerStartError(LlamaServerError):
    """``llama-server`` exited, or did not become healthy in time, while starting."""


class LlamaServerCrashedError(LlamaServerError):
    """``llama-server`` exited while serving; the next request starts a new one."""


def small_model_hint(model: str, *, bundled: bool) -> str:
    """What to tell a user whose small local model failed the tool loop."""
    if bundled:
        return (
            f"note: the bundled model, {model}, is small (1.5B parameters, 1.1 GB): it runs "
            "simple tool loops, but may write tool calls the server cannot parse or repeat "
            "its calls instead of answering\n" + _STRONGER
        )
    return (
        f"note: the local model {model} may not follow its chat template's tool-call "
        "format (set OSTINATO_LLAMACPP_CHAT_TEMPLATE to a template that describes it), or "
        "may be too small for the task\n" + _STRONGER
    )


def with_hint(error: ModelError, hint: str) -> ModelError:
    """A copy of ``error`` (same class and fields) whose message ends with ``hint``."""
    copy = type(error)(
        f"{error}\n{hint}",
        provider=error.provider,
        status=error.status,
        error_type=error.error_type,
        code=error.code,
        request_id=error.request_id,
        retry_after=error.retry_after,
    )
    copy.__cause__ = error
    return copy
