"""The ``retrieval`` plugin module (entry point ``ostinato: retrieval``).

Registers:

* the settings under ``OSTINATO_RETRIEVAL_`` (``RetrievalSettings``);
* the advisor ``retrieval``: with ``OSTINATO_RETRIEVAL_ADVISOR=question-answer`` or
  ``retrieval-augmentation`` every auto-configured client searches the configured store
  (``OSTINATO_RETRIEVAL_STORE``, embedded by ``OSTINATO_RETRIEVAL_EMBEDDING``); with
  ``none`` (the default) it adds nothing;
* the command ``ostinato index PATH...``.

Import-light on purpose: importing it imports neither sqlite3, sqlite-vec nor
pydantic-settings; each hook imports what it needs when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ostinato.plugins import hookimpl

if TYPE_CHECKING:
    from ostinato.advisors import Advisor
    from ostinato.plugins import FactoryContext

__all__ = [
    "ADVISOR",
    "COMMAND",
    "SETTINGS_PREFIX",
    "advisor_factory",
    "register_advisors",
    "register_commands",
    "register_settings",
    "run_index_command",
]

#: The settings prefix this plugin reads.
SETTINGS_PREFIX: Final = "OSTINATO_RETRIEVAL_"
#: The name the advisor is registered under.
ADVISOR: Final = "retrieval"
#: The ``ostinato`` subcommand this plugin adds.
COMMAND: Final = "index"


@hookimpl
def register_settings(register: Any) -> None:
    """Register the retrieval settings under ``OSTINATO_RETRIEVAL_``."""
    from ostinato_retrieval._settings import RetrievalSettings

    register(SETTINGS_PREFIX, RetrievalSettings)


def advisor_factory(context: FactoryContext) -> Advisor | None:
    """The registered ``retrieval`` factory: the advisor ``OSTINATO_RETRIEVAL_ADVISOR``
    names, or ``None``."""
    from ostinato_retrieval._settings import RetrievalSettings

    settings = context.plugin_settings(RetrievalSettings)
    if settings.advisor == "none":
        return None  # the default: nothing of retrieval is imported for it
    from ostinato_retrieval._auto import advisor_from_settings

    return advisor_from_settings(settings)


@hookimpl
def register_advisors(register: Any) -> None:
    """Register ``retrieval`` (active only when ``OSTINATO_RETRIEVAL_ADVISOR`` names one)."""
    register(ADVISOR, advisor_factory)


def run_index_command(argv: list[str]) -> int:
    """``ostinato index PATH...``."""
    from ostinato_retrieval._index_command import main

    return main(argv)


@hookimpl
def register_commands(register: Any) -> None:
    """Register ``ostinato index``."""
    register(
        COMMAND,
        "cut files into chunks, embed and store them for retrieval (OSTINATO_RETRIEVAL_*)",
        run_index_command,
    )
