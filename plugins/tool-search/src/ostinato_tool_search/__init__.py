"""ostinato-tool-search: the model searches for the tools it needs instead of seeing them all.

:class:`ToolSearchToolCallingAdvisor` replaces the default tool advisor: each model round
sees ``toolSearchTool`` plus the tools found with it, drawn from an index of every
attached tool (:class:`KeywordToolIndex`, BM25, by default; :class:`RegexToolIndex`, the
reference's; or any :class:`ToolIndex`). Installed, the plugin becomes the tool advisor of
every auto-configured client.

Every name is imported on first access (PEP 562), so loading the plugin module
(``ostinato_tool_search.plugin``) costs nothing beyond ``ostinato.plugins``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ostinato
from ostinato.plugins import lazy_package

#: Every distribution of ostinato is released at one version: core's.
__version__: str = ostinato.__version__

if TYPE_CHECKING:
    from ostinato_tool_search._advisor import (
        ToolSearchToolCallingAdvisor as ToolSearchToolCallingAdvisor,
    )
    from ostinato_tool_search._advisor_settings import (
        DEFAULT_SYSTEM_MESSAGE_SUFFIX as DEFAULT_SYSTEM_MESSAGE_SUFFIX,
    )
    from ostinato_tool_search._advisor_settings import (
        ToolSearchAdvisorSettings as ToolSearchAdvisorSettings,
    )
    from ostinato_tool_search._builder import (
        ToolSearchToolCallingAdvisorBuilder as ToolSearchToolCallingAdvisorBuilder,
    )
    from ostinato_tool_search._eviction import AlwaysEvictStrategy as AlwaysEvictStrategy
    from ostinato_tool_search._eviction import (
        CompositeEvictionStrategy as CompositeEvictionStrategy,
    )
    from ostinato_tool_search._eviction import EvictionStrategy as EvictionStrategy
    from ostinato_tool_search._eviction import LruEvictionStrategy as LruEvictionStrategy
    from ostinato_tool_search._eviction import NeverEvictStrategy as NeverEvictStrategy
    from ostinato_tool_search._eviction import TtlEvictionStrategy as TtlEvictionStrategy
    from ostinato_tool_search._factory import (
        create_tool_search_advisor as create_tool_search_advisor,
    )
    from ostinato_tool_search._factory import load_tool_search_settings as load_tool_search_settings
    from ostinato_tool_search._index import DEFAULT_MAX_RESULTS as DEFAULT_MAX_RESULTS
    from ostinato_tool_search._index import InMemoryToolIndex as InMemoryToolIndex
    from ostinato_tool_search._index import ToolIndex as ToolIndex
    from ostinato_tool_search._keyword import KeywordToolIndex as KeywordToolIndex
    from ostinato_tool_search._regex import RegexToolIndex as RegexToolIndex
    from ostinato_tool_search._regex import query_to_regex_pattern as query_to_regex_pattern
    from ostinato_tool_search._search_tool import SEARCH_TOOL_NAME as SEARCH_TOOL_NAME
    from ostinato_tool_search._search_tool import (
        SESSION_ID_TOOL_CONTEXT_KEY as SESSION_ID_TOOL_CONTEXT_KEY,
    )
    from ostinato_tool_search._search_tool import ToolSearchTool as ToolSearchTool
    from ostinato_tool_search._sessions import IndexedSessions as IndexedSessions
    from ostinato_tool_search._sessions import tool_set_fingerprint as tool_set_fingerprint
    from ostinato_tool_search._settings import ToolSearchSettings as ToolSearchSettings
    from ostinato_tool_search._tokens import tokenize as tokenize
    from ostinato_tool_search._turn import TURN_CONTEXT_KEY as TURN_CONTEXT_KEY
    from ostinato_tool_search._turn import ToolSearchTurn as ToolSearchTurn
else:
    __all__, __getattr__, __dir__ = lazy_package(
        __name__,
        globals(),
        {
            "AlwaysEvictStrategy": "ostinato_tool_search._eviction",
            "CompositeEvictionStrategy": "ostinato_tool_search._eviction",
            "DEFAULT_MAX_RESULTS": "ostinato_tool_search._index",
            "DEFAULT_SYSTEM_MESSAGE_SUFFIX": "ostinato_tool_search._advisor_settings",
            "EvictionStrategy": "ostinato_tool_search._eviction",
            "InMemoryToolIndex": "ostinato_tool_search._index",
            "IndexedSessions": "ostinato_tool_search._sessions",
            "KeywordToolIndex": "ostinato_tool_search._keyword",
            "LruEvictionStrategy": "ostinato_tool_search._eviction",
            "NeverEvictStrategy": "ostinato_tool_search._eviction",
            "RegexToolIndex": "ostinato_tool_search._regex",
            "SEARCH_TOOL_NAME": "ostinato_tool_search._search_tool",
            "SESSION_ID_TOOL_CONTEXT_KEY": "ostinato_tool_search._search_tool",
            "TURN_CONTEXT_KEY": "ostinato_tool_search._turn",
            "ToolIndex": "ostinato_tool_search._index",
            "ToolSearchSettings": "ostinato_tool_search._settings",
            "ToolSearchAdvisorSettings": "ostinato_tool_search._advisor_settings",
            "ToolSearchTool": "ostinato_tool_search._search_tool",
            "ToolSearchToolCallingAdvisor": "ostinato_tool_search._advisor",
            "ToolSearchToolCallingAdvisorBuilder": "ostinato_tool_search._builder",
            "ToolSearchTurn": "ostinato_tool_search._turn",
            "TtlEvictionStrategy": "ostinato_tool_search._eviction",
            "create_tool_search_advisor": "ostinato_tool_search._factory",
            "load_tool_search_settings": "ostinato_tool_search._factory",
            "query_to_regex_pattern": "ostinato_tool_search._regex",
            "tokenize": "ostinato_tool_search._tokens",
            "tool_set_fingerprint": "ostinato_tool_search._sessions",
        },
    )
