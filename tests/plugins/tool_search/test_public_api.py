"""``ostinato_tool_search`` exports exactly these names, all documented (see ``tests.fakes.public_api``)."""

from __future__ import annotations

import ostinato_tool_search
from tests.fakes.public_api import public_surface_tests

PACKAGE = {
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

SURFACE = public_surface_tests(ostinato_tool_search, PACKAGE, readme="tool-search")
test_the_package_exports_exactly_the_intended_names = SURFACE.exports
test_every_module_documents_itself_and_its_exports = SURFACE.documented
test_modules_stay_small = SURFACE.small
test_the_readme_example_runs_and_prints_what_it_says = SURFACE.readme
