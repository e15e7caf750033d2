"""Rebuilding a retrieval unit elsewhere: its search request, on the store of the
client's retrieval advisor.

A retrieval's description names its store (``store``: the store's ``name``) and holds
the search (``query``, ``top_k``, ``similarity_threshold``, ``filter`` as filter text or
``None``). A store is not JSON: the rebuilt unit searches the store of the worker
client's advisor whose ``vector_store`` (an :class:`~ostinato.retrieval.VectorStore`)
has that name, which is the store of the same configuration when the worker runs with
the settings of the process that made the turn (``OSTINATO_RETRIEVAL_*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ostinato.errors import ConfigurationError, UnitRebuildError

if TYPE_CHECKING:
    from ostinato.client import ChatClient
    from ostinato.retrieval import SearchRequest, VectorStore
    from ostinato.units import Unit

__all__ = ["retrieval_unit", "store_of"]


def _malformed(field: str, found: object, expected: str) -> UnitRebuildError:
    text = repr(found)
    brief = text if len(text) <= 80 else f"{text[:77]}..."
    return UnitRebuildError(
        f"the retrieval unit's description holds {field} = {brief}\n"
        f"  expected: {expected}\n"
        "fix: pass what unit.describe() returned for the unit (read back from JSON)"
    )


def _request(description: Mapping[str, Any]) -> SearchRequest:
    from ostinato.retrieval import FilterExpressionError, SearchRequest

    query, top_k = description["query"], description["top_k"]
    threshold, found = description["similarity_threshold"], description["filter"]
    if not isinstance(query, str):
        raise _malformed("query", query, "the query text (a string)")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise _malformed("top_k", top_k, "a positive integer")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise _malformed("similarity_threshold", threshold, "a number from 0.0 to 1.0")
    if found is not None and not isinstance(found, str):
        raise _malformed("filter", found, "filter text (str(filter)) or null")
    try:
        return SearchRequest(
            query, top_k=top_k, similarity_threshold=threshold, filter_expression=found
        )
    except (ValueError, FilterExpressionError) as error:
        raise _malformed("the search", dict(description), str(error)) from error


def store_of(client: ChatClient, name: str) -> VectorStore:
    """The vector store named ``name`` of ``client``'s retrieval advisors (those with a
    ``vector_store``).

    Raises:
        ConfigurationError: no advisor of the client has a store of that name (the
            message lists the stores it has).
    """
    from ostinato.retrieval import VectorStore

    seen: list[str] = []
    for advisor in client.prompt().effective_advisors():
        store = getattr(advisor, "vector_store", None)
        if isinstance(store, VectorStore):
            if store.name == name:
                return store
            seen.append(store.name)
    raise ConfigurationError(
        f"the retrieval unit searches the vector store {name!r}, and this client has "
        f"{'the stores ' + ', '.join(map(repr, seen)) if seen else 'no retrieval advisor'}\n"
        "  expected: an advisor with a vector_store of that name (the retrieval plugin's)\n"
        "fix: configure retrieval on the worker as where the turn was made "
        "(OSTINATO_RETRIEVAL_ADVISOR, OSTINATO_RETRIEVAL_STORE and its settings)"
    )


def retrieval_unit(name: str, description: Mapping[str, Any], client: ChatClient) -> Unit[Any]:
    """The retrieval ``description`` describes, on ``client``'s store named ``name``."""
    from ostinato.units import Retrieval

    store_name = description["store"]
    if store_name != name:
        raise _malformed("store", store_name, f"the unit's name, {name!r} (the store's name)")
    request = _request(description)
    return Retrieval(store_of(client, name), request)
