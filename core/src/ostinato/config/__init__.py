"""Auto-configuration: the container wiring settings and plugins into a client.

:class:`AutoConfiguration` (dependency-injector) turns core's settings and the installed
plugins into a :class:`~ostinato.client.ChatClient`; :func:`chat_client` is the one-line
entry. The decisions the container makes are plain functions exported here too.

The settings themselves live in :mod:`ostinato.settings`; the names exported here from
there (``Settings``, ``load_settings``...) keep working. dependency-injector is imported
only when the container is first used (``AutoConfiguration``, ``build_container``,
``chat_client``), so ``from ostinato.config import load_settings`` stays cheap.
"""

from typing import TYPE_CHECKING

from ostinato._lazy import lazy_exports
from ostinato.config._boot import create_plugin_manager, create_registry, load_core_settings
from ostinato.config._client_parts import (
    create_advisors,
    create_chat_client,
    create_chat_model,
    create_default_tools,
    parse_model,
    tool_sets_not_enabled,
)
from ostinato.config._core_plugin import CORE_PLUGIN_NAME, DEFAULT_TOOL_ADVISOR, CorePlugin
from ostinato.config._default_model import LOCAL_DEFAULT_MODEL, default_model
from ostinato.config._tool_advisor import (
    ToolAdvisorChoice,
    create_tool_advisor,
    create_tool_calling_manager,
    select_tool_advisor,
)
from ostinato.settings import (
    SECRET_MASK,
    BadSettingWarning,
    ChatClientSettings,
    CommaSeparated,
    PluginSettings,
    SettingField,
    Settings,
    SettingValue,
    ToolCallingSettings,
    ToolsSettings,
    UnknownSettingWarning,
    check_settings_class,
    describe_settings,
    known_setting_fields,
    load_plugin_settings,
    load_settings,
    setting_fields,
    warn_unknown_variables,
)

if TYPE_CHECKING:
    from ostinato.config._container import AutoConfiguration, build_container, chat_client

__all__ = [
    "CORE_PLUGIN_NAME",
    "DEFAULT_TOOL_ADVISOR",
    "LOCAL_DEFAULT_MODEL",
    "SECRET_MASK",
    "AutoConfiguration",
    "BadSettingWarning",
    "ChatClientSettings",
    "CommaSeparated",
    "CorePlugin",
    "PluginSettings",
    "SettingField",
    "SettingValue",
    "Settings",
    "ToolAdvisorChoice",
    "ToolCallingSettings",
    "ToolsSettings",
    "UnknownSettingWarning",
    "build_container",
    "chat_client",
    "check_settings_class",
    "create_advisors",
    "create_chat_client",
    "create_chat_model",
    "create_default_tools",
    "create_plugin_manager",
    "create_registry",
    "create_tool_advisor",
    "create_tool_calling_manager",
    "default_model",
    "describe_settings",
    "known_setting_fields",
    "load_core_settings",
    "load_plugin_settings",
    "load_settings",
    "parse_model",
    "select_tool_advisor",
    "setting_fields",
    "tool_sets_not_enabled",
    "warn_unknown_variables",
]

# The container imports dependency-injector (~40-60 ms): only on first use.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AutoConfiguration": "ostinato.config._container",
        "build_container": "ostinato.config._container",
        "chat_client": "ostinato.config._container",
    },
)
