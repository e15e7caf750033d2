"""A retrieval is a unit: both advisors search through the chain's unit stack, a wrapper
of the kind may record or replay the documents, the unit round-trips through its
description onto another client's store, and with no wrapper of the kind no unit is
made (its turn numbers no unit for it)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ostinato import ChatClient
from ostinato.durable import rebuild_unit
from ostinato.errors import ConfigurationError, UnitRebuildError
from ostinato.retrieval import Document, InMemoryVectorStore, Key, SearchRequest
from ostinato.testing import HashingEmbeddingModel, ScriptedChatModel
from ostinato.testing.vector_store_conformance import SAMPLES
from ostinato.units import Retrieval, Unit, UnitKind, UnitWrapper
from ostinato_retrieval import (
    DOCUMENT_CONTEXT,
    RETRIEVED_DOCUMENTS,
    QuestionAnswerAdvisor,
    RetrievalAugmentationAdvisor,
    VectorStoreDocumentRetriever,
)

QUESTION = "What does sourdough bread need?"
MODES = ("call", "stream")


async def _store() -> InMemoryVectorStore:
    store = InMemoryVectorStore(HashingEmbeddingModel())
    await store.add(SAMPLES)
    return store


class Recorder:
    """A wrapper of some kinds keeping each unit it saw and what it returned; with
    ``replay``, it returns those documents for a retrieval instead of searching."""

    def __init__(self, *kinds: UnitKind, replay: list[Document] | None = None) -> None:
        self.seen: list[tuple[Unit[Any], Any]] = []
        self.replay = replay
        self.wrapper = UnitWrapper("recorder", 3000, frozenset(kinds), self.around)

    async def around(self, unit: Unit[Any], next: Callable[[Unit[Any]], Awaitable[Any]]) -> Any:
        if self.replay is not None and unit.kind is UnitKind.RETRIEVAL:
            result: Any = unit.decode(json.loads(json.dumps(unit.encode(self.replay))))
        else:
            result = await next(unit)
        self.seen.append((unit, result))
        return result


async def _turn(client: ChatClient, mode: str) -> Any:
    spec = client.prompt(QUESTION)
    if mode == "call":
        return await spec.call().achat_client_response()
    last = None
    async for piece in spec.stream().achat_client_responses():
        last = piece
    return last


def _advisors(store: InMemoryVectorStore) -> dict[str, tuple[Any, str]]:
    return {
        "question-answer": (
            QuestionAnswerAdvisor(store, search_request=SearchRequest(top_k=2)),
            RETRIEVED_DOCUMENTS,
        ),
        "retrieval-augmentation": (
            RetrievalAugmentationAdvisor(VectorStoreDocumentRetriever(store, top_k=2)),
            DOCUMENT_CONTEXT,
        ),
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("advisor_name", ["question-answer", "retrieval-augmentation"])
async def test_each_advisor_searches_as_a_retrieval_unit(mode: str, advisor_name: str) -> None:
    store = await _store()
    advisor, key = _advisors(store)[advisor_name]
    recorder = Recorder(UnitKind.RETRIEVAL, UnitKind.MODEL_CALL)
    model = ScriptedChatModel(["Patience."])
    client = (
        ChatClient.builder(model).default_advisors(advisor).unit_wrappers(recorder.wrapper).build()
    )
    response = await _turn(client, mode)
    [(unit, found)] = [(u, r) for u, r in recorder.seen if u.kind is UnitKind.RETRIEVAL]
    assert isinstance(unit, Retrieval) and unit.sequence == 1
    assert unit.describe() == {
        "store": "in-memory",
        "query": QUESTION,
        "top_k": 2,
        "similarity_threshold": 0.0,
        "filter": None,
    }
    assert [d.id for d in found] == [d.id for d in response.chat_response.metadata.get(key)]


@pytest.mark.parametrize("advisor_name", ["question-answer", "retrieval-augmentation"])
async def test_a_replayed_retrieval_gives_the_recorded_documents_whatever_the_store_holds(
    advisor_name: str,
) -> None:
    store = await _store()
    advisor, key = _advisors(store)[advisor_name]
    recorded = [Document("Recorded: rye and time.", {"kind": "recorded"}, "r1", 0.9)]
    recorder = Recorder(UnitKind.RETRIEVAL, replay=recorded)
    model = ScriptedChatModel(["Rye."])
    client = (
        ChatClient.builder(model).default_advisors(advisor).unit_wrappers(recorder.wrapper).build()
    )
    response = await _turn(client, "call")
    assert list(response.chat_response.metadata.get(key)) == recorded
    (prompt,) = model.prompts
    assert "Recorded: rye and time." in (prompt.messages[-1].text or "")
    assert "Sourdough" not in (prompt.messages[-1].text or "")


async def test_with_no_wrapper_of_the_kind_no_retrieval_unit_is_made() -> None:
    store = await _store()
    recorder = Recorder(UnitKind.MODEL_CALL)  # a stack, but nothing wraps retrievals
    client = (
        ChatClient.builder(ScriptedChatModel(["Patience."]))
        .default_advisors(QuestionAnswerAdvisor(store))
        .unit_wrappers(recorder.wrapper)
        .build()
    )
    assert client.units.retrieval == ()
    await _turn(client, "call")
    [(unit, _)] = recorder.seen
    assert unit.kind is UnitKind.MODEL_CALL
    assert unit.sequence == 1  # no retrieval was numbered before it


async def test_a_retrieval_round_trips_through_its_description_onto_another_client() -> None:
    here, there = await _store(), await _store()
    request = SearchRequest(
        QUESTION,
        top_k=3,
        similarity_threshold=0.01,
        filter_expression=(Key("genre") != "drama") & Key("year").in_([2019, 2021]),
    )
    unit = Retrieval(here, request)
    client = (
        ChatClient.builder(ScriptedChatModel(["-"]))
        .default_advisors(QuestionAnswerAdvisor(there))
        .build()
    )
    description = json.loads(json.dumps(unit.describe()))
    rebuilt = rebuild_unit("retrieval", unit.name, description, client, sequence=7)
    assert isinstance(rebuilt, Retrieval)
    assert rebuilt.store is there and rebuilt.sequence == 7
    assert rebuilt.request == request
    found = await client.units.run(rebuilt)
    assert found == await unit.run() and found
    decoded = unit.decode(json.loads(json.dumps(unit.encode(found))))
    assert decoded == found


async def test_a_rebuilt_retrieval_needs_a_store_of_its_name() -> None:
    unit = Retrieval(await _store(), SearchRequest(QUESTION))
    description = json.loads(json.dumps(unit.describe()))
    bare = ChatClient.builder(ScriptedChatModel(["-"])).build()
    with pytest.raises(ConfigurationError, match="no retrieval advisor"):
        rebuild_unit("retrieval", "in-memory", description, bare)
    with pytest.raises(UnitRebuildError, match="top_k"):
        rebuild_unit("retrieval", "in-memory", {**description, "top_k": 0}, bare)
    with pytest.raises(UnitRebuildError, match="lacks top_k, similarity_threshold, filter"):
        rebuild_unit("retrieval", "in-memory", {"store": "in-memory", "query": "q"}, bare)
