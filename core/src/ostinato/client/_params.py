"""Advisor params: values put into the advisor context of a call (``.advisors(...)``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ostinato._frozen import FrozenDict, freeze
from ostinato.context_keys import (
    CONVERSATION_ID,
    NATIVE_STRUCTURED_OUTPUT,
    TOOL_CALLING_ADVISOR_AUTO_REGISTER,
)

__all__ = ["TOOL_CALLING_ADVISOR_AUTO_REGISTER", "AdvisorParams"]


class AdvisorParams:
    """A bundle of advisor-context entries, passed to ``.advisors(...)``.

    >>> client.prompt("hi").advisors(AdvisorParams.conversation_id("u-42")).call()

    Bundles combine with ``|`` (the right side wins on equal keys).
    """

    __slots__ = ("params",)

    def __init__(self, params: Mapping[str, Any] | None = None, /, **more: Any) -> None:
        self.params: FrozenDict = freeze({**(params or {}), **more})

    @staticmethod
    def tool_calling_advisor_auto_register(enabled: bool) -> AdvisorParams:
        """Turn the automatic tool advisor on or off for this call (only ``False`` disables)."""
        return AdvisorParams({TOOL_CALLING_ADVISOR_AUTO_REGISTER: enabled})

    @staticmethod
    def conversation_id(conversation_id: str) -> AdvisorParams:
        """The conversation memory advisors should use."""
        if not isinstance(conversation_id, str) or not conversation_id.strip():
            raise ValueError(f"conversation_id must be a non-blank string, got {conversation_id!r}")
        return AdvisorParams({CONVERSATION_ID: conversation_id})

    @staticmethod
    def native_structured_output(enabled: bool = True) -> AdvisorParams:
        """Make ``entity()`` ask the provider to enforce the JSON schema itself (Spring
        AI's ``ENABLE_NATIVE_STRUCTURED_OUTPUT``); as ``entity(type, native=True)``, for
        every request of a client when given to ``default_advisors``."""
        return AdvisorParams({NATIVE_STRUCTURED_OUTPUT: enabled})

    @staticmethod
    def param(key: str, value: Any) -> AdvisorParams:
        """Any advisor-context entry."""
        if not isinstance(key, str) or not key.strip():
            raise ValueError(f"advisor param keys must be non-blank strings, got {key!r}")
        return AdvisorParams({key: value})

    def __or__(self, other: AdvisorParams) -> AdvisorParams:
        if not isinstance(other, AdvisorParams):
            return NotImplemented
        return AdvisorParams(self.params.merged(other.params))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AdvisorParams) and self.params == other.params

    def __hash__(self) -> int:
        return hash(self.params)

    def __repr__(self) -> str:
        return f"AdvisorParams({dict(self.params)!r})"
