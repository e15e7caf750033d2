"""``StructuredOutputValidationAdvisor``: re-ask the model until its JSON fits a schema.

A recursive call advisor, as in Spring AI: each attempt runs the advisors ordered after it
(``chain.copy(self)``) down to the model, validates the first generation's text against
the JSON schema, and on failure asks again with the reason appended to the last user
message. Streaming is not supported (a stream cannot be taken back once shown).

This module does not parse the answer into objects (the client's ``entity()`` does) and
does not put the schema into the prompt (the client's format instructions do).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ostinato.advisors._api import CallAdvisor, Ordered, StreamAdvisor
from ostinato.advisors._exchange import ChatClientRequest, ChatClientResponse
from ostinato.advisors._json_schema import check_json_schema, validate_json_schema
from ostinato.errors import AdvisorChainError
from ostinato.messages import UserMessage
from ostinato.model import ChatResponse, UsageAccumulator
from ostinato.tools import json_schema_for

if TYPE_CHECKING:
    from ostinato.advisors._chain import AdvisorChain

__all__ = ["StructuredOutputValidationAdvisor", "StructuredOutputValidationAdvisorBuilder"]

# A whole answer wrapped in one Markdown code block: ```json\n...\n``` or ```...```.
_FENCE = re.compile(r"^\s*```(?:[A-Za-z0-9_+-]*[ \t]*\n|[ \t]*)(.*?)\n?[ \t]*```\s*$", re.DOTALL)


def _parse_schema(text: str | Mapping[str, Any]) -> dict[str, Any] | bool:
    if isinstance(text, Mapping):
        schema: Any = dict(text)
    else:
        try:
            schema = json.loads(text)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Failed to parse JSON schema: {e}") from e
    if not isinstance(schema, dict | bool):
        raise ValueError(
            "Failed to parse JSON schema: expected a JSON object (or true/false), "
            f"got {type(schema).__name__}"
        )
    try:
        check_json_schema(schema)
    except ValueError as e:
        raise ValueError(f"Invalid JSON schema: {e}") from e
    return schema


def _strip_code_fence(text: str) -> str:
    """``text`` without one Markdown code block around the whole of it (```json ... ```).

    Models often wrap JSON in a fenced block even when asked not to; the content is what
    gets validated. Text that is not a single fenced block is returned unchanged.
    """
    match = _FENCE.match(text)
    return match.group(1) if match else text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class StructuredOutputValidationAdvisor(CallAdvisor, StreamAdvisor):
    """Validates the model's JSON answer against a schema and re-asks when it does not fit.

    Give exactly one of ``output_type`` (any type pydantic can describe; its schema gets
    ``additionalProperties: false`` on objects and every property without a default
    required) or ``output_json_schema`` (JSON text, or an already parsed mapping).

    Each call makes at most ``1 + max_repeat_attempts`` model requests. After a failed
    attempt the *original* request is sent again with the last user message extended by
    a line ``"Output JSON validation failed because of: <reason>"`` (reasons do not pile
    up). A Markdown code fence around the whole answer is ignored. As in Spring AI, a
    response that asks for tool calls is not validated: it uses up an attempt and the same
    request is sent again (this matters when the advisor sits inside the tool loop, as its
    default order places it). When attempts run out the last response is returned as is.
    The returned response carries the usage of every attempt added up.

    Args:
        output_type: the type the answer must describe.
        output_json_schema: the JSON schema the answer must satisfy.
        advisor_order: position in the chain, strictly between the precedence bounds
            (default :attr:`DEFAULT_ORDER`, inside the tool loop).
        max_repeat_attempts: extra requests after the first (default 3, at least 0).

    Raises:
        ValueError: neither or both of ``output_type`` / ``output_json_schema``; a schema
            that cannot be parsed; an order or attempt count out of range; a type pydantic
            cannot describe (:class:`~ostinato.errors.ConfigurationError`).
    """

    DEFAULT_ORDER: ClassVar[int] = Ordered.LOWEST_PRECEDENCE - 2000
    DEFAULT_MAX_REPEAT_ATTEMPTS: ClassVar[int] = 3
    #: Starts the line added to the last user message after a failed attempt.
    FEEDBACK_PREFIX: ClassVar[str] = "Output JSON validation failed because of: "

    def __init__(
        self,
        *,
        output_type: Any = None,
        output_json_schema: str | Mapping[str, Any] | None = None,
        advisor_order: int = DEFAULT_ORDER,
        max_repeat_attempts: int = DEFAULT_MAX_REPEAT_ATTEMPTS,
    ) -> None:
        if output_type is None and output_json_schema is None:
            raise ValueError("Either output_type or output_json_schema must be set.")
        if output_type is not None and output_json_schema is not None:
            raise ValueError("Only output_type or output_json_schema can be set, not both.")
        if (
            isinstance(advisor_order, bool)
            or not isinstance(advisor_order, int)
            or not (Ordered.HIGHEST_PRECEDENCE < advisor_order < Ordered.LOWEST_PRECEDENCE)
        ):
            raise ValueError(
                "advisor_order must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE "
                f"(exclusive), got {advisor_order!r}"
            )
        if (
            isinstance(max_repeat_attempts, bool)
            or not isinstance(max_repeat_attempts, int)
            or max_repeat_attempts < 0
        ):
            raise ValueError(
                "max_repeat_attempts must be greater than or equal to 0, "
                f"got {max_repeat_attempts!r}"
            )
        self._schema: dict[str, Any] | bool = (
            _parse_schema(output_json_schema)
            if output_json_schema is not None
            else json_schema_for(output_type)
        )
        self._output_type = output_type
        self._order = advisor_order
        self._max_repeat_attempts = max_repeat_attempts

    @classmethod
    def builder(cls) -> StructuredOutputValidationAdvisorBuilder:
        """A fluent builder, for people coming from Spring AI."""
        return StructuredOutputValidationAdvisorBuilder(cls)

    # -- settings ---------------------------------------------------------------------

    @property
    def name(self) -> str:
        """``"Structured Output Validation Advisor"``."""
        return "Structured Output Validation Advisor"

    @property
    def order(self) -> int:
        """The configured advisor order."""
        return self._order

    @property
    def output_type(self) -> Any:
        """The type the schema was made from, or ``None`` when a schema was given."""
        return self._output_type

    @property
    def json_schema(self) -> Mapping[str, Any] | bool:
        """The schema answers are validated against (treat it as read-only)."""
        return self._schema

    @property
    def max_repeat_attempts(self) -> int:
        """Extra requests allowed after the first."""
        return self._max_repeat_attempts

    # -- validation ---------------------------------------------------------------------

    def validation_error(self, response: ChatResponse | None) -> str | None:
        """Why ``response``'s first generation is not valid JSON for the schema, or
        ``None`` when it is."""
        generation = response.result if response is not None else None
        text = generation.text if generation is not None else None
        if text is None:
            return "Missing required json output for validation."
        body = _strip_code_fence(text)
        if not body.strip():
            return "Empty JSON output for validation."
        try:
            instance = json.loads(body, parse_constant=_reject_constant)
        except ValueError as e:
            return f"Invalid JSON: {e}"
        errors = validate_json_schema(instance, self._schema)
        return "; ".join(errors) if errors else None

    def _with_feedback(self, request: ChatClientRequest, error: str) -> ChatClientRequest:
        line = self.FEEDBACK_PREFIX + error

        def add_line(message: UserMessage) -> UserMessage:
            text = f"{message.text}\n{line}" if message.text else line
            return UserMessage(text, message.media, message.metadata)

        return request.copy(prompt=request.prompt.augment_user_message(add_line))

    # -- the paths ----------------------------------------------------------------------

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        """Ask, validate, and re-ask with the reason until valid or out of attempts."""
        if chain is None:
            raise ValueError("chain (the call advisor chain) must not be None")
        if request is None:
            raise ValueError("request (the chat client request) must not be None")
        usage = UsageAccumulator()
        current = request
        response: ChatClientResponse | None = None
        for _ in range(1 + self._max_repeat_attempts):
            response = await chain.copy(self).next_call(current)
            chat_response = response.chat_response
            usage.add(chat_response)
            if chat_response is not None and chat_response.has_tool_calls():
                continue  # reference behaviour: not validated, the same request goes again
            error = self.validation_error(chat_response)
            if error is None:
                break
            current = self._with_feedback(request, error)
        assert response is not None  # at least one attempt always runs
        final = usage.apply(response.chat_response)
        if final is not response.chat_response:
            response = response.copy(chat_response=final)
        return response

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        """Not supported: iterating the result raises
        :class:`~ostinato.errors.AdvisorChainError`."""
        raise AdvisorChainError(
            "The Structured Output Validation Advisor does not support streaming; use call()"
        )
        yield  # type: ignore[unreachable]  # makes this an async generator: raises on iteration


class StructuredOutputValidationAdvisorBuilder:
    """Fluent construction of a :class:`StructuredOutputValidationAdvisor` (or a subclass)."""

    __slots__ = ("_cls", "_settings")

    def __init__(
        self, cls: type[StructuredOutputValidationAdvisor] = StructuredOutputValidationAdvisor
    ) -> None:
        self._cls = cls
        self._settings: dict[str, Any] = {}

    def output_type(self, output_type: Any) -> Self:
        """Validate against the schema of ``output_type``."""
        self._settings["output_type"] = output_type
        return self

    def output_json_schema(self, schema: str | Mapping[str, Any]) -> Self:
        """Validate against ``schema`` (JSON text or a parsed mapping)."""
        self._settings["output_json_schema"] = schema
        return self

    def advisor_order(self, order: int) -> Self:
        """Set the advisor order."""
        self._settings["advisor_order"] = order
        return self

    def max_repeat_attempts(self, attempts: int) -> Self:
        """Set how many extra requests may follow the first."""
        self._settings["max_repeat_attempts"] = attempts
        return self

    def build(self) -> StructuredOutputValidationAdvisor:
        """Construct the advisor (validation errors surface here)."""
        return self._cls(**self._settings)
