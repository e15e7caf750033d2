"""``MemorySettings``: the plugin's environment variables, prefix ``OSTINATO_MEMORY_``.

Flat (no ``__`` nesting), read from the environment and ``.env``. This module imports
pydantic-settings; the plugin module imports it only inside its hooks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from ostinato.settings import PluginSettings

__all__ = ["COMMAND_REPOSITORY", "ENV_PREFIX", "MemorySettings"]

#: The prefix of every variable of this plugin.
ENV_PREFIX: Final = "OSTINATO_MEMORY_"
#: The repository of ``ostinato`` commands when ``OSTINATO_MEMORY_REPOSITORY`` is not set.
COMMAND_REPOSITORY: Final = "sqlite"


class MemorySettings(PluginSettings):
    """How auto-configured clients remember conversations.

    Attributes:
        enabled: ``OSTINATO_MEMORY_ENABLED``: add a ``MessageChatMemoryAdvisor`` (outside
            the tool loop) to every auto-configured client (default ``false``).
        repository: ``OSTINATO_MEMORY_REPOSITORY``: the registered repository to keep
            conversations in: ``in-memory`` (the default of clients a program
            configures), ``sqlite`` (the default of ``ostinato`` commands, see
            :meth:`for_commands`), or one registered by another plugin.
        sqlite_path: ``OSTINATO_MEMORY_SQLITE_PATH``: the file of the ``sqlite``
            repository (default ``$XDG_DATA_HOME/ostinato/memory.sqlite3``, else
            ``~/.local/share/ostinato/memory.sqlite3``).
        max_messages: ``OSTINATO_MEMORY_MAX_MESSAGES``: messages kept per conversation
            (default 20).
        default_conversation_id: ``OSTINATO_MEMORY_DEFAULT_CONVERSATION_ID``: the
            conversation of requests that name none (default: none, such requests fail).
    """

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX)

    enabled: bool = Field(
        default=False,
        description="Add a MessageChatMemoryAdvisor to every auto-configured client.",
    )
    repository: str = Field(
        default="in-memory",
        pattern=r"^[a-z0-9][a-z0-9._-]*$",
        description="Registered chat memory repository: in-memory, sqlite, or another plugin's.",
    )
    sqlite_path: Path | None = Field(
        default=None,
        description="SQLite file of the sqlite repository "
        "(default: $XDG_DATA_HOME/ostinato/memory.sqlite3).",
    )
    max_messages: int = Field(
        default=20, gt=0, description="Messages kept per conversation (the window)."
    )
    default_conversation_id: str | None = Field(
        default=None,
        description="Conversation of requests that name none (AdvisorParams.conversation_id).",
    )

    @field_validator("repository", mode="before")
    @classmethod
    def _normalise_name(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("sqlite_path", "default_conversation_id", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    def for_commands(self) -> MemorySettings:
        """These settings as every ``ostinato`` command uses them (``chat``, ``logs``,
        ``serve``, ``worker``): the repository is :data:`COMMAND_REPOSITORY` (``sqlite``)
        unless ``OSTINATO_MEMORY_REPOSITORY`` is set. A command's conversations outlive
        its process: ``ostinato chat -c ID`` continues them, ``ostinato logs`` shows
        them, and each command finds the others' in the same store."""
        if "repository" in self.model_fields_set:
            return self
        return self.model_copy(update={"repository": COMMAND_REPOSITORY})
