"""``ostinato_memory`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_memory
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
    "DEFAULT_SYSTEM_PROMPT_TEMPLATE",
    "SCHEMA_VERSION",
    "ChatMemoryAdvisor",
    "ChatMemoryAdvisorBuilder",
    "ChatMemoryRepositoryError",
    "ChatMemoryStoreUnavailableError",
    "ConversationChange",
    "ConversationSummary",
    "DatabaseLockedError",
    "InMemoryChatMemoryRepository",
    "MemorySettings",
    "MessageChatMemoryAdvisor",
    "MessageWindowChatMemory",
    "MissingConversationIdError",
    "NewerSchemaError",
    "NotAMemoryDatabaseError",
    "PromptChatMemoryAdvisor",
    "RecentConversationsRepository",
    "SQLiteChatMemoryRepository",
    "RemoteStoreSyncFaces",
    "UpdatableChatMemoryRepository",
    "__version__",
    "apply_window",
    "check_conversation_id",
    "check_messages",
    "create_chat_memory_repository",
    "create_memory_advisor",
    "decode_message",
    "default_sqlite_path",
    "encode_message",
    "load_memory_settings",
    "pair_tool_messages",
    "recent_conversations",
}

SURFACE = public_surface_tests(ostinato_memory, PACKAGE, readme="memory")
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
test_the_readme_example_runs_and_prints_what_it_says = SURFACE.readme
