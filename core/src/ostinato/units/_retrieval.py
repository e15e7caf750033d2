"""A vector store similarity search as a unit.

A retrieval advisor calls :func:`search_documents` instead of
``store.similarity_search(request)``, passing its chain's stack and turn
(``units=chain.units, turn=chain.turn``), or nothing where a stack is bound around it
(:func:`using_unit_stack`): with no wrapper of :attr:`~ostinato.units.UnitKind.RETRIEVAL`
it is exactly that call and no unit is made; otherwise the search is a
:class:`Retrieval` unit that runs through the stack. In a durable turn it is recorded,
so a replayed turn sees the documents its first run saw, even if the store changed
since.

A retrieval describes itself as ``{"store", "query", "top_k", "similarity_threshold",
"filter"}`` (the store's name, the search request, the filter as filter text or
``None``); its result is the documents found (:data:`DOCUMENTS`, ``Document.to_dict``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ostinato.retrieval import Document, SearchRequest, VectorStore
from ostinato.units._unit import _BOUND, TurnScope, Unit, UnitCodec, UnitKind

if TYPE_CHECKING:
    from ostinato.units._stack import UnitStack

__all__ = ["DOCUMENTS", "Retrieval", "search_documents", "using_unit_stack"]


def _encode_documents(documents: list[Document]) -> list[dict[str, Any]]:
    return [d.to_dict() for d in documents]


def _decode_documents(data: Any) -> list[Document]:
    return [Document.from_dict(d) for d in data]


#: A retrieval's result: the documents found, each as ``Document.to_dict``.
DOCUMENTS: Final[UnitCodec[list[Document]]] = UnitCodec(_encode_documents, _decode_documents)


class Retrieval(Unit["list[Document]"]):
    """A vector store similarity search: ``store.similarity_search(request)``.

    Args:
        store: the store searched (the unit is named after it: ``store.name``).
        request: the search.
        scope: the caller's turn, used when no turn scope is current.
    """

    __slots__ = ("request", "store")

    kind: ClassVar[UnitKind] = UnitKind.RETRIEVAL
    codec: ClassVar[UnitCodec[Any]] = DOCUMENTS

    def __init__(
        self, store: VectorStore, request: SearchRequest, scope: TurnScope | None = None
    ) -> None:
        self.store = store
        self.request = request
        self._numbered(store.name, scope)

    def describe(self) -> dict[str, Any]:
        """``{"store", "query", "top_k", "similarity_threshold", "filter"}``."""
        request = self.request
        found = request.filter_expression
        return {
            "store": self.store.name,
            "query": request.query,
            "top_k": request.top_k,
            "similarity_threshold": request.similarity_threshold,
            "filter": None if found is None else str(found),
        }

    async def run(self) -> list[Document]:
        """``store.similarity_search(request)``."""
        return list(await self.store.similarity_search(self.request))


async def search_documents(
    store: VectorStore,
    request: SearchRequest,
    *,
    units: UnitStack | None = None,
    turn: TurnScope | None = None,
) -> list[Document]:
    """``store.similarity_search(request)``, as a
    :attr:`~ostinato.units.UnitKind.RETRIEVAL` unit of ``units`` (``turn``: the caller's
    turn scope); without ``units``, the stack bound around the caller, if any."""
    if units is None:
        bound = _BOUND.get()
        if bound is not None:
            units, turn = bound
    if units is None or not units.retrieval:
        return list(await store.similarity_search(request))
    documents: list[Document] = await units.run(Retrieval(store, request, turn))
    return documents


@contextlib.contextmanager
def using_unit_stack(units: UnitStack, turn: TurnScope | None = None) -> Iterator[None]:
    """Make ``units`` the current stack for the code inside (in this task and the tasks
    it starts), with ``turn`` numbering its units: an advisor wraps code it does not
    own (a pipeline's document retriever) so that the retrievals in it are units of its
    chain (``with using_unit_stack(chain.units, chain.turn): ...``)."""
    token = _BOUND.set((units, turn if turn is not None else TurnScope()))
    try:
        yield
    finally:
        _BOUND.reset(token)
