"""``QuestionAnswerAdvisor`` reproduces Spring AI's behaviour on a scripted model and the
deterministic embedding model: where the context goes, the template, no match, the
filter from the context, and the documents on the response."""

from __future__ import annotations

import pytest

from ostinato import AdvisorParams, ChatClient
from ostinato.messages import UserMessage
from ostinato.retrieval import InMemoryVectorStore, SearchRequest
from ostinato.testing import HashingEmbeddingModel, ScriptedChatModel
from ostinato.testing.vector_store_conformance import SAMPLES
from ostinato_retrieval import (
    FILTER_EXPRESSION,
    RETRIEVED_DOCUMENTS,
    QuestionAnswerAdvisor,
)

MODES = ("call", "stream")


async def store_with_samples() -> InMemoryVectorStore:
    store = InMemoryVectorStore(HashingEmbeddingModel())
    await store.add(SAMPLES)
    return store


async def turn(client: ChatClient, question: str, mode: str, *params: AdvisorParams):
    spec = client.prompt(question).advisors(*params)
    if mode == "call":
        return await spec.call().achat_client_response()
    last = None
    async for piece in spec.stream().achat_client_responses():
        last = piece
    return last


@pytest.mark.parametrize("mode", MODES)
async def test_the_documents_found_are_rendered_into_the_user_message(mode):
    model = ScriptedChatModel(["Patience."])
    advisor = QuestionAnswerAdvisor(
        await store_with_samples(), search_request=SearchRequest(top_k=2)
    )
    client = ChatClient.builder(model).default_system("S").default_advisors(advisor).build()
    response = await turn(client, "What does sourdough bread need?", mode)
    documents = response.chat_response.metadata.get(RETRIEVED_DOCUMENTS)
    assert documents[0].id == "c" and len(documents) == 2
    (prompt,) = model.prompts
    assert prompt.messages[0].text == "S"
    assert prompt.messages[-1] == UserMessage(
        "What does sourdough bread need?\n\n"
        "Context information is below, surrounded by ---------------------\n\n"
        "---------------------\n"
        "Sourdough bread needs a starter, flour, water and patience.\n"
        f"{documents[1].text}\n"
        "---------------------\n\n"
        "Given the context and provided history information and not prior knowledge,\n"
        "reply to the user comment. If the answer is not in the context, inform\n"
        "the user that you can't answer the question.\n"
    )
    assert all(d.score is not None for d in documents)
    assert response.context[RETRIEVED_DOCUMENTS] == documents


@pytest.mark.parametrize("mode", MODES)
async def test_with_no_match_the_context_is_empty_and_the_model_is_still_asked(mode):
    model = ScriptedChatModel(["I can't answer that."])
    advisor = QuestionAnswerAdvisor(
        await store_with_samples(),
        search_request=SearchRequest(similarity_threshold=0.99),
    )
    client = ChatClient.builder(model).default_advisors(advisor).build()
    response = await turn(client, "quantum chromodynamics", mode)
    assert "---------------------\n\n---------------------" in model.prompts[0].messages[-1].text
    assert response.chat_response.metadata.get(RETRIEVED_DOCUMENTS) == ()


async def test_a_filter_in_the_context_replaces_the_requests_for_one_call():
    model = ScriptedChatModel(["a", "b"])
    advisor = QuestionAnswerAdvisor(
        await store_with_samples(),
        search_request=SearchRequest(top_k=10, filter_expression="genre == 'cooking'"),
    )
    client = ChatClient.builder(model).default_advisors(advisor).build()
    first = await turn(client, "bakery", "call")
    assert {d.id for d in first.context[RETRIEVED_DOCUMENTS]} == {"c"}
    second = await turn(
        client, "bakery", "call", AdvisorParams.param(FILTER_EXPRESSION, "genre == 'drama'")
    )
    assert {d.id for d in second.context[RETRIEVED_DOCUMENTS]} == {"a", "d"}


async def test_a_custom_template_must_hold_both_placeholders():
    store = await store_with_samples()
    with pytest.raises(ValueError, match=r"\{question_answer_context\}"):
        QuestionAnswerAdvisor(store, prompt_template="{query} only")
    model = ScriptedChatModel(["ok"])
    advisor = QuestionAnswerAdvisor(
        store,
        search_request=SearchRequest(top_k=1),
        prompt_template="Q={query} C={question_answer_context} {other}",
    )
    await (
        ChatClient.builder(model)
        .default_advisors(advisor)
        .build()
        .prompt("sourdough {x}")
        .call()
        .acontent()
    )
    assert model.prompts[0].messages[-1].text == (
        "Q=sourdough {x} C=Sourdough bread needs a starter, flour, water and patience. {other}"
    )


def test_the_default_order_is_springs():
    store = InMemoryVectorStore(HashingEmbeddingModel())
    assert QuestionAnswerAdvisor(store).order == 0
    assert QuestionAnswerAdvisor(store, order=7).order == 7
    with pytest.raises(TypeError, match="VectorStore"):
        QuestionAnswerAdvisor(object())  # type: ignore[arg-type]
