"""Building an :class:`OpenAIChatModel` from :class:`OpenAISettings` (what the plugin does)."""

from __future__ import annotations

from ostinato.http import model_factory
from ostinato_openai._model import OpenAIChatModel
from ostinato_openai._options import OpenAIChatOptions
from ostinato_openai._settings import OpenAISettings

__all__ = ["create_chat_model", "default_options_from"]


def default_options_from(settings: OpenAISettings, model: str | None = None) -> OpenAIChatOptions:
    """The default request options the settings describe (``model`` overrides theirs)."""
    return OpenAIChatOptions(
        model=model or settings.model,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_tokens=settings.max_tokens,
        max_completion_tokens=settings.max_completion_tokens,
        seed=settings.seed,
        reasoning_effort=settings.reasoning_effort,
        parallel_tool_calls=settings.parallel_tool_calls,
        strict_tools=settings.strict_tools,
        stream_usage=settings.stream_usage,
        system_role=settings.system_role,
        extra_body=settings.extra_body,
    )


def _arguments(settings: OpenAISettings) -> dict[str, str | None]:
    """The organisation and project headers' values."""
    return {"organization": settings.organization, "project": settings.project}


#: ``create_chat_model(model_name=None, settings=None, *, retry_policy=None)``: an
#: :class:`OpenAIChatModel` for ``model_name`` (empty: the settings' model) configured by
#: ``settings`` (read from the environment and ``.env`` when not given).
create_chat_model = model_factory(OpenAIChatModel, OpenAISettings, default_options_from, _arguments)
