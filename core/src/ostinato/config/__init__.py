"""Auto-configuration: settings from the environment, and the container wiring plugins.

:class:`Settings` (pydantic-settings) reads the ``OSTINATO_*`` variables and ``.env``;
:class:`AutoConfiguration` (dependency-injector) turns them and the installed plugins
into a :class:`~ostinato.client.ChatClient`; :func:`chat_client` is the one-line entry.
The decisions the container makes are plain functions exported here too. Nothing imports
this package until auto-configuration is used: it costs the import of pydantic-settings
and dependency-injector.
"""

from ostinato.config._container import AutoConfiguration, build_container, chat_client
from ostinato.config._core_plugin import CORE_PLUGIN_NAME, DEFAULT_TOOL_ADVISOR, CorePlugin
from ostinato.config._decisions import (
    ToolAdvisorChoice,
    create_advisors,
    create_chat_client,
    create_chat_model,
    create_default_tools,
    create_plugin_manager,
    create_registry,
    create_tool_advisor,
    create_tool_calling_manager,
    load_core_settings,
    parse_model,
    select_tool_advisor,
)
from ostinato.config._fields import (
    SECRET_MASK,
    SettingField,
    SettingValue,
    describe_settings,
    setting_fields,
)
from ostinato.config._loading import (
    PluginSettings,
    UnknownSettingWarning,
    load_settings,
    warn_unknown_variables,
)
from ostinato.config._plugin_settings import (
    check_settings_class,
    known_setting_fields,
    load_plugin_settings,
)
from ostinato.config._settings import (
    ChatClientSettings,
    CommaSeparated,
    Settings,
    ToolCallingSettings,
    ToolsSettings,
)

__all__ = [
    "CORE_PLUGIN_NAME",
    "DEFAULT_TOOL_ADVISOR",
    "SECRET_MASK",
    "AutoConfiguration",
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
    "describe_settings",
    "known_setting_fields",
    "load_core_settings",
    "load_plugin_settings",
    "load_settings",
    "parse_model",
    "select_tool_advisor",
    "setting_fields",
    "warn_unknown_variables",
]
