"""The registry: every contribution the plugins registered, and who registered it.

:func:`collect_registry` is the typed facade over the hooks: it runs each plugin's hooks
with ``register`` callbacks that check what they receive and record which plugin gave
it. A plugin whose hook raises or registers something malformed is left out as a whole
(none of its contributions are kept) and reported like a plugin that failed to import;
one name registered twice is an error naming both distributions.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from ostinato.errors import PluginError
from ostinato.plugins._hookspecs import HOOK_NAMES, HOOKS, Hook
from ostinato.plugins._info import PluginInfo
from ostinato.plugins._manager import PluginManager
from ostinato.plugins._types import (
    AdvisorFactory,
    ChatMemoryRepositoryFactory,
    ChatModelFactory,
    CommandRunner,
    DurableEngineFactory,
    ToolAdvisorFactory,
    ToolSetFactory,
    UnitWrapperFactory,
)

__all__ = ["KINDS", "Command", "Registration", "Registry", "collect_registry"]

T = TypeVar("T")

#: The kinds of contribution, by hook: ``(hook name, registry attribute, what it is called)``
#: (derived from :data:`~ostinato.plugins.HOOKS`).
KINDS: Final[tuple[tuple[str, str, str], ...]] = tuple(
    (hook.name, hook.attribute, hook.kind) for hook in HOOKS
)

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
_PREFIX = re.compile(r"OSTINATO_[A-Z0-9]+(?:_[A-Z0-9]+)*_")
_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True, slots=True)
class Command:
    """A CLI subcommand contributed with ``register_commands``."""

    help: str
    run: CommandRunner


@dataclass(frozen=True, slots=True)
class Registration(Generic[T]):
    """One contribution: its name, the value registered, and the plugin that gave it.

    ``configured_by`` (tool sets only) is the plugin's variable whose value means the
    user wants the set (see ``register_tools``).
    """

    name: str
    value: T
    plugin: PluginInfo
    configured_by: str | None = None


@dataclass(frozen=True)
class Registry:
    """Everything the loaded plugins contributed, by kind, each keyed by its name.

    One field per row of :data:`~ostinato.plugins.HOOKS` (its ``attribute``), in that
    order. ``settings`` is keyed by the environment prefix (``OSTINATO_OPENAI_``) and
    holds the settings classes.
    """

    chat_models: Mapping[str, Registration[ChatModelFactory]] = field(default_factory=dict)
    tool_advisors: Mapping[str, Registration[ToolAdvisorFactory]] = field(default_factory=dict)
    advisors: Mapping[str, Registration[AdvisorFactory]] = field(default_factory=dict)
    chat_memory_repositories: Mapping[str, Registration[ChatMemoryRepositoryFactory]] = field(
        default_factory=dict
    )
    tools: Mapping[str, Registration[ToolSetFactory]] = field(default_factory=dict)
    durable_engines: Mapping[str, Registration[DurableEngineFactory]] = field(default_factory=dict)
    unit_wrappers: Mapping[str, Registration[UnitWrapperFactory]] = field(default_factory=dict)
    settings: Mapping[str, Registration[type[Any]]] = field(default_factory=dict)
    commands: Mapping[str, Registration[Command]] = field(default_factory=dict)

    def contributions_of(self, plugin_name: str) -> dict[str, list[str]]:
        """What the plugin ``plugin_name`` registered: ``{registry attribute: [names]}``."""
        found: dict[str, list[str]] = {}
        for _, attribute, _ in KINDS:
            entries: Mapping[str, Registration[Any]] = getattr(self, attribute)
            names = [name for name, reg in entries.items() if reg.plugin.name == plugin_name]
            if names:
                found[attribute] = names
        return found


class _Staging:
    """One plugin's contributions while its hooks run; merged only if all of them succeed."""

    def __init__(self, plugin: PluginInfo) -> None:
        self.plugin = plugin
        self.entries: dict[str, dict[str, Registration[Any]]] = {a: {} for _, a, _ in KINDS}

    def add(
        self, attribute: str, kind: str, name: str, value: object, configured_by: str | None = None
    ) -> None:
        entries = self.entries[attribute]
        if name in entries:
            raise PluginError(
                f"{self.plugin.label} registered the {kind} {name!r} twice\n"
                f"fix: register each name once"
            )
        entries[name] = Registration(name, value, self.plugin, configured_by)

    def callbacks(self) -> dict[str, Callable[..., None]]:
        def named(hook: Hook) -> Callable[..., None]:
            # register(name, factory), the first keyword named as in HOOKS ("provider").
            key = hook.registers.partition("(")[2].partition(":")[0].strip()
            signature = inspect.Signature(
                [
                    *(
                        inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                        for p in (key, "factory")
                    ),
                    *(
                        inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None)
                        for k in hook.keywords
                    ),
                ]
            )

            def register(*args: Any, **kwargs: Any) -> None:
                bound = signature.bind(*args, **kwargs).arguments
                name, factory = bound[key], bound["factory"]
                _check_name(self.plugin, hook.kind, name)
                _check_callable(self.plugin, hook.kind, name, "factory", factory)
                configured_by = bound.get("configured_by")
                _check_variable(self.plugin, hook.kind, name, configured_by)
                self.add(hook.attribute, hook.kind, name, factory, configured_by)

            register.__signature__ = signature  # type: ignore[attr-defined]
            return register

        def register_settings(prefix: str, settings_class: object) -> None:
            if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
                raise PluginError(
                    f"{self.plugin.label} registered settings under the prefix {prefix!r}\n"
                    f"  expected: OSTINATO_<PLUGIN>_, upper case, ending with one '_'\n"
                    f'fix: register("OSTINATO_{_upper(self.plugin.name)}_", SettingsClass)'
                )
            if not isinstance(settings_class, type):
                raise PluginError(
                    f"{self.plugin.label} registered {settings_class!r} for {prefix!r}\n"
                    f"  expected: a pydantic-settings BaseSettings subclass\n"
                    f"fix: pass the class itself, not an instance"
                )
            self.add("settings", "settings prefix", prefix, settings_class)

        def register_command(name: str, help: str, run: object) -> None:
            _check_name(self.plugin, "command", name)
            _check_callable(self.plugin, "command", name, "run", run)
            if not isinstance(help, str):
                raise PluginError(
                    f"{self.plugin.label} registered the command {name!r} with help={help!r}\n"
                    f"  expected: a one-line str\n"
                    f'fix: register(name, "what it does", run)'
                )
            self.add("commands", "command", name, Command(help.strip(), run))  # type: ignore[arg-type]

        special: dict[str, Callable[..., None]] = {
            "settings": register_settings,
            "command": register_command,
        }
        return {hook.name: special.get(hook.registration) or named(hook) for hook in HOOKS}


