"""From ``OSTINATO_MODEL=llamacpp:<name>`` and the settings to a :class:`LlamaCppChatModel`.

``<name>`` is ``default`` (the bundled model that ``ostinato local setup`` assembled,
with the chat template shipped in this package, at temperature 0) or the path of any
GGUF (its own chat template, the server's temperature). Nothing starts here: files are
checked, so that a missing setup is reported when the client is built, and the server
starts on the first request, unless ``ostinato local serve`` keeps the same server warm
(then the model talks to that one).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

from ostinato.errors import ConfigurationError
from ostinato_llamacpp._artifacts import DEFAULT_MODEL, DEFAULT_MODEL_NAME
from ostinato_llamacpp._choice import chosen_binary
from ostinato_llamacpp._errors import small_model_hint
from ostinato_llamacpp._model import LlamaCppChatModel
from ostinato_llamacpp._server import ServerSpec
from ostinato_llamacpp._settings import GGUF_TEMPLATE, LlamaCppSettings
from ostinato_llamacpp._warm import find_warm_server
from ostinato_openai import OpenAIChatOptions

__all__ = [
    "BUNDLED_TEMPLATE",
    "chat_template_of",
    "create_chat_model",
    "default_options_for",
    "resolve_model_path",
    "resolve_server_binary",
    "server_spec",
]

#: The chat template shipped for the bundled model (see the plugin's README for why).
BUNDLED_TEMPLATE: Final = Path(__file__).with_name("templates") / "qwen2.5-coder-tools.jinja"

_SETUP_FIX: Final = (
    "fix: run `ostinato local setup` (installs llama-server, prebuilt or built from source, "
    "and assembles the 1.1 GB model in the cache; about a minute the first time with the "
    "prebuilt server, 10 minutes or more with a source build)"
)


def resolve_model_path(name: str, settings: LlamaCppSettings) -> Path:
    """The GGUF for ``llamacpp:<name>``.

    Raises:
        ConfigurationError: the file does not exist (with how to create or choose one).
    """
    if name == DEFAULT_MODEL_NAME:
        path = settings.model_path or settings.layout.default_model
        if not path.expanduser().is_file():
            variable = "OSTINATO_LLAMACPP_MODEL_PATH" if settings.model_path else "the cache"
            raise ConfigurationError(
                f"llamacpp:default needs the bundled model, which is not at {path} "
                f"(from {variable})\n{_SETUP_FIX}, or set OSTINATO_LLAMACPP_MODEL_PATH "
                "to a GGUF file"
            )
        return path.expanduser().resolve()
    path = Path(name).expanduser()
    candidates = [path] if path.is_absolute() else [path, settings.layout.models / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    raise ConfigurationError(
        f"OSTINATO_MODEL=llamacpp:{name} names no GGUF file (looked at "
        f"{', '.join(str(c) for c in candidates)})\n"
        "fix: give the path of a .gguf file, or use llamacpp:default"
    )


def resolve_server_binary(settings: LlamaCppSettings) -> Path:
    """The ``llama-server`` to run: the setting, the one setup chose (prebuilt or built
    from source; ``OSTINATO_LLAMACPP_SERVER_INSTALL`` may insist on one), or ``PATH``'s.

    Raises:
        ConfigurationError: none of these exists.
    """
    if settings.server:
        configured = Path(settings.server).expanduser()
        found = shutil.which(settings.server) if configured.name == settings.server else None
        if configured.is_file():
            return configured.resolve()
        if found:
            return Path(found)
        raise ConfigurationError(
            f"OSTINATO_LLAMACPP_SERVER={settings.server!r} is not an executable file\n"
            "fix: point it at a llama-server binary, or unset it to use the one "
            "`ostinato local setup` builds"
        )
    layout = settings.layout
    chosen = chosen_binary(layout, settings.server_install)
    if chosen is not None:
        return chosen
    found = shutil.which("llama-server")
    if found:
        return Path(found)
    where = {
        "prebuilt": f"the prebuilt one is not at {layout.prebuilt_server}",
        "source": f"the source build is not at {layout.server}",
    }.get(settings.server_install, f"setup has not installed one in {layout.root}")
    raise ConfigurationError(
        f"no llama-server found ({where}; none on PATH)\n{_SETUP_FIX}, or set "
        "OSTINATO_LLAMACPP_SERVER to a llama-server binary"
    )


def chat_template_of(settings: LlamaCppSettings, *, bundled: bool) -> Path | None:
    """The chat template file the server gets (``None``: the GGUF's own).

    Raises:
        ConfigurationError: ``OSTINATO_LLAMACPP_CHAT_TEMPLATE`` names no file.
    """
    value = settings.chat_template
    if value is None:
        return BUNDLED_TEMPLATE if bundled else None
    if value.strip().lower() == GGUF_TEMPLATE:
        return None
    path = Path(value).expanduser()
    if not path.is_file():
        raise ConfigurationError(
            f"OSTINATO_LLAMACPP_CHAT_TEMPLATE={value!r} is not a file\n"
            f"fix: give the path of a Jinja chat template, or '{GGUF_TEMPLATE}' for the "
            "model's own"
        )
    return path.resolve()


def default_options_for(
    settings: LlamaCppSettings, *, bundled: bool, model: str
) -> OpenAIChatOptions:
    """The request options of a ``llamacpp`` model: temperature 0 for the bundled model
    (unless set), the answer length cap, and several tool calls per reply allowed."""
    temperature = settings.temperature
    if temperature is None and bundled:
        temperature = 0.0
    return OpenAIChatOptions(
        model=model,
        temperature=temperature,
        max_tokens=settings.max_tokens,
        parallel_tool_calls=True if bundled else None,
    )


def server_spec(name: str, settings: LlamaCppSettings) -> ServerSpec:
    """The server ``llamacpp:<name>`` starts under ``settings``.

    Raises:
        ConfigurationError: the model or the server binary is missing, or the chat
            template setting names no file.
    """
    bundled = name == DEFAULT_MODEL_NAME
    model_path = resolve_model_path(name, settings)  # the more specific error first
    return ServerSpec(
        binary=resolve_server_binary(settings),
        model=model_path,
        threads=settings.server_threads,
        threads_batch=settings.server_threads_batch,
        context=settings.context,
        chat_template=chat_template_of(settings, bundled=bundled),
        alias=name if bundled else Path(name).stem,
        extra_args=settings.extra_server_args,
    )


def create_chat_model(
    model_name: str | None = None, settings: LlamaCppSettings | None = None
) -> LlamaCppChatModel:
    """The ``llamacpp`` model for ``model_name`` (``default`` or a GGUF path).

    Without ``settings`` they are read from the environment (and ``.env``).

    Raises:
        ConfigurationError: a setting has a bad value, or the model or the server binary
            is missing (the message says how to set them up).
    """
    if settings is None:
        from ostinato.settings import load_settings

        settings = load_settings(LlamaCppSettings)
    name = (model_name or DEFAULT_MODEL_NAME).strip()
    bundled = name == DEFAULT_MODEL_NAME
    label = DEFAULT_MODEL.name if bundled else Path(name).name
    hint = small_model_hint(label, bundled=bundled)
    options = default_options_for(settings, bundled=bundled, model=name)
    if settings.url:
        return LlamaCppChatModel(
            settings.url, default_options=options, hint=hint, timeout=settings.timeout
        )
    spec = server_spec(name, settings)
    warm = find_warm_server(settings.layout, spec)
    if warm is not None:  # `ostinato local serve` runs this very server: use it
        return LlamaCppChatModel(warm, default_options=options, hint=hint, timeout=settings.timeout)
    return LlamaCppChatModel(
        spec,
        default_options=options,
        hint=hint,
        timeout=settings.timeout,
        startup_timeout=settings.startup_timeout,
        log_dir=settings.layout.logs,
    )
