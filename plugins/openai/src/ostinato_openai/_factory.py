"""Building an :class:`OpenAIChatModel` from :class:`OpenAISettings` (what the plugin does)."""

from __future__ import annotations

from ostinato.http import connection_arguments
from ostinato.transport import RetryPolicy
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


def create_chat_model(
    model_name: str | None = None,
    settings: OpenAISettings | None = None,
    *,
    retry_policy: RetryPolicy | None = None,
) -> OpenAIChatModel:
    """An :class:`OpenAIChatModel` for ``model_name`` configured by ``settings``.

    Without ``settings`` they are read from the environment (and ``.env``).

    Raises:
        ConfigurationError: a setting has a bad value, or the base URL is OpenAI's and no
            API key is set.
    """
    settings = OpenAISettings.resolve(settings)
    return OpenAIChatModel(
        default_options=default_options_from(settings, model_name),
        base_url=settings.base_url,
        organization=settings.organization,
        project=settings.project,
        **connection_arguments(settings, retry_policy),
    )