def _upper(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")


def _check_name(plugin: PluginInfo, kind: str, name: object) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PluginError(
            f"{plugin.label} registered a {kind} named {name!r}\n"
            f"  expected: lower case letters, digits, '.', '_' or '-'\n"
            f"fix: use a short name such as {_upper(plugin.name).lower().replace('_', '-')!r}"
        )


def _check_callable(plugin: PluginInfo, kind: str, name: str, what: str, value: object) -> None:
    if not callable(value):
        raise PluginError(
            f"{plugin.label} registered the {kind} {name!r} with {what}={value!r}\n"
            f"  expected: a callable\n"
            f"fix: pass the function or class itself"
        )


def _check_variable(plugin: PluginInfo, kind: str, name: str, variable: object) -> None:
    if variable is not None and not (isinstance(variable, str) and _VARIABLE.fullmatch(variable)):
        raise PluginError(
            f"{plugin.label} registered the {kind} {name!r} with configured_by={variable!r}\n"
            f"  expected: the name of one of the plugin's environment variables, upper case\n"
            f'fix: pass configured_by="OSTINATO_{_upper(plugin.name)}_..." or leave it out'
        )


def collect_registry(manager: PluginManager) -> Registry:
    """Run every registered plugin's hooks and gather what they register.

    Args:
        manager: the :class:`~ostinato.plugins.PluginManager` holding the plugins.

    Raises:
        PluginError: two plugins registered one name of one kind; or a plugin's hook
            failed and the manager is strict (otherwise that plugin is reported and left
            out).
    """
    merged: dict[str, dict[str, Registration[Any]]] = {a: {} for _, a, _ in KINDS}
    for name, plugin in list(manager.list_name_plugin()):
        if plugin is None:
            continue
        staging = _Staging(manager.info(name))
        callbacks = staging.callbacks()
        try:
            for hook in HOOK_NAMES:
                for impl in getattr(manager.hook, hook).get_hookimpls():
                    if impl.plugin is plugin:
                        offered = {"register": callbacks[hook]}
                        impl.function(**{arg: offered[arg] for arg in impl.argnames})
        except Exception as exc:  # a plugin's hook may fail in any way
            manager.remove_failed(name, "register", exc)
            continue
        for _, attribute, kind in KINDS:
            for key, registration in staging.entries[attribute].items():
                taken = merged[attribute].get(key)
                if taken is not None:
                    raise PluginError(
                        f"the {kind} {key!r} is registered by two plugins:\n"
                        f"  {taken.plugin.label}\n"
                        f"  {registration.plugin.label}\n"
                        f"fix: uninstall one of them, or disable one with "
                        f"OSTINATO_DISABLE_PLUGINS={registration.plugin.name}"
                    )
                merged[attribute][key] = registration
    return Registry(**merged)
