"""Lazy exports (PEP 562): names a package lists in ``__all__`` but imports on first use.

A package that must stay cheap to import (``ostinato.config``, a plugin's package)
declares what it exports lazily, once::

    __getattr__, __dir__ = lazy_exports(__name__, {"OpenAISettings": "ostinato_openai._settings"})

and keeps ``__all__`` explicit, with the same names imported under ``TYPE_CHECKING`` so
type checkers see them. This module imports nothing but the standard library.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


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
