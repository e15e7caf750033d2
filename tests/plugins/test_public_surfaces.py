"""Each plugin package here exports exactly these names, all documented, in small modules,
and its README's examples run (the checks are in ``tests.fakes.public_api``), in a clean
environment with a private data directory."""

from __future__ import annotations

from pathlib import Path

import pytest

import ostinato_a2a
import ostinato_dbos
import ostinato_llamacpp
import ostinato_mcp
import ostinato_memory
import ostinato_memory_postgres
import ostinato_memory_redis
import ostinato_retrieval
import ostinato_serve
import ostinato_tool_search
import ostinato_vector_pgvector
from tests.fakes.distributions import clean_environment, data_home
from tests.fakes.public_api import (
    Surface,
    check_documented,
    check_exports,
    check_readme_runs,
    check_small,
)

__all__ = ["clean_environment", "data_home"]

MEMORY = {
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
    "StoredMessage",
    "StoredMessagesRepository",
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
    "stored_messages",
    # session memory: the advisor, strategies, logs, and the parts a store is built from
    "Block",
    "BranchingSessionLog",
    "ChatModelSummarizer",
    "CompactionStrategy",
    "InMemorySessionLog",
    "LastTurns",
    "SQLiteSessionLog",
    "SessionMemory",
    "SessionMemoryAdvisor",
    "SummarizeOlderTurns",
    "Summarizer",
    "TokenBudget",
    "TokenCounter",
    "conversation_search_tools",
    "decode_entry",
    "encode_entry",
    "estimate_tokens",
    "searchable_text",
    "session_blocks",
    "summary_message",
    "term_score",
}
MEMORY_POSTGRES = {
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "PostgresChatMemoryRepository",
    "PostgresMemorySettings",
    "PostgresSessionLog",
    "__version__",
    "create_postgres_repository",
}
MEMORY_REDIS = {
    "DEFAULT_KEY_PREFIX",
    "RedisChatMemoryRepository",
    "RedisMemorySettings",
    "RedisSessionLog",
    "__version__",
    "create_redis_repository",
}
TOOL_SEARCH = {
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_SYSTEM_MESSAGE_SUFFIX",
    "SEARCH_TOOL_NAME",
    "SESSION_ID_TOOL_CONTEXT_KEY",
    "TURN_CONTEXT_KEY",
    "AlwaysEvictStrategy",
    "CompositeEvictionStrategy",
    "EvictionStrategy",
    "InMemoryToolIndex",
    "IndexedSessions",
    "KeywordToolIndex",
    "LruEvictionStrategy",
    "NeverEvictStrategy",
    "RegexToolIndex",
    "ToolIndex",
    "ToolSearchSettings",
    "ToolSearchAdvisorSettings",
    "ToolSearchTool",
    "ToolSearchToolCallingAdvisor",
    "ToolSearchToolCallingAdvisorBuilder",
    "ToolSearchTurn",
    "TtlEvictionStrategy",
    "__version__",
    "create_tool_search_advisor",
    "load_tool_search_settings",
    "query_to_regex_pattern",
    "tokenize",
    "tool_set_fingerprint",
}
MCP = {
    "DEFAULT_MAX_RESULT_CHARS",
    "McpConfig",
    "McpConfigError",
    "McpServer",
    "McpServerConfig",
    "McpServerUnavailableWarning",
    "McpSettings",
    "McpResourceContent",
    "McpResourceTool",
    "McpTool",
    "McpToolMetadata",
    "McpToolRefreshAdvisor",
    "McpToolset",
    "__version__",
    "build_mcp_server",
    "load_mcp_config",
    "parse_mcp_config",
}
DBOS = {
    "DbosEngine",
    "DbosSettings",
    "DbosTurnHandle",
    "Worker",
    "__version__",
    "default_sqlite_path",
}

LLAMACPP = {
    "BUNDLED_TEMPLATE",
    "DEFAULT_MODEL",
    "DEFAULT_MODEL_NAME",
    "LLAMA_CPP_SDIST",
    "CacheLayout",
    "DistributionFile",
    "LlamaCppChatModel",
    "LlamaCppSettings",
    "LlamaServer",
    "LlamaServerCrashedError",
    "LlamaServerError",
    "LlamaServerStartError",
    "ModelPart",
    "PinnedModel",
    "ServerSpec",
    "SetupOptions",
    "SetupResult",
    "SmallModelHintAdvisor",
    "__version__",
    "acquire_server",
    "create_chat_model",
    "default_cache_dir",
    "release_server",
    "run_setup",
    "small_model_hint",
}
SERVE = {
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "ServeSettings",
    "__version__",
    "check_bind_address",
    "create_app",
    "is_loopback",
    "model_name_of",
}

