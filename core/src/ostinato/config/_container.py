"""The ``AutoConfiguration`` container: the composition root of auto-configured clients.

``settings -> plugin_manager -> registry -> chat_model, tool_calling_manager,
tool_advisor -> advisors -> chat_client``. Every provider is synchronous and calls one
plain function (exported by :mod:`ostinato.config`). Override providers on *instances*
(``container.chat_model.override(model)``), never on the class, so containers stay
independent. This is the only module that imports dependency-injector.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dependency_injector import containers, providers

from ostinato.config._boot import (
    checked_plugin_settings,
    create_plugin_manager,
    create_registry,
    load_core_settings,
)
from ostinato.config._client_parts import (
    create_advisors,
    create_chat_client,
    create_chat_model,
    create_default_tools,
    create_unit_wrappers,
)
from ostinato.config._replacement_hint import replacement_tool_advisor_hint
from ostinato.config._tool_advisor import (
    create_tool_advisor,
    create_tool_calling_manager,
    select_tool_advisor,
)
from ostinato.errors import OstinatoError

if TYPE_CHECKING:
    from ostinato.client import ChatClient

__all__ = ["AutoConfiguration", "build_container", "chat_client"]


class AutoConfiguration(containers.DeclarativeContainer):
    """Builds a :class:`~ostinato.client.ChatClient` from the environment and the plugins.

    >>> container = AutoConfiguration()
    >>> container.chat_model.override(ScriptedChatModel(["hi"]))
    >>> client = container.chat_client()

    Providers (each a singleton of its container instance):

    * ``plugins`` / ``entry_points``: explicit plugin objects, and whether to load the
      installed ones (default: only when ``plugins`` is not given);
    * ``settings``: core :class:`~ostinato.config.Settings`;
    * ``plugin_manager``: the loaded plugins, with failures and skipped ones;
    * ``registry``: what they registered (plugin settings checked at this point);
    * ``plugin_settings``: each plugin's settings, loaded, by prefix (every factory gets
      them, and core's ``settings``, in its :class:`~ostinato.plugins.FactoryContext`);
      a plugin's settings with bad values are left out, so the factory that reads them
      fails naming the variable (and a plugin nobody uses only warned);
    * ``chat_model``: from ``OSTINATO_MODEL``;
    * ``tool_calling_manager``: a ``DefaultToolCallingManager`` with the configured limits;
    * ``tool_advisor_choice`` and ``tool_advisor``: the one tool advisor;
    * ``tool_advisor_hint``: when that is a replacement, the advisor naming it in the
      error of a failed model round (``None`` otherwise, and when ``tool_advisor`` is
      given to :func:`build_container`);
    * ``advisors`` and ``default_tools``: the plugins' advisors and enabled tool sets;
    * ``unit_wrappers``: the plugins' unit wrappers (``register_unit_wrappers``);
    * ``chat_client``: the client.
    """

    plugins: providers.Provider[Any] = providers.Object(None)
    entry_points: providers.Provider[bool | None] = providers.Object(None)

    settings = providers.Singleton(load_core_settings, plugins, entry_points)
    plugin_manager = providers.Singleton(
        create_plugin_manager, settings, plugins=plugins, entry_points=entry_points
    )
    registry = providers.Singleton(create_registry, plugin_manager)
    plugin_settings = providers.Singleton(checked_plugin_settings, registry)
    chat_model = providers.Singleton(create_chat_model, settings, registry, plugin_settings)
    tool_calling_manager = providers.Singleton(create_tool_calling_manager, settings)
    tool_advisor_choice = providers.Singleton(
        select_tool_advisor,
        settings.provided.chat_client.tool_calling.advisor,
        registry.provided.tool_advisors,
    )
    tool_advisor = providers.Singleton(
        create_tool_advisor,
        tool_advisor_choice,
        registry,
        tool_calling_manager,
        settings,
        plugin_settings,
    )
    tool_advisor_hint = providers.Singleton(
        replacement_tool_advisor_hint, tool_advisor_choice.provider, tool_advisor
    )
    advisors = providers.Singleton(create_advisors, registry, plugin_settings, settings)
    default_tools = providers.Singleton(create_default_tools, settings, registry, plugin_settings)
    unit_wrappers = providers.Singleton(create_unit_wrappers, registry, plugin_settings, settings)
    chat_client = providers.Singleton(
        create_chat_client,
        settings,
        chat_model=chat_model,
        tool_advisor=tool_advisor,
        advisors=advisors,
        default_tools=default_tools,
        tool_advisor_hint=tool_advisor_hint,
        unit_wrappers=unit_wrappers,
    )


def build_container(**overrides: Any) -> AutoConfiguration:
    """A new container, with ``overrides`` applied to this instance only.

    Each keyword names a provider; its value replaces what the provider would build
    (a provider instance is used as is)::

        build_container(plugins=[my_plugin], chat_model=ScriptedChatModel(["hi"]))

    A tool advisor given this way is not the installed choice, so no error names that
    choice (``tool_advisor_hint`` is ``None`` unless given too).

    Raises:
        TypeError: a keyword names no provider (the message lists them).
    """
    container = AutoConfiguration()
    names = sorted(container.providers)
    if "tool_advisor" in overrides:
        overrides = {"tool_advisor_hint": None, **overrides}
    for name, value in overrides.items():
        if name not in container.providers:
            raise TypeError(
                f"build_container() got {name!r}, which is not a provider of AutoConfiguration\n"
                f"  providers: {', '.join(names)}\n"
                f"fix: use one of those names"
            )
        provider = value if isinstance(value, providers.Provider) else providers.Object(value)
        container.providers[name].override(provider)
    return container


def chat_client(**overrides: Any) -> ChatClient:
    """A ready :class:`~ostinato.client.ChatClient`, configured from the environment.

    ``overrides`` replace providers of a fresh :class:`AutoConfiguration` (see
    :func:`build_container`), e.g. ``chat_client(chat_model=my_model)``.

    Raises:
        ConfigurationError: a setting is missing or wrong (the message says which
            variable to set).
        PluginError: a plugin is broken (with ``OSTINATO_STRICT_PLUGINS=1``) or two
            plugins registered the same name.

    Either error is raised from here, without the container's frames in its traceback:
    the message says what to change, and a plugin's own failure stays its ``__cause__``.
    """
    try:
        client: ChatClient = build_container(**overrides).chat_client()
    except OstinatoError as error:
        failure = error
    else:
        return client
    raise failure.with_traceback(None)
