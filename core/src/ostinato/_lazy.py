"""Lazy exports (PEP 562): a package's public names, the heavy ones imported on first use.

A package that must stay cheap to import writes each lazy name once for the run time, in
one map, and derives ``__all__`` from it::

    from ostinato.light import Light as Light        # eager, imported now

    if TYPE_CHECKING:
        from ostinato.acme._heavy import Heavy as Heavy
    else:
        __all__, __getattr__, __dir__ = lazy_package(
            __name__, globals(), {"Heavy": "ostinato.acme._heavy"}
        )

:func:`lazy_package` returns ``__all__`` (every public name the package has bound so far,
plus the map's names), ``__getattr__`` (imports a lazy name on first read) and
``__dir__``.

Why type checkers read a second copy, and why it is checked rather than generated:
mypy, pyright and the documentation's griffe read a module without running it. They
understand ``__all__`` only as a literal list (mypy treats a module whose ``__all__`` it
cannot read as exporting nothing), and a map's string values carry no types. So the
``if TYPE_CHECKING:`` branch imports each lazy name for them, with the redundant alias
(``import X as X``) that marks an explicit re-export in a typed package (PEP 484; mypy
``--strict`` and pyright honour it, griffe through its ``public-redundant-aliases``
extension), and eager re-exports use the same alias. ``__all__`` is then assigned only
in the ``else`` branch, which type checkers skip, so they never see an ``__all__`` they
cannot read; the run time never sees the ``TYPE_CHECKING`` imports. That a package's
``TYPE_CHECKING`` imports and its map name the same names from the same modules is
checked by ``tests/core/test_lazy_maps.py`` (over core and every plugin package); stub
files or generated code would be a third copy to keep in step, not fewer.

This module imports nothing but the standard library.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

__all__ = ["LazyPackage", "lazy_exports", "lazy_names", "lazy_package"]

# The map of every package that called lazy_package, by package name.
_MAPS: dict[str, dict[str, str]] = {}


def lazy_exports(
    module_name: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of a package with lazy exports.

    Args:
        module_name: the package's ``__name__``.
        exports: ``{name: "module:attribute"}``; ``"module"`` alone means the attribute
            of the same name. The module is imported when the name is first read, and the
            value is then kept in the package (later reads cost nothing).

    Returns:
        ``(__getattr__, __dir__)``: assign them at module level. ``__dir__`` lists the
        package's ``__all__`` and every lazy name.
    """
    targets = {name: _split(name, spec) for name, spec in exports.items()}

    def __getattr__(name: str) -> Any:
        target = targets.get(name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        module, attribute = target
        value = getattr(importlib.import_module(module), attribute)
        setattr(sys.modules[module_name], name, value)
        return value

    def __dir__() -> list[str]:
        listed = getattr(sys.modules[module_name], "__all__", ())
        return sorted({*listed, *targets})

    return __getattr__, __dir__


def _split(name: str, spec: str) -> tuple[str, str]:
    module, _, attribute = spec.partition(":")
    if not module:
        raise ValueError(
            f"lazy export {name!r} -> {spec!r} names no module\n"
            f"fix: write it as 'package.module:attribute'"
        )
    return module, attribute or name


class LazyPackage(NamedTuple):
    """What :func:`lazy_package` gives a package: assign all three at module level."""

    all: list[str]
    getattr: Callable[[str], Any]
    dir: Callable[[], list[str]]


def lazy_package(
    module_name: str, namespace: Mapping[str, Any], exports: Mapping[str, str]
) -> LazyPackage:
    """A package's ``__all__``, ``__getattr__`` and ``__dir__``, from its map of lazy names.

    Args:
        module_name: the package's ``__name__``.
        namespace: the package's ``globals()`` once its eager names are bound: each public
            name in it (no leading underscore, not a module, not ``TYPE_CHECKING`` or a
            ``__future__`` feature), and ``__version__``, is exported.
        exports: the lazy names, as for :func:`lazy_exports`.

    Returns:
        ``(__all__, __getattr__, __dir__)``: ``__all__`` lists the eager names in the order
        they were bound, then the lazy ones in the map's order.
    """
    eager = [name for name, value in namespace.items() if _exported(name, value)]
    _MAPS[module_name] = dict(exports)
    return LazyPackage(
        [*eager, *(name for name in exports if name not in eager)],
        *lazy_exports(module_name, exports),
    )


def lazy_names(module_name: str) -> dict[str, str]:
    """The map of lazy names the package ``module_name`` gave :func:`lazy_package`
    (``{}`` when it gave none): the surface tests read their lists from it."""
    return dict(_MAPS.get(module_name, {}))


_NOT_EXPORTED = frozenset({"TYPE_CHECKING", "lazy_package", "lazy_exports"})


def _exported(name: str, value: object) -> bool:
    if name == "__version__":
        return True
    if name.startswith("_") or name in _NOT_EXPORTED:
        return False
    return not isinstance(value, types.ModuleType) and type(value).__name__ != "_Feature"
