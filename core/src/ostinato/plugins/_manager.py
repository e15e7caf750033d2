"""The plugin manager: pluggy's, plus our own entry-point loop and its report.

We do not use pluggy's ``load_setuptools_entrypoints``: it stops at the first broken
plugin and skips a duplicate name silently. Here each entry point loads on its own; a
broken one is reported with its distribution, version and error, and the others still
load (unless ``strict``); two plugins with one name are an error naming both; hooks with
no specification (misspelled names) and hook-named functions without ``@hookimpl`` are
caught before anything runs. This module must not import plugin code other than through
the entry points it is asked to load.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import warnings
from collections.abc import Collection, Iterable
from typing import Final

import pluggy

from ostinato.errors import PluginError
from ostinato.plugins._hookspecs import HOOK_NAMES, PROJECT_NAME, HookSpecs
from ostinato.plugins._info import (
    PluginFailure,
    PluginInfo,
    PluginLoadWarning,
    PluginOrigin,
    SkippedPlugin,
)

__all__ = ["ENTRY_POINT_GROUP", "PluginManager"]

#: The entry-point group plugins declare themselves in.
ENTRY_POINT_GROUP: Final = "ostinato"


def _canonical(name: str) -> str:
    """Names compare like distribution names: case, ``-``, ``_`` and ``.`` do not matter."""
    return name.strip().lower().replace("_", "-").replace(".", "-")


def _error_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class PluginManager(pluggy.PluginManager):
    """pluggy's plugin manager for the project ``ostinato``, with a report of what loaded.

    Add plugins with :meth:`add_plugin` (objects) and :meth:`load_entry_points`
    (installed distributions). :attr:`plugins`, :attr:`failures` and :attr:`skipped` say
    what happened, for ``ostinato plugins``.

    Args:
        strict: raise :class:`~ostinato.errors.PluginError` on the first broken plugin
            instead of reporting it and going on (``OSTINATO_STRICT_PLUGINS=1``).
    """

    def __init__(self, *, strict: bool = False) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(HookSpecs)
        self.strict: Final = strict
        self._infos: dict[str, PluginInfo] = {}
        self._failures: list[PluginFailure] = []
        self._skipped: list[SkippedPlugin] = []

    @property
    def plugins(self) -> tuple[PluginInfo, ...]:
        """The plugins loaded, in the order they were added."""
        return tuple(
            self._infos[name] for name, _ in self.list_name_plugin() if name in self._infos
        )

    @property
    def failures(self) -> tuple[PluginFailure, ...]:
        """The plugins left out because they failed, in the order they failed."""
        return tuple(self._failures)

    @property
    def skipped(self) -> tuple[SkippedPlugin, ...]:
        """The installed plugins not loaded because of the allow or block list."""
        return tuple(self._skipped)

    def info(self, name: str) -> PluginInfo:
        """The :class:`PluginInfo` of the plugin registered as ``name``.

        A plugin registered with pluggy's own ``register`` (not :meth:`add_plugin`) gets a
        bare one.
        """
        return self._infos.get(name) or PluginInfo(name, value=repr(self.get_plugin(name)))

    def add_plugin(self, plugin: object, info: PluginInfo) -> None:
        """Register ``plugin`` (a module or object of hook implementations) as ``info.name``.

        Raises:
            PluginError: the name is taken, or the plugin's hooks are not valid (a hook
                name with no specification, a hook-named function without ``@hookimpl``,
                arguments the hook does not offer); the plugin is not registered.
        """
        if info.name in self._infos:
            raise PluginError(self._duplicate_message(self._infos[info.name], info))
        try:
            self.register(plugin, name=info.name)
        except (pluggy.PluginValidationError, ValueError) as exc:
            raise PluginError(
                f"{info.label} has an invalid hook implementation:\n"
                f"  {exc}\n"
                f"fix: make each hook's arguments a subset of its specification "
                f"(see `ostinato.plugins.HookSpecs`)"
            ) from exc
        problems = self._hook_problems(plugin, info)
        if problems:
            self.unregister(plugin)
            raise PluginError("\n".join(problems))
        self._infos[info.name] = info

    def load_entry_points(
        self, *, load: Collection[str] | None = None, disable: Collection[str] = ()
    ) -> None:
        """Load every installed plugin of the entry-point group ``ostinato``, one at a time.

        Args:
            load: the allow list (``OSTINATO_LOAD_PLUGINS``): plugin or distribution names;
                ``None`` loads all, an empty list none.
            disable: the block list (``OSTINATO_DISABLE_PLUGINS``), names as for ``load``.

        Raises:
            PluginError: two installed plugins share a name; or, when :attr:`strict`, a
                plugin failed.
        """
        allowed = None if load is None else {_canonical(n) for n in load}
        blocked = {_canonical(n) for n in disable}
        entry_points = sorted(
            importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name
        )
        infos = [(ep, self._entry_point_info(ep)) for ep in entry_points]
        self._warn_unknown_names("OSTINATO_LOAD_PLUGINS", allowed or set(), infos)
        self._warn_unknown_names("OSTINATO_DISABLE_PLUGINS", blocked, infos)
        chosen: dict[str, PluginInfo] = {}
        for ep, info in infos:
            names = {_canonical(info.name), _canonical(info.distribution or info.name)}
            if allowed is not None and not names & allowed:
                reason = "not listed in OSTINATO_LOAD_PLUGINS"
                self._skipped.append(SkippedPlugin(info, reason))
                continue
            if names & blocked:
                self._skipped.append(SkippedPlugin(info, "listed in OSTINATO_DISABLE_PLUGINS"))
                continue
            taken = chosen.get(info.name) or self._infos.get(info.name)
            if taken is not None:
                raise PluginError(self._duplicate_message(taken, info))
            chosen[info.name] = info
            try:
                plugin = ep.load()
            except Exception as exc:  # a plugin's import may fail in any way
                self._fail(info, "import", exc, f"its entry point {ep.name} = {ep.value}")
                continue
            try:
                self.add_plugin(plugin, info)
            except PluginError as exc:
                self._fail(info, "validate", exc, "")
        self.check_pending_hooks()

    def check_pending_hooks(self) -> None:
        """pluggy's ``check_pending``, raising :class:`~ostinato.errors.PluginError`."""
        try:
            self.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"{exc}\nfix: rename the hook (see HookSpecs)") from exc

    def remove_failed(self, name: str, phase: str, exc: BaseException) -> None:
        """Unregister the plugin ``name`` after it failed in ``phase``, and report it.

        Raises:
            PluginError: when :attr:`strict` (the plugin is still unregistered).
        """
        info = self.info(name)
        self._infos.pop(name, None)
        self.unregister(name=name)
        self._fail(info, phase, exc, "")

    def _fail(self, info: PluginInfo, phase: str, exc: BaseException, where: str) -> None:
        verb = {"import": "failed to load", "register": "failed to register its contributions"}
        head = f"{info.label} {verb.get(phase, 'is invalid')}:"
        if isinstance(exc, PluginError):
            detail = "\n".join(f"  {line}" for line in str(exc).splitlines())
        else:
            detail = f"  {_error_line(exc)}"
        lines = [head, detail]
        if where:
            lines.append(f"  in {where}")
        if not self.strict:
            lines.append("  it was left out; the other plugins still load")
        fix = f"fix: upgrade or reinstall {info.distribution}, or" if info.distribution else "fix:"
        lines.append(f"{fix} disable it with OSTINATO_DISABLE_PLUGINS={info.name}")
        message = "\n".join(lines)
        if self.strict:
            raise PluginError(message) from exc
        self._failures.append(PluginFailure(info, phase, _error_line(exc), message))
        warnings.warn(message, PluginLoadWarning, stacklevel=3)

    def _hook_problems(self, plugin: object, info: PluginInfo) -> list[str]:
        problems = []
        for caller in self.get_hookcallers(plugin) or ():
            impls = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
            if not caller.has_spec() and not all(impl.optionalhook for impl in impls):
                close = difflib.get_close_matches(caller.name, HOOK_NAMES, n=1)
                hint = (
                    f"did you mean {close[0]!r}?"
                    if close
                    else f"known hooks: {', '.join(HOOK_NAMES)}"
                )
                problems.append(
                    f"{info.label} implements an unknown hook {caller.name!r}:\n"
                    f"  no hook of that name is specified\n"
                    f"fix: {hint}"
                )
            if any(impl.hookwrapper or impl.wrapper for impl in impls):
                problems.append(
                    f"{info.label} wraps the hook {caller.name!r}:\n"
                    f"  registration hooks do not support wrappers\n"
                    f"fix: use a plain @hookimpl"
                )
        marked = {caller.name for caller in self.get_hookcallers(plugin) or ()}
        for hook_name in HOOK_NAMES:
            function = getattr(plugin, hook_name, None)
            if callable(function) and hook_name not in marked:
                problems.append(
                    f"{info.label} defines {hook_name!r} without @hookimpl:\n"
                    f"  the function would never be called\n"
                    f"fix: decorate it with @ostinato.plugins.hookimpl"
                )
        return problems

    @staticmethod
    def _entry_point_info(ep: importlib.metadata.EntryPoint) -> PluginInfo:
        dist = ep.dist
        return PluginInfo(
            name=ep.name,
            distribution=dist.name if dist is not None else None,
            version=dist.version if dist is not None else None,
            origin=PluginOrigin.ENTRY_POINT,
            value=ep.value,
        )

    @staticmethod
    def _duplicate_message(first: PluginInfo, second: PluginInfo) -> str:
        return (
            f"two plugins are named {second.name!r}:\n"
            f"  {first.source}\n"
            f"  {second.source}\n"
            f"fix: uninstall one of them, or disable one by its distribution name with "
            f"OSTINATO_DISABLE_PLUGINS={second.distribution or second.name}"
        )

    @staticmethod
    def _warn_unknown_names(
        variable: str, names: set[str], infos: Iterable[tuple[object, PluginInfo]]
    ) -> None:
        known = sorted(
            {_canonical(i.name) for _, i in infos}
            | {_canonical(i.distribution) for _, i in infos if i.distribution}
        )
        for name in sorted(names - set(known)):
            close = difflib.get_close_matches(name, known, n=1)
            hint = (
                f"did you mean {close[0]!r}?"
                if close
                else "installed: " + (", ".join(known) or "none")
            )
            warnings.warn(
                f"{variable} names {name!r}, which is not an installed plugin\n{hint}",
                PluginLoadWarning,
                stacklevel=4,
            )
