"""``HttpxModelConformance``: the kit for a model built on :class:`~ostinato.http.HttpxChatModel`.

Such a model takes the same arguments whatever its provider, so the kit builds it on the
mock transport and against a live server itself: the adapter's test module declares the
model class, the base URL to use offline and the variables naming a live server, and writes
only its provider's replies.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

import httpx

from ostinato.model import ChatModel
from ostinato.testing.conformance._base import ConformanceBase
from ostinato.transport import RetryPolicy

__all__ = ["HttpxModelHooks"]


async def _no_sleep(_seconds: float) -> None:
    """A retry sleep that returns at once."""


class HttpxModelHooks(ConformanceBase):
    """:meth:`build_model` and :meth:`live_model` for an httpx-backed model.

    Class attributes:
        model_class: the adapter's model class (its ``model``, ``api_key``, ``base_url``,
            ``retry_policy`` and ``http_client_factory`` arguments are used); the kit's
            ``provider`` is the class's ``provider`` unless declared.
        base_url: the API root the offline tests use.
        live_prefix: the prefix of the live variables (default ``LIVE_<PROVIDER>``):
            ``<prefix>_BASE_URL``, ``<prefix>_MODEL`` and ``<prefix>_API_KEY``.
        live_requires: the live variable that must be set for the live tests to run
            (``BASE_URL``, or ``API_KEY`` for a provider with a public endpoint).
        live_model_name: the model the live tests use when ``<prefix>_MODEL`` is unset.
    """

    model_class: ClassVar[Callable[..., ChatModel]]
    base_url: ClassVar[str] = "https://conformance.test"
    live_prefix: ClassVar[str] = ""
    live_requires: ClassVar[str] = "BASE_URL"
    live_model_name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = vars(cls)
        name = getattr(declared.get("model_class"), "provider", None)
        if isinstance(name, str) and "provider" not in declared:
            cls.provider = name  # the errors of an httpx-backed model carry its provider
        if cls.provider and not cls.live_prefix:
            cls.live_prefix = f"LIVE_{cls.provider.upper()}"

    def build_model(
        self, transport: httpx.AsyncBaseTransport, *, api_key: str, max_retries: int
    ) -> ChatModel:
        """``model_class`` on ``transport``, retrying without sleeping."""
        return self.model_class(
            model="conformance-model",
            api_key=api_key,
            base_url=self.base_url,
            retry_policy=RetryPolicy(max_retries=max_retries, sleep=_no_sleep),
            http_client_factory=lambda: httpx.AsyncClient(transport=transport),
        )

    def live_model(self) -> ChatModel | None:
        """``model_class`` against the server the live variables name (``None`` when
        ``<live_prefix>_<live_requires>`` is unset)."""
        found = {
            name: os.environ.get(f"{self.live_prefix}_{name}")
            for name in ("BASE_URL", "MODEL", "API_KEY")
        }
        if not self.live_prefix or not found[self.live_requires]:
            return None
        arguments: dict[str, Any] = {
            "model": found["MODEL"] or self.live_model_name,
            "api_key": found["API_KEY"],
        }
        if found["BASE_URL"]:
            arguments["base_url"] = found["BASE_URL"]
        return self.model_class(**arguments)
