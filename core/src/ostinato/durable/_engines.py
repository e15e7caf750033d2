"""Finding the installed durable engine: :func:`durable_engine`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ostinato.errors import ConfigurationError

if TYPE_CHECKING:
    from ostinato.durable._turns import DurableEngine

__all__ = ["durable_engine"]


def durable_engine(name: str | None = None, **overrides: Any) -> DurableEngine:
    """The durable engine a plugin registered (``register_durable_engines``), opened.

    Args:
        name: which one, when several are installed (``"dbos"``).
        overrides: providers of the :class:`~ostinato.config.AutoConfiguration` to
            replace (``plugins=[...]``), as for :func:`ostinato.chat_client`.

    Raises:
        ConfigurationError: none is installed, ``name`` is not one of them, or several
            are and ``name`` is not given.
    """
    from ostinato.config import build_container
    from ostinato.config._factories import factory_context, installed
    from ostinato.plugins._factory_calls import call_factory

    container = build_container(**overrides)
    registry = container.registry()
    engines = registry.durable_engines
    if name is None:
        if len(engines) != 1:
            raise ConfigurationError(
                f"durable_engine() needs exactly one installed durable engine, found "
                f"{len(engines)}: {installed(engines) or 'none'}\n"
                "fix: install one (pip install ostinato-dbos), or name it: "
                "durable_engine('dbos')"
            )
        (registration,) = engines.values()
    else:
        found = engines.get(name)
        if found is None:
            raise ConfigurationError(
                f"no durable engine named {name!r} is installed\n"
                f"  installed: {installed(engines) or 'none'}\n"
                "fix: use one of those names, or install the plugin providing it"
            )
        registration = found
    context = factory_context(registry, container.settings(), container.plugin_settings())
    engine: DurableEngine = call_factory("register_durable_engines", registration, context)
    return engine
