"""Instrumentation scopes: code a plugin wraps around work of the loop *while it runs*.

Loop events (:mod:`ostinato.events`) are observations after the fact. Some instrumentation
must instead be *current* while the code runs: a tracing span that spans the code makes
itself (a database call, an HTTP call) nest under. Two kinds of scope do that; each is
process-wide, registered at boot, and with none registered the work pays one check of an
empty tuple. A scope must not raise: an exception from it fails the turn. (Model rounds,
tool calls and memory reads and writes are wrapped by unit wrappers instead: see
:mod:`ostinato.units`.)

**Advisor scopes** wrap each advisor of the chain (each ``next_call``/``next_stream``
hop, so an advisor inside the tool loop is wrapped once per model round). A scope is
called with the advisor, the request and whether it is the stream path, and returns a
context manager entered when the advisor starts (for a stream: when it is first
iterated) and left when it is done (for a stream: when the stream ended, failed or was
closed; the exception, ``GeneratorExit`` for a closed stream, goes through
``__exit__``). What it yields is an *activation*: a function returning a context manager
that makes the scope current. The chain holds it around the whole ``advise_call``, and
around each step of a stream (never across a ``yield``, where the consumer's code runs),
so what an advisor does (model calls, tool calls) in any step of its stream nests under
its scope::

    @contextlib.contextmanager
    def traced(advisor, request, stream):
        span = tracer.start_span(f"advisor {advisor.name}")
        try:
            yield lambda: trace.use_span(span, end_on_exit=False)
        finally:
            span.end()

    remove = add_advisor_scope(traced)

**Model attempt scopes** wrap each HTTP attempt of a model call made by an httpx adapter
(:class:`~ostinato.http.HttpxChatModel`): the first request and each retry. A scope is
called with a :class:`ModelAttempt` and returns a context manager entered before the
request is sent and left when the attempt is over (a call's reply read, a stream read
to its end or closed; a failure goes through ``__exit__``: an
:class:`~ostinato.transport.AttemptFailed` or a :class:`~ostinato.errors.ModelError`).
What it yields is told the HTTP status when the response arrives. A stream's scope
stays open across the chunks it yields, so it must not make anything current.
"""

from __future__ import annotations

from _thread import allocate_lock  # not threading: ``import ostinato`` stays light
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

__all__ = [
    "AdvisorScope",
    "AdvisorScopeActivation",
    "ModelAttempt",
    "ModelAttemptScope",
    "ModelAttemptStatusReport",
    "add_advisor_scope",
    "add_model_attempt_scope",
    "advisor_scopes",
    "entered_model_attempt_scopes",
    "model_attempt_scopes",
]

#: Makes an advisor scope current: held around ``advise_call`` and each step of a stream.
AdvisorScopeActivation: TypeAlias = "Callable[[], AbstractContextManager[object]]"

#: ``(advisor, request, stream) -> context manager`` entered around one advisor's work:
#: the :class:`~ostinato.advisors.Advisor` and its
#: :class:`~ostinato.advisors.ChatClientRequest` (typed ``Any`` here, as this module sits
#: below the advisors in the import graph; a scope annotates them with the real types).
AdvisorScope: TypeAlias = (
    "Callable[[Any, Any, bool], AbstractContextManager[AdvisorScopeActivation]]"
)

#: Told the HTTP status of an attempt's response when it arrives.
ModelAttemptStatusReport: TypeAlias = "Callable[[int], None]"


@dataclass(frozen=True, slots=True)
class ModelAttempt:
    """One HTTP attempt of a model call.

    Attributes:
        provider: the adapter's provider name (``openai``, ``anthropic``…).
        method: the HTTP method (``POST``).
        url: where the request goes, credentials masked.
        resend_count: 0 for the first attempt, then 1, 2… for each retry.
        stream: whether the attempt reads a stream.
    """

    provider: str
    method: str
    url: str
    resend_count: int
    stream: bool


#: ``(attempt) -> context manager`` entered around one HTTP attempt of a model call.
ModelAttemptScope: TypeAlias = (
    "Callable[[ModelAttempt], AbstractContextManager[ModelAttemptStatusReport]]"
)

ScopeT = TypeVar("ScopeT")


class _ScopeRegistry(Generic[ScopeT]):
    """The registered scopes of one kind; :attr:`scopes` is read on the hot path."""

    __slots__ = ("_lock", "scopes")

    def __init__(self) -> None:
        self._lock = allocate_lock()
        #: The registered scopes, outermost first (empty: nothing is wrapped).
        self.scopes: tuple[ScopeT, ...] = ()

    def add(self, scope: ScopeT) -> Callable[[], None]:
        """Register ``scope`` (innermost: last added); returns a function removing it again
        (calling it twice is harmless)."""
        with self._lock:
            self.scopes = (*self.scopes, scope)

        def remove() -> None:
            with self._lock:
                self.scopes = tuple(s for s in self.scopes if s is not scope)

        return remove


#: Read by the chain on each hop (one attribute check when empty).
_ADVISOR_SCOPES: _ScopeRegistry[AdvisorScope] = _ScopeRegistry()
#: Read by the httpx adapters on each attempt.
_MODEL_ATTEMPT_SCOPES: _ScopeRegistry[ModelAttemptScope] = _ScopeRegistry()


def add_advisor_scope(scope: AdvisorScope) -> Callable[[], None]:
    """Wrap every advisor invocation of the process in ``scope`` (innermost last added).

    Returns a function removing it again (calling it twice is harmless).
    """
    return _ADVISOR_SCOPES.add(scope)


def advisor_scopes() -> tuple[AdvisorScope, ...]:
    """The registered advisor scopes, outermost first."""
    return _ADVISOR_SCOPES.scopes


def add_model_attempt_scope(scope: ModelAttemptScope) -> Callable[[], None]:
    """Wrap every HTTP attempt of a model call in ``scope`` (innermost last added).

    Returns a function removing it again (calling it twice is harmless).
    """
    return _MODEL_ATTEMPT_SCOPES.add(scope)


def model_attempt_scopes() -> tuple[ModelAttemptScope, ...]:
    """The registered model attempt scopes, outermost first."""
    return _MODEL_ATTEMPT_SCOPES.scopes


@contextmanager
def entered_model_attempt_scopes(
    scopes: tuple[ModelAttemptScope, ...], attempt: ModelAttempt
) -> Iterator[ModelAttemptStatusReport]:
    """Every scope of ``scopes`` entered around ``attempt``; yields one status report
    telling them all (for adapters that drive attempts themselves)."""
    with ExitStack() as stack:
        reports = [stack.enter_context(scope(attempt)) for scope in scopes]

        def told(status: int) -> None:
            for report in reports:
                report(status)

        yield told
