"""What every HTTP model adapter needs besides its HTTP library: stream decoders, retries.

* :class:`SSEDecoder` turns a byte stream into :class:`ServerSentEvent` s (OpenAI,
  Anthropic and their imitators); :class:`NDJSONDecoder` turns one into JSON values
  (Ollama). Both take bytes split anywhere.
* :class:`RetryPolicy` (exponential backoff with jitter, bounded in count and total time,
  honouring a server's wait; sleep, clock and randomness injectable) with
  :func:`is_retryable` and :func:`parse_retry_after`; :func:`retry_call` and
  :func:`retry_stream` run an adapter's attempts under it (a stream never retried once it
  delivered).
* :func:`error_class_for_status` and :func:`redact`: the same status gives the same
  :class:`~ostinato.errors.ModelError` in every adapter, and never a secret.
* :class:`LoopClients`: one HTTP client per running event loop, and
  :class:`HttpChatModelBase`, what every adapter's model class shares (options, URL,
  retries, size limit, clients, ``aclose``).
* :class:`ByteBudget`, :func:`read_body` and :func:`read_error_body`: a reply read in
  pieces and refused past ``max_response_bytes`` instead of held whole;
  :func:`decompressed` undoes gzip/deflate in bounded pieces, so the limit bounds memory.
* :func:`header_api_key`: an API key checked before it goes into a header (a stray
  newline would otherwise put the key into the HTTP library's error message), and
  :func:`split_userinfo`: a URL's ``user:password@`` sent as a header, not in the URL.
  Masking itself is :mod:`ostinato.redaction`.

Nothing here imports httpx (or any HTTP library): adapters bring their own, so
``import ostinato`` stays light. See ``docs/adapters.md``.
"""

from ostinato.transport._attempts import (
    AttemptFailed,
    raise_model_error,
    retry_call,
    retry_stream,
)
from ostinato.transport._body_limit import (
    DEFAULT_MAX_RESPONSE_BYTES,
    ERROR_BODY_BYTES,
    ByteBudget,
    check_max_response_bytes,
    read_body,
    read_error_body,
)
from ostinato.transport._credentials import (
    SecretLike,
    header_api_key,
    header_value,
    split_userinfo,
)
from ostinato.transport._decompress import (
    DECOMPRESSED_PIECE_BYTES,
    can_decompress,
    decompressed,
)
from ostinato.transport._loop_clients import AsyncClosable, LoopClients
from ostinato.transport._model_base import HttpChatModelBase
from ostinato.transport._ndjson import NDJSONDecoder, NDJSONError
from ostinato.transport._retry import RetryPolicy, RetryState, is_retryable
from ostinato.transport._retry_after import parse_retry_after
from ostinato.transport._sse import ServerSentEvent, SSEDecoder
from ostinato.transport._status import error_class_for_status, excerpt, redact

__all__ = [
    "DECOMPRESSED_PIECE_BYTES",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ERROR_BODY_BYTES",
    "AsyncClosable",
    "AttemptFailed",
    "ByteBudget",
    "HttpChatModelBase",
    "LoopClients",
    "NDJSONDecoder",
    "NDJSONError",
    "RetryPolicy",
    "RetryState",
    "SSEDecoder",
    "SecretLike",
    "ServerSentEvent",
    "can_decompress",
    "check_max_response_bytes",
    "decompressed",
    "error_class_for_status",
    "excerpt",
    "header_api_key",
    "header_value",
    "is_retryable",
    "parse_retry_after",
    "raise_model_error",
    "read_body",
    "read_error_body",
    "redact",
    "retry_call",
    "retry_stream",
    "split_userinfo",
]
