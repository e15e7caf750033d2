"""The exceptions ostinato raises, in one tree.

::

    OstinatoError
    ├── ConfigurationError          a setting, builder argument or environment variable is wrong
    │   └── ToolResolutionError     a durable turn names a tool a worker cannot resolve
    ├── PluginError                 a plugin failed to load or registered something twice
    ├── AdvisorChainError           the advisor chain was misused (empty chain, unknown advisor,
    │                               two tool advisors)
    ├── SyncFromLoopError           a sync face was called on ostinato's private event loop
    ├── OutputParsingError          the model's answer could not be converted to the asked type
    ├── PromptTemplateError         a prompt template is malformed, or a parameter is missing
    │                               or unused
    ├── StructuredOutputNotSupportedError
    │                               native structured output was asked of a model without it
    ├── ApprovalError               an approver raised, timed out or returned no decision
    ├── ResumeError                 a pending value or its decisions cannot resume a turn
    ├── EventSchemaError            a loop event's JSON form could not be read
    ├── TurnLogError                a turn's log cannot be read from there: unknown turn,
    │                               position past its end, or older than its retention
    ├── DurableTurnError            a durable turn failed, was cancelled or is unknown (turn_id)
    ├── UnitRebuildError            a unit's description cannot be rebuilt into a unit
    ├── UsageLimitExceeded          a turn reached a usage limit and was asked to raise
    ├── ToolInDoubtError            a crash left a call with effects in doubt, and its rule
    │                               (or its reconcile hook) fails the turn
    ├── RetryableToolError          raised by a tool: this failure may pass on another try
    ├── ToolError                   something went wrong running a tool (tool_name)
    │   ├── ToolNotFoundError       the model asked for a tool that is not attached
    │   ├── ToolArgumentsError      the arguments were not JSON or failed the tool's schema
    │   ├── ToolExecutionError      the tool raised (the original exception is __cause__)
    │   ├── ToolTimeoutError        the tool ran past its timeout
    │   ├── NoToolCallError         tools were to be executed but the response asked for none
    │   └── ToolCallLimitExceeded   a per-tool or per-turn call limit was breached
    └── ModelError                  a model provider failed (adapters raise these)
        ├── AuthenticationError     401: the key is missing or wrong
        ├── PermissionDeniedError   403
        ├── NotFoundError           404: unknown model or endpoint
        ├── BadRequestError         400/422: the request was rejected
        ├── RateLimitError          429
        ├── ServerError             5xx
        ├── ModelTimeoutError       no answer within the timeout
        ├── ModelConnectionError    the server could not be reached
        ├── StreamInterruptedError  a stream broke after it had started delivering
        └── MalformedResponseError  the provider's reply could not be understood

Every `ModelError` carries what is known about the failure (provider, HTTP status, the
provider's error type and code, request id, retry-after) and never a secret. This package
is the bottom of the import graph: it imports nothing from the rest of ostinato, not even
for type checkers (a breach's partial result is a type parameter the tools fill in).
"""

from __future__ import annotations

from ostinato.errors._base import AdvisorChainError as AdvisorChainError
from ostinato.errors._base import ApprovalError as ApprovalError
from ostinato.errors._base import ConfigurationError as ConfigurationError
from ostinato.errors._base import DurableTurnError as DurableTurnError
from ostinato.errors._base import EventSchemaError as EventSchemaError
from ostinato.errors._base import NoToolCallError as NoToolCallError
from ostinato.errors._base import OstinatoError as OstinatoError
from ostinato.errors._base import OutputParsingError as OutputParsingError
from ostinato.errors._base import PluginError as PluginError
from ostinato.errors._base import PromptTemplateError as PromptTemplateError
from ostinato.errors._base import ResumeError as ResumeError
from ostinato.errors._base import RetryableToolError as RetryableToolError
from ostinato.errors._base import (
    StructuredOutputNotSupportedError as StructuredOutputNotSupportedError,
)
from ostinato.errors._base import SyncFromLoopError as SyncFromLoopError
from ostinato.errors._base import ToolArgumentsError as ToolArgumentsError
from ostinato.errors._base import ToolCallLimitExceeded as ToolCallLimitExceeded
from ostinato.errors._base import ToolError as ToolError
from ostinato.errors._base import ToolExecutionError as ToolExecutionError
from ostinato.errors._base import ToolInDoubtError as ToolInDoubtError
from ostinato.errors._base import ToolNotFoundError as ToolNotFoundError
from ostinato.errors._base import ToolResolutionError as ToolResolutionError
from ostinato.errors._base import ToolTimeoutError as ToolTimeoutError
from ostinato.errors._base import TurnLogError as TurnLogError
from ostinato.errors._base import UnitRebuildError as UnitRebuildError
from ostinato.errors._base import UsageLimitExceeded as UsageLimitExceeded
from ostinato.errors._model import AuthenticationError as AuthenticationError
from ostinato.errors._model import BadRequestError as BadRequestError
from ostinato.errors._model import MalformedResponseError as MalformedResponseError
from ostinato.errors._model import ModelConnectionError as ModelConnectionError
from ostinato.errors._model import ModelError as ModelError
from ostinato.errors._model import ModelTimeoutError as ModelTimeoutError
from ostinato.errors._model import NotFoundError as NotFoundError
from ostinato.errors._model import PermissionDeniedError as PermissionDeniedError
from ostinato.errors._model import RateLimitError as RateLimitError
from ostinato.errors._model import ServerError as ServerError
from ostinato.errors._model import StreamInterruptedError as StreamInterruptedError

__all__ = [
    "AdvisorChainError",
    "ApprovalError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "DurableTurnError",
    "EventSchemaError",
    "MalformedResponseError",
    "ModelConnectionError",
    "ModelError",
    "ModelTimeoutError",
    "NoToolCallError",
    "NotFoundError",
    "OstinatoError",
    "OutputParsingError",
    "PermissionDeniedError",
    "PluginError",
    "PromptTemplateError",
    "RateLimitError",
    "ResumeError",
    "RetryableToolError",
    "ServerError",
    "StreamInterruptedError",
    "StructuredOutputNotSupportedError",
    "SyncFromLoopError",
    "ToolArgumentsError",
    "ToolCallLimitExceeded",
    "ToolError",
    "ToolExecutionError",
    "ToolInDoubtError",
    "ToolNotFoundError",
    "ToolResolutionError",
    "ToolTimeoutError",
    "TurnLogError",
    "UnitRebuildError",
    "UsageLimitExceeded",
]

# Each class is public here: tracebacks, reprs and pickles name ``ostinato.errors``.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
