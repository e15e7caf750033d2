"""``ToolSearchAdvisorSettings``: the settings a
:class:`~ostinato_tool_search.ToolSearchToolCallingAdvisor` adds to the tool loop's, as one
frozen value checked when it is made (``copy(**changes)`` replaces fields of it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final, Self

from ostinato.context_keys import CONVERSATION_ID
from ostinato.errors import ConfigurationError
from ostinato_tool_search._eviction import EvictionStrategy, LruEvictionStrategy
from ostinato_tool_search._index import ToolIndex, check_max_results
from ostinato_tool_search._search_tool import SEARCH_TOOL_NAME

__all__ = ["DEFAULT_SYSTEM_MESSAGE_SUFFIX", "ToolSearchAdvisorSettings"]

#: The paragraph added to the system message, telling the model how to find tools.
DEFAULT_SYSTEM_MESSAGE_SUFFIX: Final = (
    "You can call only the tools you have already found. To find a tool, call "
    f"{SEARCH_TOOL_NAME} with a few keywords describing what you need; it answers with the "
    "names of matching tools, and those become callable in your next step. Search again "
    "whenever you need a capability you do not see."
)


@dataclass(frozen=True, slots=True)
class ToolSearchAdvisorSettings:
    """The tool-search settings of a ``ToolSearchToolCallingAdvisor`` (the constructor
    arguments of the same names).

    ``system_message_suffix=None`` means :data:`DEFAULT_SYSTEM_MESSAGE_SUFFIX`; the suffix
    is kept stripped.

    Raises:
        ConfigurationError: a setting has the wrong type or value.
    """

    tool_index: ToolIndex
    max_results: int | None = None
    accumulate: bool = True
    system_message_suffix: str | None = None
    eviction_strategy: EvictionStrategy = field(default_factory=LruEvictionStrategy)
    session_id_key: str = CONVERSATION_ID

    def __post_init__(self) -> None:
        if self.tool_index is None:
            raise ConfigurationError("tool_index must not be None: pass a ToolIndex")
        if not isinstance(self.tool_index, ToolIndex):
            raise ConfigurationError(
                f"tool_index must be a ToolIndex (index_tools, search, clear_index), "
                f"got {type(self.tool_index).__name__}"
            )
        if not isinstance(self.eviction_strategy, EvictionStrategy):
            raise ConfigurationError(
                f"eviction_strategy must be an EvictionStrategy (on_access, on_removed), "
                f"got {type(self.eviction_strategy).__name__}"
            )
        if not isinstance(self.accumulate, bool):
            raise ConfigurationError(f"accumulate must be True or False, got {self.accumulate!r}")
        given = self.system_message_suffix
        suffix = DEFAULT_SYSTEM_MESSAGE_SUFFIX if given is None else given
        if not isinstance(suffix, str) or not suffix.strip():
            raise ConfigurationError(
                f"system_message_suffix must be a non-blank string or None for the default, "
                f"got {given!r}"
            )
        if not isinstance(self.session_id_key, str) or not self.session_id_key:
            raise ConfigurationError(
                f"session_id_key must be a non-empty string, got {self.session_id_key!r}"
            )
        object.__setattr__(self, "max_results", check_max_results(self.max_results))
        object.__setattr__(self, "system_message_suffix", suffix.strip())

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The setting names, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    def replace(self, **changes: Any) -> Self:
        """These settings with ``changes`` applied (checked again)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The settings by name (shallow: the values themselves)."""
        return {name: getattr(self, name) for name in self.names()}
