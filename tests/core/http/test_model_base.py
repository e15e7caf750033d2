"""HttpChatModelBase: the members every HTTP adapter's model inherits."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError, MalformedResponseError
from ostinato.http import HttpChatModelBase
from ostinato.prompt import ChatOptions
from ostinato.transport import LoopClients, RetryPolicy


class Client:
    """A stand-in HTTP client: only closing matters here."""

    def __init__(self) -> None:
        self.is_closed = False

    async def aclose(self) -> None:
        self.is_closed = True


class AcmeChatModel(HttpChatModelBase[ChatOptions]):
    def __init__(self, *, max_response_bytes: int = 100, retry_policy=None) -> None:
        self.made: list[Client] = []
        self._init_transport(
            default_options=ChatOptions(model="acme-1"),
            base_url="https://acme.test",
            url="https://acme.test/chat",
            provider="acme",
            retry_policy=retry_policy,
            max_response_bytes=max_response_bytes,
            clients=LoopClients(self._make),
        )

    def _make(self) -> Client:
        client = Client()
        self.made.append(client)
        return client


def test_the_inherited_properties_and_repr():
    model = AcmeChatModel()
    assert model.default_options == ChatOptions(model="acme-1")
    assert model.base_url == "https://acme.test"
    assert model.retry_policy == RetryPolicy()
    assert model.max_response_bytes == 100
    assert repr(model) == "AcmeChatModel(model='acme-1', base_url='https://acme.test')"
    policy = RetryPolicy(max_retries=0)
    assert AcmeChatModel(retry_policy=policy).retry_policy is policy


def test_the_budget_names_the_provider_and_url():
    budget = AcmeChatModel()._budget()
    with pytest.raises(
        MalformedResponseError, match=r"^acme: the reply from https://acme.test/chat"
    ):
        budget.add(b"x" * 101)


def test_a_bad_limit_is_refused():
    with pytest.raises(ConfigurationError, match="max_response_bytes must be at least 1"):
        AcmeChatModel(max_response_bytes=0)


async def test_async_with_closes_the_clients_made():
    async with AcmeChatModel() as model:
        model._clients.get()
    assert [client.is_closed for client in model.made] == [True]
