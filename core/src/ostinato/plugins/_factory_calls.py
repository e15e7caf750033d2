"""Calling a registered factory: with the factory context, or the old way, deprecated.

A factory takes the :class:`~ostinato.plugins.FactoryContext` first (its first parameter
is named ``context`` or annotated ``FactoryContext``), then what its hook adds; one that
needs nothing may take no parameter. Factories written before the context existed
(``(model_name)``, ``(tool_calling_manager, *, settings)``, ``(registry=None,
plugin_settings=None)``) are still called as they were, for one release, with a
:class:`DeprecationWarning` naming the plugin and what to write instead.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from ostinato.plugins._context import FactoryContext
from ostinato.plugins._hookspecs import HOOKS
from ostinato.plugins._registry import Registration

__all__ = ["call_factory"]

_BY_NAME = {hook.name: hook for hook in HOOKS}

#: The keywords factories used to receive, and what the context offers instead.
_OLD_KEYWORDS = {
    "registry": "context.registry",
    "settings": "context.settings",
    "plugin_settings": "context.plugin_settings(YourSettings)",
}


def call_factory(
    hook: str, registration: Registration[Any], context: FactoryContext, *arguments: Any
) -> Any:
    """Call the factory of ``registration`` (registered with ``hook``) and return its result.

    Args:
        hook: the hook it was registered with (``"register_advisors"``).
        registration: the registration holding the factory and its plugin.
        context: the factory context (made the plugin's own here).
        arguments: what the hook adds after the context (the model name, the tool
            calling manager).

    Warns:
        DeprecationWarning: the factory declares the parameters of the old calling
            convention instead of taking the context.
    """
    spec = _BY_NAME[hook]
    factory: Any = registration.value
    own = context.for_plugin(registration.plugin)
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return factory(*arguments)
    if parameters and _is_context(parameters[0]):
        return factory(own, *arguments)
    if not parameters:
        return factory(*arguments)
    keywords: dict[str, Any] = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    names = {p.name for p in parameters}
    for name in _OLD_KEYWORDS:
        if name in names or takes_any:
            value = own.own_settings() if name == "plugin_settings" else getattr(own, name)
            if value is not None:
                keywords[name] = value
    _warn(spec.kind, registration, spec.factory_arguments, [n for n in _OLD_KEYWORDS if n in names])
    return factory(*arguments, **keywords)


def _is_context(parameter: inspect.Parameter) -> bool:
    if parameter.kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        return False
    annotation = parameter.annotation
    if annotation is FactoryContext:
        return True
    if isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "FactoryContext":
        return True
    return parameter.name == "context"


def _warn(
    kind: str, registration: Registration[Any], arguments: tuple[str, ...], old: list[str]
) -> None:
    declared = ", ".join([*arguments, *old]) or "its own parameters"
    reads = ", ".join(_OLD_KEYWORDS[name] for name in old)
    warnings.warn(
        f"{registration.plugin.label}: the {kind} factory {registration.name!r} takes "
        f"({declared}) instead of the factory context; this calling convention is "
        f"deprecated and stops working in the next release\n"
        f"fix: write it as def factory({', '.join(['context: FactoryContext', *arguments])})"
        + (f" and read {reads}" if reads else "")
        + " (FactoryContext from ostinato.plugins)",
        DeprecationWarning,
        stacklevel=3,
    )
