"""The exceptions of the memory plugin, in one tree under core's.

::

    OstinatoError (core)
    ├── ConfigurationError (core)
    │   └── MissingConversationIdError  neither the advisor context nor the advisor names
    │                                   the conversation
    └── ChatMemoryRepositoryError       a repository could not read or write; nothing was
        │                               changed
        ├── NotAMemoryDatabaseError     the SQLite file is corrupt, not a database, or
        │                               belongs to another application
        ├── NewerSchemaError            the database was written by a newer version
        ├── ChatMemoryStoreUnavailableError
        │                               the store (a database or Redis server) could
        │                               not be reached, or the connection broke
        └── DatabaseLockedError         another connection held the database past the busy
                                        timeout

Each message says what was found, what was expected and what to change. This module
imports nothing but core's errors.
"""

from __future__ import annotations

from ostinato.errors import ConfigurationError, OstinatoError

__all__ = [
    "ChatMemoryRepositoryError",
    "ChatMemoryStoreUnavailableError",
    "DatabaseLockedError",
    "MissingConversationIdError",
    "NewerSchemaError",
    "NotAMemoryDatabaseError",
]


class MissingConversationIdError(ConfigurationError):
    """A memory advisor ran without a conversation id (none in the advisor context and no
    ``default_conversation_id``). Raised before the model is called."""


class ChatMemoryRepositoryError(OstinatoError):
    """A chat memory repository could not read or write; what was stored is unchanged.

    Attributes:
        path: the database file concerned, when there is one.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class NotAMemoryDatabaseError(ChatMemoryRepositoryError):
    """The file is not an ostinato-memory SQLite database (corrupt, not SQLite at all, or
    another application's database). It was left untouched."""


class NewerSchemaError(ChatMemoryRepositoryError):
    """The database was written by a newer ostinato-memory, whose schema this version
    does not know. It was left untouched."""


class ChatMemoryStoreUnavailableError(ChatMemoryRepositoryError):
    """The store (a database or Redis server) could not be reached, or the connection broke,
    before the operation completed. A write was not applied: the next operation, once the
    store is back, finds the conversation as it was before."""


class DatabaseLockedError(ChatMemoryRepositoryError):
    """The database stayed locked by another connection for longer than the busy timeout."""
