"""ostinato-memory: conversation memory for ostinato.

Memory advisors (:class:`MessageChatMemoryAdvisor`, :class:`PromptChatMemoryAdvisor`), a
turn-atomic :class:`MessageWindowChatMemory`, and repositories in memory and in SQLite;
session memory (:class:`SessionMemory`, :class:`SessionMemoryAdvisor`): append-only
session logs in memory and in SQLite, compaction strategies, branches and recall.
See ``docs/memory.md`` for what is stored when, outside and inside the tool loop.

Naming: the protocols' methods are async (``await memory.add(...)``); each has a blocking
twin with the suffix ``_sync`` (``memory.add_sync(...)``, ``repository.save_all_sync(...)``).

The SQLite repository, the settings and the factories are imported on first access (PEP
562), so importing the package (and loading the plugin) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_exports
from ostinato_memory._advisor import ChatMemoryAdvisor, ChatMemoryAdvisorBuilder
from ostinato_memory._codec import decode_message, encode_message
from ostinato_memory._compaction import (
    ChatModelSummarizer,
    CompactionStrategy,
    LastTurns,
    SummarizeOlderTurns,
    Summarizer,
    TokenBudget,
)
from ostinato_memory._errors import (
    ChatMemoryRepositoryError,
    ChatMemoryStoreUnavailableError,
    DatabaseLockedError,
    MissingConversationIdError,
    NewerSchemaError,
    NotAMemoryDatabaseError,
)
from ostinato_memory._in_memory import InMemoryChatMemoryRepository
from ostinato_memory._listing import (
    ConversationSummary,
    RecentConversationsRepository,
    StoredMessage,
    StoredMessagesRepository,
    recent_conversations,
    stored_messages,
)
from ostinato_memory._message_advisor import MessageChatMemoryAdvisor
from ostinato_memory._prompt_advisor import DEFAULT_SYSTEM_PROMPT_TEMPLATE, PromptChatMemoryAdvisor
from ostinato_memory._repository import (
    ConversationChange,
    RemoteStoreSyncFaces,
    UpdatableChatMemoryRepository,
)
from ostinato_memory._session_advisor import SessionMemoryAdvisor
from ostinato_memory._session_base import (
    BranchingSessionLog,
    InMemorySessionLog,
    decode_entry,
    encode_entry,
    searchable_text,
    term_score,
)
from ostinato_memory._session_memory import SessionMemory
from ostinato_memory._session_view import (
    Block,
    TokenCounter,
    estimate_tokens,
    session_blocks,
    summary_message,
)
from ostinato_memory._validation import check_conversation_id, check_messages
from ostinato_memory._window import MessageWindowChatMemory, apply_window, pair_tool_messages

if TYPE_CHECKING:
    from ostinato_memory._factories import (
        create_chat_memory_repository,
        create_memory_advisor,
        load_memory_settings,
    )
    from ostinato_memory._recall import conversation_search_tools
    from ostinato_memory._settings import MemorySettings
    from ostinato_memory._sqlite import SQLiteChatMemoryRepository
    from ostinato_memory._sqlite_schema import SCHEMA_VERSION, default_sqlite_path
    from ostinato_memory._sqlite_session import SQLiteSessionLog

__all__ = [
    "DEFAULT_SYSTEM_PROMPT_TEMPLATE",
    "SCHEMA_VERSION",
    "Block",
    "BranchingSessionLog",
    "ChatMemoryAdvisor",
    "ChatMemoryAdvisorBuilder",
    "ChatMemoryRepositoryError",
    "ChatMemoryStoreUnavailableError",
    "ChatModelSummarizer",
    "CompactionStrategy",
    "ConversationChange",
    "ConversationSummary",
    "DatabaseLockedError",
    "InMemoryChatMemoryRepository",
    "InMemorySessionLog",
    "LastTurns",
    "MemorySettings",
    "MessageChatMemoryAdvisor",
    "MessageWindowChatMemory",
    "MissingConversationIdError",
    "NewerSchemaError",
    "NotAMemoryDatabaseError",
    "PromptChatMemoryAdvisor",
    "RecentConversationsRepository",
    "RemoteStoreSyncFaces",
    "SQLiteChatMemoryRepository",
    "SQLiteSessionLog",
    "SessionMemory",
    "SessionMemoryAdvisor",
    "StoredMessage",
    "StoredMessagesRepository",
    "SummarizeOlderTurns",
    "Summarizer",
    "TokenBudget",
    "TokenCounter",
    "UpdatableChatMemoryRepository",
    "__version__",
    "apply_window",
    "check_conversation_id",
    "check_messages",
    "conversation_search_tools",
    "create_chat_memory_repository",
    "create_memory_advisor",
    "decode_entry",
    "decode_message",
    "default_sqlite_path",
    "encode_entry",
    "encode_message",
    "estimate_tokens",
    "load_memory_settings",
    "pair_tool_messages",
    "recent_conversations",
    "searchable_text",
    "session_blocks",
    "stored_messages",
    "summary_message",
    "term_score",
]

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "MemorySettings": "ostinato_memory._settings",
        "SCHEMA_VERSION": "ostinato_memory._sqlite_schema",
        "SQLiteChatMemoryRepository": "ostinato_memory._sqlite",
        "SQLiteSessionLog": "ostinato_memory._sqlite_session",
        "conversation_search_tools": "ostinato_memory._recall",
        "create_chat_memory_repository": "ostinato_memory._factories",
        "create_memory_advisor": "ostinato_memory._factories",
        "default_sqlite_path": "ostinato_memory._sqlite_schema",
        "load_memory_settings": "ostinato_memory._factories",
    },
)