A2A = {
    "A2A_PATH",
    "A2AAgentTool",
    "A2ASettings",
    "A2AToolset",
    "ANSWER_ARTIFACT",
    "EVENT_METADATA_KEY",
    "PENDING_METADATA_KEY",
    "RemoteAgent",
    "RemoteReply",
    "TurnExecutor",
    "__version__",
    "agent_card",
    "create_a2a_app",
    "create_a2a_routes",
    "delegated_usage",
    "load_agents",
    "progress_data",
    "PROGRESS_SOURCE",
    "USAGE_METADATA_KEY",
}
RETRIEVAL = {
    "AUGMENTER_EMPTY_CONTEXT_TEMPLATE",
    "AUGMENTER_PROMPT_TEMPLATE",
    "COMPRESSION_PROMPT_TEMPLATE",
    "CompressionQueryTransformer",
    "ConcatenationDocumentJoiner",
    "ContextualQueryAugmenter",
    "DEFAULT_PROMPT_TEMPLATE",
    "DEFAULT_TABLE",
    "DOCUMENT_CONTEXT",
    "DocumentJoiner",
    "DocumentPostProcessor",
    "DocumentRetriever",
    "FILTER_EXPRESSION",
    "MULTI_QUERY_PROMPT_TEMPLATE",
    "MultiQueryExpander",
    "Query",
    "QueryAugmenter",
    "QueryExpander",
    "QueryTransformer",
    "QuestionAnswerAdvisor",
    "RETRIEVED_DOCUMENTS",
    "RETRIEVER_FILTER_EXPRESSION",
    "REWRITE_PROMPT_TEMPLATE",
    "RetrievalAugmentationAdvisor",
    "RewriteQueryTransformer",
    "SQLiteVectorStore",
    "TRANSLATION_PROMPT_TEMPLATE",
    "TranslationQueryTransformer",
    "VectorStoreDocumentRetriever",
    "__version__",
}
VECTOR_PGVECTOR = {"DEFAULT_TABLE", "PgVectorSettings", "PgVectorStore", "__version__"}

SURFACES = [
    Surface(ostinato_memory, frozenset(MEMORY), readme="memory"),
    Surface(ostinato_memory_postgres, frozenset(MEMORY_POSTGRES), readme="memory-postgres"),
    Surface(ostinato_memory_redis, frozenset(MEMORY_REDIS), readme="memory-redis"),
    Surface(ostinato_tool_search, frozenset(TOOL_SEARCH), readme="tool-search"),
    Surface(ostinato_mcp, frozenset(MCP)),
    Surface(ostinato_dbos, frozenset(DBOS)),
    Surface(ostinato_llamacpp, frozenset(LLAMACPP)),
    Surface(ostinato_serve, frozenset(SERVE)),
    Surface(ostinato_a2a, frozenset(A2A)),
    Surface(ostinato_retrieval, frozenset(RETRIEVAL)),
    Surface(ostinato_vector_pgvector, frozenset(VECTOR_PGVECTOR)),
]
MODULES = [(s, name) for s in SURFACES for name in s.modules]
SOURCES = [(s, path) for s in SURFACES for path in s.sources]


def _id(surface: Surface) -> str:
    return surface.package.__name__


@pytest.mark.parametrize("surface", SURFACES, ids=_id)
def test_the_package_exports_exactly_the_intended_names(surface: Surface) -> None:
    check_exports(surface.package, surface.names)


@pytest.mark.parametrize(("surface", "name"), MODULES, ids=[name for _, name in MODULES])
def test_every_module_documents_itself_and_its_exports(surface: Surface, name: str) -> None:
    check_documented(name, surface.package.__name__)


@pytest.mark.parametrize(
    ("surface", "path"), SOURCES, ids=[f"{_id(s)}/{path.name}" for s, path in SOURCES]
)
def test_modules_stay_small(surface: Surface, path: Path) -> None:
    check_small(path)


@pytest.mark.parametrize("surface", [s for s in SURFACES if s.readme is not None], ids=_id)
def test_the_readme_example_runs_and_prints_what_it_says(surface: Surface) -> None:
    assert surface.readme is not None
    check_readme_runs(surface.readme)
