"""Plugins: the hook specifications, the entry-point loader, the registry of contributions.

A plugin is a distribution declaring an entry point in the group ``ostinato`` whose value
is a small module of hook implementations (the hooks are plain functions in
``ostinato.plugins._hookspecs``, gathered in :class:`HookSpecs`)::

    [project.entry-points.ostinato]
    acme = "ostinato_acme.plugin"

:class:`PluginManager` loads them (reporting the broken ones), :func:`collect_registry`
runs their hooks into a :class:`Registry`; every factory they registered is called with a
:class:`FactoryContext`. :func:`provider_plugin` and :func:`store_plugin` declare the
common plugins (a chat model provider, a chat memory store) in a few lines. Only this
package imports pluggy; ``import ostinato`` does not import it.
"""

from ostinato._lazy import lazy_exports, lazy_package
from ostinato.plugins._context import FactoryContext
from ostinato.plugins._factory_calls import call_factory
from ostinato.plugins._hookspecs import (
    HOOK_NAMES,
    HOOKS,
    PROJECT_NAME,
    Hook,
    HookSpecs,
    hookimpl,
    hookspec,
)
from ostinato.plugins._info import (
    PluginFailure,
    PluginInfo,
    PluginLoadWarning,
    PluginOrigin,
    SkippedPlugin,
    ToolSetNotEnabledWarning,
)
from ostinato.plugins._manager import ENTRY_POINT_GROUP, PluginManager
from ostinato.plugins._provider import ProviderPlugin, provider_plugin
from ostinato.plugins._registry import KINDS, Command, Registration, Registry, collect_registry
from ostinato.plugins._store import StorePlugin, store_plugin
from ostinato.plugins._types import (
    AdvisorFactory,
    ChatMemoryRepositoryFactory,
    ChatModelFactory,
    CommandRunner,
    DurableEngineFactory,
    RegisterAdvisor,
    RegisterChatMemoryRepository,
    RegisterChatModel,
    RegisterCommand,
    RegisterDurableEngine,
    RegisterFactory,
    RegisterSettings,
    RegisterToolAdvisor,
    RegisterToolSet,
    RegisterUnitWrapper,
    ToolAdvisorFactory,
    ToolSetFactory,
    UnitWrapperFactory,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "HOOKS",
    "HOOK_NAMES",
    "KINDS",
    "PROJECT_NAME",
    "AdvisorFactory",
    "ChatMemoryRepositoryFactory",
    "ChatModelFactory",
    "Command",
    "CommandRunner",
    "DurableEngineFactory",
    "FactoryContext",
    "Hook",
    "HookSpecs",
    "PluginFailure",
    "PluginInfo",
    "PluginLoadWarning",
    "PluginManager",
    "PluginOrigin",
    "ProviderPlugin",
    "RegisterAdvisor",
    "RegisterChatMemoryRepository",
    "RegisterChatModel",
    "RegisterCommand",
    "RegisterDurableEngine",
    "RegisterFactory",
    "RegisterSettings",
    "RegisterToolAdvisor",
    "RegisterToolSet",
    "RegisterUnitWrapper",
    "Registration",
    "Registry",
    "SkippedPlugin",
    "StorePlugin",
    "ToolAdvisorFactory",
    "ToolSetFactory",
    "ToolSetNotEnabledWarning",
    "UnitWrapperFactory",
    "call_factory",
    "collect_registry",
    "hookimpl",
    "hookspec",
    "lazy_exports",
    "lazy_package",
    "provider_plugin",
    "store_plugin",
]
