"""ostinato-memory: conversation memory for ostinato.

Memory advisors (:class:`MessageChatMemoryAdvisor`, :class:`PromptChatMemoryAdvisor`), a
turn-atomic :class:`MessageWindowChatMemory`, and repositories in memory and in SQLite;
session memory (:class:`SessionMemory`, :class:`SessionMemoryAdvisor`): append-only
session logs in memory and in SQLite, compaction strategies, branches and recall.
See ``docs/memory.md`` for what is stored when, outside and inside the tool loop.

Naming: the protocols' methods are async (``await memory.add(...)``); each has a blocking
twin with the suffix ``_sync`` (``memory.add_sync(...)``, ``repository.save_all_sync(...)``).

Every name is imported on first access (PEP 562), so importing the package (and loading
the plugin, which every auto-configured client does) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_memory._advisor import ChatMemoryAdvisor as ChatMemoryAdvisor
    from ostinato_memory._advisor import ChatMemoryAdvisorBuilder as ChatMemoryAdvisorBuilder
    from ostinato_memory._codec import decode_message as decode_message
    from ostinato_memory._codec import encode_message as encode_message
    from ostinato_memory._compaction import ChatModelSummarizer as ChatModelSummarizer
    from ostinato_memory._compaction import CompactionStrategy as CompactionStrategy
    from ostinato_memory._compaction import LastTurns as LastTurns
    from ostinato_memory._compaction import SummarizeOlderTurns as SummarizeOlderTurns
    from ostinato_memory._compaction import Summarizer as Summarizer
    from ostinato_memory._compaction import TokenBudget as TokenBudget
    from ostinato_memory._errors import ChatMemoryRepositoryError as ChatMemoryRepositoryError
    from ostinato_memory._errors import (
        ChatMemoryStoreUnavailableError as ChatMemoryStoreUnavailableError,
    )
    from ostinato_memory._errors import DatabaseLockedError as DatabaseLockedError
    from ostinato_memory._errors import MissingConversationIdError as MissingConversationIdError
    from ostinato_memory._errors import NewerSchemaError as NewerSchemaError
    from ostinato_memory._errors import NotAMemoryDatabaseError as NotAMemoryDatabaseError
    from ostinato_memory._factories import (
        create_chat_memory_repository as create_chat_memory_repository,
    )
    from ostinato_memory._factories import create_memory_advisor as create_memory_advisor
    from ostinato_memory._factories import load_memory_settings as load_memory_settings
    from ostinato_memory._in_memory import (
        InMemoryChatMemoryRepository as InMemoryChatMemoryRepository,
    )
    from ostinato_memory._listing import ConversationSummary as ConversationSummary
    from ostinato_memory._listing import (
        RecentConversationsRepository as RecentConversationsRepository,
    )
    from ostinato_memory._listing import StoredMessage as StoredMessage
    from ostinato_memory._listing import StoredMessagesRepository as StoredMessagesRepository
    from ostinato_memory._listing import recent_conversations as recent_conversations
    from ostinato_memory._listing import stored_messages as stored_messages
    from ostinato_memory._message_advisor import (
        MessageChatMemoryAdvisor as MessageChatMemoryAdvisor,
    )
    from ostinato_memory._prompt_advisor import (
        DEFAULT_SYSTEM_PROMPT_TEMPLATE as DEFAULT_SYSTEM_PROMPT_TEMPLATE,
    )
    from ostinato_memory._prompt_advisor import PromptChatMemoryAdvisor as PromptChatMemoryAdvisor
    from ostinato_memory._recall import conversation_search_tools as conversation_search_tools
    from ostinato_memory._repository import ConversationChange as ConversationChange
    from ostinato_memory._repository import RemoteStoreSyncFaces as RemoteStoreSyncFaces
    from ostinato_memory._repository import (
        UpdatableChatMemoryRepository as UpdatableChatMemoryRepository,
    )
    from ostinato_memory._session_advisor import SessionMemoryAdvisor as SessionMemoryAdvisor
    from ostinato_memory._session_base import BranchingSessionLog as BranchingSessionLog
    from ostinato_memory._session_base import InMemorySessionLog as InMemorySessionLog
    from ostinato_memory._session_base import decode_entry as decode_entry
    from ostinato_memory._session_base import encode_entry as encode_entry
    from ostinato_memory._session_base import searchable_text as searchable_text
    from ostinato_memory._session_base import term_score as term_score
    from ostinato_memory._session_memory import SessionMemory as SessionMemory
    from ostinato_memory._session_view import Block as Block
    from ostinato_memory._session_view import TokenCounter as TokenCounter
    from ostinato_memory._session_view import estimate_tokens as estimate_tokens
    from ostinato_memory._session_view import session_blocks as session_blocks
    from ostinato_memory._session_view import summary_message as summary_message
    from ostinato_memory._settings import MemorySettings as MemorySettings
    from ostinato_memory._sqlite import SQLiteChatMemoryRepository as SQLiteChatMemoryRepository
    from ostinato_memory._sqlite_schema import SCHEMA_VERSION as SCHEMA_VERSION
    from ostinato_memory._sqlite_schema import default_sqlite_path as default_sqlite_path
    from ostinato_memory._sqlite_session import SQLiteSessionLog as SQLiteSessionLog
    from ostinato_memory._validation import check_conversation_id as check_conversation_id
    from ostinato_memory._validation import check_messages as check_messages
    from ostinato_memory._window import MessageWindowChatMemory as MessageWindowChatMemory
    from ostinato_memory._window import apply_window as apply_window
    from ostinato_memory._window import pair_tool_messages as pair_tool_messages
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "ChatMemoryAdvisor": "ostinato_memory._advisor",
            "ChatMemoryAdvisorBuilder": "ostinato_memory._advisor",
            "decode_message": "ostinato_memory._codec",
            "encode_message": "ostinato_memory._codec",
            "ChatModelSummarizer": "ostinato_memory._compaction",
            "CompactionStrategy": "ostinato_memory._compaction",
            "LastTurns": "ostinato_memory._compaction",
            "SummarizeOlderTurns": "ostinato_memory._compaction",
            "Summarizer": "ostinato_memory._compaction",
            "TokenBudget": "ostinato_memory._compaction",
            "ChatMemoryRepositoryError": "ostinato_memory._errors",
            "ChatMemoryStoreUnavailableError": "ostinato_memory._errors",
            "DatabaseLockedError": "ostinato_memory._errors",
            "MissingConversationIdError": "ostinato_memory._errors",
            "NewerSchemaError": "ostinato_memory._errors",
            "NotAMemoryDatabaseError": "ostinato_memory._errors",
            "InMemoryChatMemoryRepository": "ostinato_memory._in_memory",
            "ConversationSummary": "ostinato_memory._listing",
            "RecentConversationsRepository": "ostinato_memory._listing",
            "StoredMessage": "ostinato_memory._listing",
            "StoredMessagesRepository": "ostinato_memory._listing",
            "recent_conversations": "ostinato_memory._listing",
            "stored_messages": "ostinato_memory._listing",
            "MessageChatMemoryAdvisor": "ostinato_memory._message_advisor",
            "DEFAULT_SYSTEM_PROMPT_TEMPLATE": "ostinato_memory._prompt_advisor",
            "PromptChatMemoryAdvisor": "ostinato_memory._prompt_advisor",
            "ConversationChange": "ostinato_memory._repository",
            "RemoteStoreSyncFaces": "ostinato_memory._repository",
            "UpdatableChatMemoryRepository": "ostinato_memory._repository",
            "SessionMemoryAdvisor": "ostinato_memory._session_advisor",
            "BranchingSessionLog": "ostinato_memory._session_base",
            "InMemorySessionLog": "ostinato_memory._session_base",
            "decode_entry": "ostinato_memory._session_base",
            "encode_entry": "ostinato_memory._session_base",
            "searchable_text": "ostinato_memory._session_base",
            "term_score": "ostinato_memory._session_base",
            "SessionMemory": "ostinato_memory._session_memory",
            "Block": "ostinato_memory._session_view",
            "TokenCounter": "ostinato_memory._session_view",
            "estimate_tokens": "ostinato_memory._session_view",
            "session_blocks": "ostinato_memory._session_view",
            "summary_message": "ostinato_memory._session_view",
            "check_conversation_id": "ostinato_memory._validation",
            "check_messages": "ostinato_memory._validation",
            "MessageWindowChatMemory": "ostinato_memory._window",
            "apply_window": "ostinato_memory._window",
            "pair_tool_messages": "ostinato_memory._window",
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
