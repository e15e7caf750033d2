"""The ``llamacpp`` plugin's hook implementations (entry point ``ostinato: llamacpp``).

Import-light on purpose: nothing here imports httpx, pydantic-settings or the process
machinery at module level; each hook imports what it needs when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import FactoryContext, hookimpl, provider_plugin

if TYPE_CHECKING:
    from ostinato.settings import Settings
    from ostinato_llamacpp._advisor import SmallModelHintAdvisor

__all__ = [
    "COMMAND",
    "PLUGIN",
    "PROVIDER",
    "SETTINGS_PREFIX",
    "chat_model_factory",
    "create_hint_advisor",
    "create_llamacpp_chat_model",
    "hint_advisor_factory",
    "register_advisors",
    "register_chat_models",
    "register_commands",
    "register_settings",
    "run_local_command",
]

#: The provider name ``OSTINATO_MODEL=llamacpp:<model>`` selects.
PROVIDER: Final = "llamacpp"
#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_LLAMACPP_"
#: The ``ostinato`` subcommand this plugin adds (``ostinato local setup``).
COMMAND: Final = "local"


#: The provider, declared: its hooks register ``llamacpp`` and
#: :class:`~ostinato_llamacpp.LlamaCppSettings`.
PLUGIN: Final = provider_plugin(
    provider=PROVIDER,
    settings_prefix=SETTINGS_PREFIX,
    settings="ostinato_llamacpp._settings:LlamaCppSettings",
    factory="ostinato_llamacpp._factory:create_chat_model",
    description="A small local model on llama-server, no key and no account: "
    "llamacpp:default once `ostinato local setup` has built and fetched it, or a GGUF path.",
)

#: The registered factory ``(context, model_name) -> LlamaCppChatModel``: ``default`` or a
#: GGUF path, with the settings auto-configuration loaded. The server starts on the
#: model's first request.
chat_model_factory: Final = PLUGIN.create_chat_model
#: ``(model_name) -> LlamaCppChatModel`` with settings from the environment.
create_llamacpp_chat_model: Final = PLUGIN.create_from_environment
#: Registers the ``llamacpp`` provider.
register_chat_models: Final = PLUGIN.register_chat_models
#: Registers :class:`~ostinato_llamacpp.LlamaCppSettings` under ``OSTINATO_LLAMACPP_``.
register_settings: Final = PLUGIN.register_settings


def create_hint_advisor(settings: Settings | None = None) -> SmallModelHintAdvisor | None:
    """The advisor explaining an iteration cap, when ``OSTINATO_MODEL`` is a ``llamacpp``
    model (``None`` otherwise). Core's ``settings`` are read from the environment unless
    given."""
    if settings is None:
        from ostinato.settings import Settings, load_settings

        settings = load_settings(Settings)
    model = settings.model
    if model is None or model.partition(":")[0].strip().lower() != PROVIDER:
        return None
    from ostinato_llamacpp._advisor import SmallModelHintAdvisor
    from ostinato_llamacpp._artifacts import DEFAULT_MODEL, DEFAULT_MODEL_NAME
    from ostinato_llamacpp._errors import small_model_hint

    name = model.partition(":")[2].strip()
    bundled = name == DEFAULT_MODEL_NAME
    return SmallModelHintAdvisor(
        small_model_hint(DEFAULT_MODEL.name if bundled else name, bundled=bundled)
    )


def hint_advisor_factory(context: FactoryContext) -> SmallModelHintAdvisor | None:
    """The registered ``llamacpp-hints`` factory: :func:`create_hint_advisor` with core's
    settings from the context."""
    return create_hint_advisor(context.settings)


def run_local_command(argv: list[str]) -> int:
    """``ostinato local ...``: ``setup`` builds and fetches, ``status`` reports."""
    from ostinato_llamacpp._cli import main

    return main(argv)


@hookimpl
def register_advisors(register: Any) -> None:
    """Register ``llamacpp-hints`` (active only when ``OSTINATO_MODEL`` is ``llamacpp:``)."""
    register("llamacpp-hints", hint_advisor_factory)


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato local`` (``setup``: install llama-server, fetch the model;
    ``serve``: keep its server warm; ``status``)."""
    register(
        COMMAND,
        "a local model: `ostinato local setup` installs llama-server and fetches the default "
        "model; `ostinato local serve` keeps it warm",
        run_local_command,
    )
