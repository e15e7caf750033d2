"""Core settings: what ``OSTINATO_*`` environment variables (and ``.env``) configure.

Prefix ``OSTINATO_``, nested delimiter ``__``: ``tools.max_iterations`` is
``OSTINATO_TOOLS__MAX_ITERATIONS``. Lists are comma-separated. Plugins have their own
settings classes with flat prefixes (``OSTINATO_OPENAI_``). Read them with
:func:`~ostinato.settings.load_settings`, which turns validation errors into one
:class:`~ostinato.errors.ConfigurationError` naming the variables.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = [
    "ChatClientSettings",
    "CommaSeparated",
    "Settings",
    "ToolCallingSettings",
    "ToolsSettings",
    "split_commas",
]


def split_commas(value: Any) -> Any:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``; ``""`` -> ``[]``; other values unchanged."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


#: A list read from the environment as comma-separated text (``a,b``), not JSON.
CommaSeparated = Annotated[list[str], NoDecode, BeforeValidator(split_commas)]


class ToolCallingSettings(BaseModel):
    """``OSTINATO_CHAT_CLIENT__TOOL_CALLING__*``: the tool advisor of auto-configured clients."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    enabled: bool = True
    """Add the tool advisor to every request (``false``: tool calls are returned, not run)."""
    advisor: str | None = None
    """Which registered tool advisor to use (``default``, ``tool-search``...)."""


class ChatClientSettings(BaseModel):
    """``OSTINATO_CHAT_CLIENT__*``: the clients the container builds."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    tool_calling: ToolCallingSettings = ToolCallingSettings()
    """The tool advisor."""


class ToolsSettings(BaseModel):
    """``OSTINATO_TOOLS__*``: tool call limits, and the named tool sets to enable."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    max_calls_per_tool: Annotated[int | None, Field(ge=1)] = 40
    """Calls of one tool per turn (empty: unlimited)."""
    max_total_tool_calls: Annotated[int | None, Field(ge=1)] = 150
    """Calls of all tools together per turn (empty: unlimited)."""
    max_iterations: Annotated[int, Field(ge=1)] = 25
    """Model rounds per turn before the tool loop gives up."""
    enabled: CommaSeparated = []
    """Named tool sets (from plugins) every auto-configured client gets."""
    final_answer_on_limit: bool = False
    """At the iteration cap, a tool-call limit, a usage limit or a no-progress end, ask the
    model once more, without tools, to answer with what it has."""
    no_progress_repeats: Annotated[int | None, Field(ge=2)] = None
    """The same tool call this many rounds in a row is no progress (empty: detection off,
    the default, unless ``no_progress_action`` is set, which detects from 3)."""
    no_progress_action: Literal["tell", "end"] = "tell"
    """On no progress: tell the model the earlier result, or end the turn. Setting it
    turns detection on."""
    max_model_requests: Annotated[int | None, Field(ge=1)] = None
    """Model requests per turn (empty: unlimited); reaching it ends the turn (budget)."""
    max_total_tokens: Annotated[int | None, Field(ge=1)] = None
    """Tokens of all rounds per turn (empty: unlimited); reaching it ends the turn (budget)."""
    approve_effects: CommaSeparated = []
    """Effect classes whose calls wait for an approval decision (e.g. ``destructive``)."""
    order_effects: bool = True
    """Run side-effecting and destructive calls after the rest of their batch, one at a
    time in the model's order (``false``: as undeclared calls)."""
    tool_retries: Annotated[int, Field(ge=0)] = 2
    """Retries of a retryable failure of a read-only or idempotent call."""
    eager_start: bool = False
    """Start read-only calls whose arguments are complete while their round streams."""

    def tool_loop_settings(self) -> dict[str, Any]:
        """The :class:`~ostinato.advisors.ToolCallingAdvisor` settings these give: the
        iteration cap and how a turn ends (what every tool advisor factory passes on)."""
        from ostinato._usage_limits import UsageLimits

        limits = None
        if self.max_model_requests is not None or self.max_total_tokens is not None:
            limits = UsageLimits(
                model_requests=self.max_model_requests, total_tokens=self.max_total_tokens
            )
        return {
            "max_iterations": self.max_iterations,
            "final_answer_on_limit": self.final_answer_on_limit,
            "no_progress_repeats": self._no_progress_repeats(),
            "no_progress_action": self.no_progress_action,
            "usage_limits": limits,
        }

    def _no_progress_repeats(self) -> int | None:
        """Detection is off unless a variable asks for it: the action alone detects from 3."""
        asked = "no_progress_action" in self.model_fields_set
        if (
            self.no_progress_repeats is None
            and asked
            and "no_progress_repeats" not in (self.model_fields_set)
        ):
            return 3
        return self.no_progress_repeats

    @field_validator(
        "max_calls_per_tool",
        "max_total_tool_calls",
        "no_progress_repeats",
        "max_model_requests",
        "max_total_tokens",
        mode="before",
    )
    @classmethod
    def _blank_is_unlimited(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "unlimited", "off"):
            return None
        return value


class Settings(BaseSettings):
    """Core settings, read from ``OSTINATO_*`` environment variables and ``.env``."""

    model_config = SettingsConfigDict(
        env_prefix="OSTINATO_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
    )

    model: str | None = None
    """``provider:model``, e.g. ``openai:gpt-4.1-mini``; ``openai:`` asks for the provider's
    default model."""
    chat_client: ChatClientSettings = ChatClientSettings()
    """The clients the container builds."""
    tools: ToolsSettings = ToolsSettings()
    """Tool limits and named tool sets."""
    load_plugins: Annotated[list[str] | None, NoDecode, BeforeValidator(split_commas)] = None
    """Allow list of plugins to load (unset: all; empty: none)."""
    disable_plugins: CommaSeparated = []
    """Plugins not to load."""
    strict_plugins: bool = False
    """A plugin that fails to load is an error rather than a warning."""
    http_engine: Literal["httpx", "aiohttp"] | None = None
    """What moves the bytes of HTTP models given no ``http_engine`` (``httpx``, the
    default, or ``aiohttp``); each model reads it when it is made."""

    @field_validator("model", mode="before")
    @classmethod
    def _provider_and_model(cls, value: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                return None
            provider, sep, _ = value.strip().partition(":")
            if not sep or not provider or any(c.isspace() for c in value.strip()):
                from ostinato.settings._model_form import model_example

                raise ValueError(f"provider:model, e.g. {model_example(value)}")
        return value
