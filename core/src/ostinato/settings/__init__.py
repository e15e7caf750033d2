"""Settings: what ``OSTINATO_*`` environment variables (and ``.env``) configure.

:class:`Settings` (pydantic-settings) holds core's settings; a plugin derives its own
from :class:`PluginSettings` under a flat prefix (``OSTINATO_ACME_``). :func:`load_settings`
reads any of them and turns every bad value into one
:class:`~ostinato.errors.ConfigurationError` naming the variables (never showing a
secret). This package imports pydantic-settings but not the container
(:mod:`ostinato.config`), so a plugin's factory can read its settings cheaply.
"""

from ostinato.settings._fields import (
    SECRET_MASK,
    SettingField,
    SettingValue,
    describe_settings,
    describe_unloaded,
    setting_fields,
)
from ostinato.settings._loading import (
    PluginSettings,
    UnknownSettingWarning,
    load_settings,
    warn_unknown_variables,
)
from ostinato.settings._plugin_settings import (
    BadSettingWarning,
    check_settings_class,
    known_setting_fields,
    load_plugin_settings,
)
from ostinato.settings._settings import (
    ChatClientSettings,
    CommaSeparated,
    Settings,
    ToolCallingSettings,
    ToolsSettings,
)

__all__ = [
    "SECRET_MASK",
    "BadSettingWarning",
    "ChatClientSettings",
    "CommaSeparated",
    "PluginSettings",
    "SettingField",
    "SettingValue",
    "Settings",
    "ToolCallingSettings",
    "ToolsSettings",
    "UnknownSettingWarning",
    "check_settings_class",
    "describe_settings",
    "describe_unloaded",
    "known_setting_fields",
    "load_plugin_settings",
    "load_settings",
    "setting_fields",
    "warn_unknown_variables",
]
