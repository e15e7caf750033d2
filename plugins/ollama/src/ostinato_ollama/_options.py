"""``OllamaChatOptions``: the native ``/api/chat`` request options beyond the portable ones.

Pure values: this module imports nothing heavy (no httpx), so the package can export it
eagerly. How each field reaches the wire is decided in ``_request``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ostinato.prompt import ToolCallingChatOptions

__all__ = ["OllamaChatOptions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OllamaChatOptions(ToolCallingChatOptions):
    """Options of one ``/api/chat`` request; ``None`` leaves the server's (or model's) default.

    The portable fields and the tool fields come from
    :class:`~ostinato.prompt.ToolCallingChatOptions`. The sampling ones travel in the
    request's ``options`` object: ``temperature``, ``top_p``, ``top_k``,
    ``frequency_penalty`` and ``presence_penalty`` under their names, ``max_tokens`` as
    ``num_predict``, ``stop_sequences`` as ``stop``.

    Attributes:
        options: the model options as Ollama names them (``num_ctx``, ``repeat_penalty``,
            ``mirostat``...), passed through; the named fields here are laid over them.
            An empty mapping is sent as ``{}``.
        num_ctx: the context window, in tokens (Ollama's default is small).
        seed: ask for deterministic sampling.
        format: ``"json"``, or a JSON schema the answer must follow (structured output).
        think: ``True``/``False`` turns a reasoning model's thinking on or off; ``"low"``,
            ``"medium"``, ``"high"`` set its effort (gpt-oss).
        keep_alive: how long the model stays loaded after the request (``"5m"``, ``"1h"``,
            seconds as a number, ``0`` to unload at once, ``-1`` to keep it).
        extra_body: extra top-level request fields, laid over everything else.
    """

    options: Mapping[str, Any] | None = None
    num_ctx: int | None = None
    seed: int | None = None
    format: str | Mapping[str, Any] | None = None
    think: bool | str | None = None
    keep_alive: str | int | float | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
