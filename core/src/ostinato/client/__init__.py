"""The ``ChatClient`` fluent API: requests, results, advisor params."""

from ostinato.advisors import ChatClientRequest, ChatClientResponse
from ostinato.client._client import ChatClient, ChatClientBuilder
from ostinato.client._entity import EntityConverter
from ostinato.client._params import AdvisorParams
from ostinato.client._responses import CallResponseSpec, StreamResponseSpec
from ostinato.client._spec import ChatClientRequestSpec
from ostinato.context_keys import TOOL_CALLING_ADVISOR_AUTO_REGISTER

__all__ = [
    "TOOL_CALLING_ADVISOR_AUTO_REGISTER",
    "AdvisorParams",
    "CallResponseSpec",
    "ChatClient",
    "ChatClientBuilder",
    "ChatClientRequest",
    "ChatClientRequestSpec",
    "ChatClientResponse",
    "EntityConverter",
    "StreamResponseSpec",
]
