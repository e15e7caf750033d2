"""``ToolSearchSettings``: the plugin's environment variables, prefix ``OSTINATO_TOOL_SEARCH_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["ENV_PREFIX", "IndexKind", "ToolSearchSettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_TOOL_SEARCH_"

#: The bundled indexes: ``keyword`` (BM25, the default) or ``regex`` (Spring AI's).
IndexKind = Literal["keyword", "regex"]


class ToolSearchSettings(PluginSettings):
    """How the ``tool-search`` tool advisor searches and what it remembers.

    Attributes:
        max_results: ``OSTINATO_TOOL_SEARCH_MAX_RESULTS``: names a search returns when the
            model does not say (default: the index's, 10).
        accumulate: ``OSTINATO_TOOL_SEARCH_ACCUMULATE``: keep every tool found in the turn
            attached (default true); false keeps only the latest search's.
        system_message_suffix: ``OSTINATO_TOOL_SEARCH_SYSTEM_MESSAGE_SUFFIX``: the paragraph
            added to the system message (default: a built-in one).
        index: ``OSTINATO_TOOL_SEARCH_INDEX``: ``keyword`` (BM25, default) or ``regex``.
        max_sessions: ``OSTINATO_TOOL_SEARCH_MAX_SESSIONS``: conversations kept indexed,
            least recently used dropped first (default 1000).
        session_ttl: ``OSTINATO_TOOL_SEARCH_SESSION_TTL``: seconds after which an idle
            conversation's index is dropped (default: never).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    max_results: int | None = Field(default=None, ge=1)
    accumulate: bool = True
    system_message_suffix: str | None = Field(default=None, pattern=r"\S")
    index: IndexKind = "keyword"
    max_sessions: int = Field(default=1000, ge=1)
    session_ttl: float | None = Field(default=None, gt=0)
