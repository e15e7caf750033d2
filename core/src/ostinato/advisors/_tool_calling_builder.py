"""``ToolCallingAdvisorBuilder``: fluent construction of a tool advisor, for people coming
from Spring AI (``ToolCallingAdvisor.builder()``)."""

from __future__ import annotations

import copy as _copy
from typing import Any, Self

from ostinato.advisors._tool_calling import ToolCallingAdvisor
from ostinato.advisors._tool_calling_settings import ToolExecutionEligibilityChecker
from ostinato.tools import ToolCallingManager

__all__ = ["ToolCallingAdvisorBuilder"]


class ToolCallingAdvisorBuilder:
    """Fluent construction of a :class:`ToolCallingAdvisor` (or a subclass)."""

    __slots__ = ("_cls", "_settings")

    def __init__(self, cls: type[ToolCallingAdvisor] = ToolCallingAdvisor) -> None:
        self._cls = cls
        self._settings: dict[str, Any] = {}

    def tool_calling_manager(self, manager: ToolCallingManager) -> Self:
        """Set the manager."""
        self._settings["tool_calling_manager"] = manager
        return self

    def tool_execution_eligibility_checker(self, checker: ToolExecutionEligibilityChecker) -> Self:
        """Set the eligibility checker."""
        self._settings["tool_execution_eligibility_checker"] = checker
        return self

    def advisor_order(self, order: int) -> Self:
        """Set the advisor order."""
        self._settings["advisor_order"] = order
        return self

    def conversation_history_enabled(self, enabled: bool) -> Self:
        """Enable or disable forwarding the whole turn."""
        self._settings["conversation_history_enabled"] = enabled
        return self

    def disable_internal_conversation_history(self) -> Self:
        """Forward only ``[system, last tool response]`` each round."""
        return self.conversation_history_enabled(False)

    def max_iterations(self, rounds: int) -> Self:
        """Set the iteration cap."""
        self._settings["max_iterations"] = rounds
        return self

    def setting(self, name: str, value: Any) -> Self:
        """Set any constructor argument (for subclasses with their own settings)."""
        self._settings[name] = value
        return self

    def get(self, name: str, default: Any = None) -> Any:
        """The value set for ``name`` so far."""
        return self._settings.get(name, default)

    def copy(self) -> Self:
        """An independent builder of the same type, class and settings."""
        new = _copy.copy(self)
        new._settings = dict(self._settings)
        return new

    def build(self) -> ToolCallingAdvisor:
        """Construct the advisor (validation errors surface here)."""
        return self._cls(**self._settings)
