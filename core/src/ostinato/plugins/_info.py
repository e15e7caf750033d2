"""What is known about each plugin: where it came from, and why it failed or was skipped."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "PluginFailure",
    "PluginInfo",
    "PluginLoadWarning",
    "PluginOrigin",
    "SkippedPlugin",
    "ToolSetNotEnabledWarning",
]


class PluginLoadWarning(UserWarning):
    """A plugin failed to load or register and was left out (the others still loaded).

    Set ``OSTINATO_STRICT_PLUGINS=1`` to make such failures errors instead.
    """


class ToolSetNotEnabledWarning(UserWarning):
    """A plugin's tool set is configured (the variable it names as ``configured_by`` is
    set) but ``OSTINATO_TOOLS__ENABLED`` does not list it, so auto-configured clients do
    not get its tools. The message names the variable that enables it."""


class PluginOrigin(enum.StrEnum):
    """How a plugin reached the plugin manager."""

    #: Registered by ostinato itself (the core's defaults).
    BUILTIN = "builtin"
    #: Found through an entry point of the group ``ostinato``.
    ENTRY_POINT = "entry-point"
    #: Passed explicitly, e.g. ``build_container(plugins=[...])`` in tests.
    EXPLICIT = "explicit"


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One plugin: its short name and the distribution that provides it.

    Attributes:
        name: the plugin's short name (the entry point's name), e.g. ``"openai"``.
        distribution: the distribution's name (``None`` for explicit plugin objects).
        version: the distribution's version (``None`` when unknown).
        origin: how the plugin was found.
        value: the entry point's value (``"ostinato_openai.plugin"``) or the object's repr.
    """

    name: str
    distribution: str | None = None
    version: str | None = None
    origin: PluginOrigin = PluginOrigin.EXPLICIT
    value: str = ""

    @property
    def label(self) -> str:
        """``plugin 'openai' (distribution ostinato-openai 0.1.0)``, for messages."""
        return f"plugin {self.name!r} ({self.source})"

    @property
    def source(self) -> str:
        """Where the plugin came from: ``distribution ostinato-openai 0.1.0`` and the like."""
        if self.origin is PluginOrigin.BUILTIN:
            return "built into ostinato"
        if self.distribution is None:
            return "passed explicitly"
        return f"distribution {self.distribution} {self.version or '(unknown version)'}".rstrip()


@dataclass(frozen=True, slots=True)
class PluginFailure:
    """A plugin that was left out because it failed.

    Attributes:
        plugin: the plugin.
        phase: ``"import"`` (loading its entry point), ``"validate"`` (its hooks) or
            ``"register"`` (running its hooks).
        error: one line: the exception's type and message.
        message: the whole report, one fact per line.
    """

    plugin: PluginInfo
    phase: str
    error: str
    message: str


@dataclass(frozen=True, slots=True)
class SkippedPlugin:
    """An installed plugin that was not loaded on purpose.

    Attributes:
        plugin: the plugin.
        reason: why, naming the variable that decided it.
    """

    plugin: PluginInfo
    reason: str
