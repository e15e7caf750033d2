"""What the declared plugins (:func:`~ostinato.plugins.provider_plugin`,
:func:`~ostinato.plugins.store_plugin`) share: dotted paths loaded on use, and the plugin
module's names served lazily (PEP 562)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ostinato.plugins._hookspecs import hookimpl

if TYPE_CHECKING:
    from ostinato.plugins._types import RegisterSettings

__all__ = ["DeclaredPlugin", "check_path", "load", "module_exports"]


def check_path(helper: str, what: str, path: str) -> None:
    """Raise :class:`ValueError` unless ``path`` reads ``module:attribute``."""
    module, sep, attribute = path.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(
            f"{helper}({what}={path!r}) is not a dotted path to an attribute\n"
            f"fix: write it as 'package.module:attribute'"
        )


def load(path: str) -> Any:
    """The attribute ``module:attribute`` names (imports its module)."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


def module_exports(
    module: str, values: Mapping[str, Any]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """A plugin module's ``__all__``, ``__getattr__`` and ``__dir__`` serving ``values``;
    ``module`` is the plugin module's ``__name__``."""

    def __getattr__(name: str) -> Any:
        try:
            return values[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *values})

    return sorted(values), __getattr__, __dir__


class DeclaredPlugin:
    """What a declared plugin object shares: its settings class by dotted path, the
    ``register_settings`` hook, and the plugin module's names (:meth:`module_values`)."""

    __slots__ = ()

    settings: str
    settings_prefix: str

    def settings_class(self) -> type[Any]:
        """The settings class (imports its module)."""
        found: type[Any] = load(self.settings)
        return found

    def module_values(self) -> dict[str, Any]:
        """The plugin module's names and values."""
        raise NotImplementedError

    def module_exports(
        self, module: str
    ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
        """The plugin module's ``__all__``, ``__getattr__`` and ``__dir__`` (PEP 562),
        serving :meth:`module_values`; ``module`` is the plugin module's ``__name__``."""
        return module_exports(module, self.module_values())

    @hookimpl
    def register_settings(self, register: RegisterSettings) -> None:
        """Register the settings class under the prefix."""
        register(self.settings_prefix, self.settings_class())
