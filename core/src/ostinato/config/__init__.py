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

from ostinato._lazy import lazy_package
from ostinato.config._boot import create_plugin_manager as create_plugin_manager
from ostinato.config._boot import create_registry as create_registry
from ostinato.config._boot import load_core_settings as load_core_settings
from ostinato.config._client_parts import create_advisors as create_advisors
from ostinato.config._client_parts import create_chat_client as create_chat_client
from ostinato.config._client_parts import create_chat_model as create_chat_model
from ostinato.config._client_parts import create_default_tools as create_default_tools
from ostinato.config._client_parts import parse_model as parse_model
from ostinato.config._client_parts import tool_sets_not_enabled as tool_sets_not_enabled
from ostinato.config._core_plugin import CORE_PLUGIN_NAME as CORE_PLUGIN_NAME
from ostinato.config._core_plugin import DEFAULT_TOOL_ADVISOR as DEFAULT_TOOL_ADVISOR
from ostinato.config._core_plugin import CorePlugin as CorePlugin
from ostinato.config._default_model import LOCAL_DEFAULT_MODEL as LOCAL_DEFAULT_MODEL
from ostinato.config._default_model import default_model as default_model
from ostinato.config._tool_advisor import ToolAdvisorChoice as ToolAdvisorChoice
from ostinato.config._tool_advisor import create_tool_advisor as create_tool_advisor
from ostinato.config._tool_advisor import create_tool_calling_manager as create_tool_calling_manager
from ostinato.config._tool_advisor import select_tool_advisor as select_tool_advisor
from ostinato.settings import SECRET_MASK as SECRET_MASK
from ostinato.settings import BadSettingWarning as BadSettingWarning
from ostinato.settings import ChatClientSettings as ChatClientSettings
from ostinato.settings import CommaSeparated as CommaSeparated
from ostinato.settings import PluginSettings as PluginSettings
from ostinato.settings import SettingField as SettingField
from ostinato.settings import Settings as Settings
from ostinato.settings import SettingValue as SettingValue
from ostinato.settings import ToolCallingSettings as ToolCallingSettings
from ostinato.settings import ToolsSettings as ToolsSettings
from ostinato.settings import UnknownSettingWarning as UnknownSettingWarning
from ostinato.settings import check_settings_class as check_settings_class
from ostinato.settings import describe_settings as describe_settings
from ostinato.settings import known_setting_fields as known_setting_fields
from ostinato.settings import load_plugin_settings as load_plugin_settings
from ostinato.settings import load_settings as load_settings
from ostinato.settings import setting_fields as setting_fields
from ostinato.settings import warn_unknown_variables as warn_unknown_variables

# The container imports dependency-injector (~40-60 ms): only on first use.
if TYPE_CHECKING:
    from ostinato.config._container import AutoConfiguration as AutoConfiguration
    from ostinato.config._container import build_container as build_container
    from ostinato.config._container import chat_client as chat_client
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "AutoConfiguration": "ostinato.config._container",
            "build_container": "ostinato.config._container",
            "chat_client": "ostinato.config._container",
        },
    )
