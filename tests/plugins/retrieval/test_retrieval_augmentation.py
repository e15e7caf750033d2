"""``RetrievalAugmentationAdvisor`` reproduces Spring AI's modular pipeline on a scripted
model and the deterministic embedding model: the query it builds, the order of the
stages, the augmenter's templates, an empty context, and the documents on the response,
on the call and the stream path."""

from __future__ import annotations

import asyncio

import pytest

from ostinato import AdvisorParams, ChatClient
from ostinato.messages import UserMessage
from ostinato.retrieval import Document, InMemoryVectorStore, Key
from ostinato.testing import HashingEmbeddingModel, ScriptedChatModel
from ostinato.testing.vector_store_conformance import SAMPLES
from ostinato_retrieval import (
    AUGMENTER_EMPTY_CONTEXT_TEMPLATE,
    DOCUMENT_CONTEXT,
    RETRIEVER_FILTER_EXPRESSION,
    ContextualQueryAugmenter,
    MultiQueryExpander,
    Query,
    RetrievalAugmentationAdvisor,
    RewriteQueryTransformer,
    VectorStoreDocumentRetriever,
)

MODES = ("call", "stream")
#: The answers' texts, in order (a stream's chunks joined).
TEXTS: list[str] = []


class Recording:
    """A document retriever answering from a table and recording its queries."""

    def __init__(self, answers: dict[str, list[Document]] | list[Document]) -> None:
        self.answers = answers
        self.queries: list[Query] = []

    async def retrieve(self, query: Query) -> list[Document]:
        self.queries.append(query)
        if isinstance(self.answers, list):
            return self.answers
        return self.answers.get(query.text, [])


async def turn(client: ChatClient, spec_or_text, mode: str, *params: AdvisorParams):
    spec = client.prompt(spec_or_text) if isinstance(spec_or_text, str) else spec_or_text
    spec = spec.advisors(*params)
    if mode == "call":
        response = await spec.call().achat_client_response()
        TEXTS.append(response.chat_response.result.output.text)
        return response
    last, text = None, ""
    async for piece in spec.stream().achat_client_responses():
        last, text = piece, text + (piece.chat_response.result.output.text or "")
    TEXTS.append(text)
    return last


@pytest.mark.parametrize("mode", MODES)
async def test_the_one_with_the_document_retriever(mode):
    # Spring's RetrievalAugmentationAdvisorTests.theOneWithTheDocumentRetriever.
    model = ScriptedChatModel(["Felix Felicis"])
    documents = [Document("doc1", id="1"), Document("doc2", id="2")]
    retriever = Recording(documents)
    advisor = RetrievalAugmentationAdvisor(retriever)
    client = (
        ChatClient.builder(model).default_advisors(advisor).default_system("You are a wizard!")
    ).build()
    spec = client.prompt().user(
        "What would I get if I added {ingredient1} to {ingredient2}?",
        ingredient1="a pinch of Moonstone",
        ingredient2="a dash of powdered Gold",
    )
    response = await turn(client, spec, mode)
    assert TEXTS[-1] == "Felix Felicis"
    assert list(response.chat_response.metadata.get(DOCUMENT_CONTEXT)) == documents
    question = "What would I get if I added a pinch of Moonstone to a dash of powdered Gold?"
    (query,) = retriever.queries
    assert query.text == question
    (prompt,) = model.prompts
    assert prompt.messages[0].text == "You are a wizard!"
    assert prompt.messages[-1] == UserMessage(
        "Context information is below.\n\n"
        "---------------------\n"
        "doc1\ndoc2\n"
        "---------------------\n\n"
        "Given the context information and no prior knowledge, answer the query.\n\n"
        "Follow these rules:\n\n"
        "1. If the answer is not in the context, just say that you don't know.\n"
        '2. Avoid statements like "Based on the context..." or "The provided information...".\n\n'
        f"Query: {question}\n\n"
        "Answer:\n"
    )
    assert response.context[DOCUMENT_CONTEXT] == tuple(documents)


async def test_the_query_carries_the_prompts_messages_and_the_context():
    retriever = Recording([Document("x", id="1")])
    client = (
        ChatClient.builder(ScriptedChatModel(["ok"]))
        .default_system("S")
        .default_advisors(RetrievalAugmentationAdvisor(retriever))
        .build()
    )
    await turn(client, "Where?", "call", AdvisorParams.param("tenant", "acme"))
    (query,) = retriever.queries
    assert [m.text for m in query.history] == ["S", "Where?"]
    assert query.context["tenant"] == "acme"


@pytest.mark.parametrize("mode", MODES)
async def test_with_nothing_retrieved_the_model_is_asked_to_decline(mode):
    model = ScriptedChatModel(["Sorry."])
    client = (
        ChatClient.builder(model)
        .default_advisors(RetrievalAugmentationAdvisor(Recording([])))
        .build()
    )
    response = await turn(client, "What is the capital of Denmark?", mode)
    assert model.prompts[0].messages[-1].text == (
        "The user query is outside your knowledge base.\n"
        "Politely inform the user that you can't answer it.\n"
    )
    assert model.prompts[0].messages[-1].text == AUGMENTER_EMPTY_CONTEXT_TEMPLATE
    assert response.chat_response.metadata.get(DOCUMENT_CONTEXT) == ()


@pytest.mark.parametrize("mode", MODES)
async def test_an_allowed_empty_context_sends_the_question_as_it_is(mode):
    model = ScriptedChatModel(["Copenhagen."])
    advisor = RetrievalAugmentationAdvisor(
        Recording([]), query_augmenter=ContextualQueryAugmenter(allow_empty_context=True)
    )
    client = ChatClient.builder(model).default_advisors(advisor).build()
    await turn(client, "What is the capital of Denmark?", mode)
    assert model.prompts[0].messages[-1].text == "What is the capital of Denmark?"


@pytest.mark.parametrize("mode", MODES)
async def test_a_vector_store_pipeline_retrieves_the_closest_documents(mode):
    store = InMemoryVectorStore(HashingEmbeddingModel())
    await store.add(SAMPLES)
    model = ScriptedChatModel(["Patience."])
    retriever = VectorStoreDocumentRetriever(store, top_k=2, similarity_threshold=0.1)
    client = (
        ChatClient.builder(model).default_advisors(RetrievalAugmentationAdvisor(retriever)).build()
    )
    response = await turn(client, "What does sourdough bread need?", mode)
    found = response.chat_response.metadata.get(DOCUMENT_CONTEXT)
    assert found[0].id == "c" and len(found) <= 2
    assert all(d.score >= 0.1 for d in found)
    assert "Sourdough bread needs a starter" in model.prompts[0].messages[-1].text


async def test_a_filter_in_the_context_replaces_the_retrievers_for_one_request():
    store = InMemoryVectorStore(HashingEmbeddingModel())
    await store.add(SAMPLES)
    retriever = VectorStoreDocumentRetriever(
        store, top_k=10, filter_expression="genre == 'cooking'"
    )
    client = (
        ChatClient.builder(ScriptedChatModel(["a", "b", "c"]))
        .default_advisors(RetrievalAugmentationAdvisor(retriever))
        .build()
    )
    first = await turn(client, "bakery", "call")
    assert {d.id for d in first.context[DOCUMENT_CONTEXT]} == {"c"}
    text = AdvisorParams.param(RETRIEVER_FILTER_EXPRESSION, "genre == 'drama'")
    second = await turn(client, "bakery", "call", text)
    assert {d.id for d in second.context[DOCUMENT_CONTEXT]} == {"a", "d"}
    node = AdvisorParams.param(RETRIEVER_FILTER_EXPRESSION, Key("genre") == "comedy")
    third = await turn(client, "bakery", "call", node)
    assert {d.id for d in third.context[DOCUMENT_CONTEXT]} == {"b"}


async def test_the_stages_run_in_springs_order():
    # Transformers, then the expander on the transformed query, retrievals, the joiner;
    # post-processors and the augmenter see the ORIGINAL query.
    seen: list[str] = []

    class Upper:
        async def transform(self, query: Query) -> Query:
            seen.append(f"transform:{query.text}")
            return query.copy(text=query.text.upper())

    class Twice:
        async def expand(self, query: Query) -> list[Query]:
            seen.append(f"expand:{query.text}")
            return [query, query.copy(text=query.text + "!")]

    class KeepFirst:
        async def process(self, query: Query, documents):
            seen.append(f"process:{query.text}:{[d.id for d in documents]}")
            return list(documents[:1])

    retriever = Recording(
        {
            "HI": [Document("low", id="1", score=0.2), Document("both", id="2", score=0.5)],
            "HI!": [Document("both again", id="2", score=0.9), Document("high", id="3", score=0.7)],
        }
    )
    model = ScriptedChatModel(["ok"])
    advisor = RetrievalAugmentationAdvisor(
        retriever,
        query_transformers=[Upper(), Upper()],
        query_expander=Twice(),
        document_post_processors=[KeepFirst()],
        query_augmenter=ContextualQueryAugmenter(prompt_template="{query} / {context}"),
    )
    client = ChatClient.builder(model).default_advisors(advisor).build()
    response = await turn(client, "hi", "call")
    assert seen == ["transform:hi", "transform:HI", "expand:HI", "process:hi:['3', '2', '1']"]
    assert sorted(q.text for q in retriever.queries) == ["HI", "HI!"]
    # The duplicate "2" is kept as first seen (score 0.5), then all sorted by score.
    assert [d.id for d in response.context[DOCUMENT_CONTEXT]] == ["3"]
    assert model.prompts[0].messages[-1].text == "hi / high"


async def test_the_retrievals_of_the_expanded_queries_run_concurrently():
    started = 0
    both = asyncio.Event()

    class Barrier:
        async def retrieve(self, query: Query) -> list[Document]:
            nonlocal started
            started += 1
            if started == 2:
                both.set()
            await asyncio.wait_for(both.wait(), 5)
            return [Document(query.text, id=query.text)]

    class Two:
        async def expand(self, query: Query) -> list[Query]:
            return [query, query.copy(text="other")]

    advisor = RetrievalAugmentationAdvisor(Barrier(), query_expander=Two())
    client = ChatClient.builder(ScriptedChatModel(["ok"])).default_advisors(advisor).build()
    response = await turn(client, "first", "call")
    assert {d.id for d in response.context[DOCUMENT_CONTEXT]} == {"first", "other"}


async def test_transformers_and_expanders_ask_their_own_model():
    rewriter_model = ScriptedChatModel(["sourdough bread ingredients"])
    expander_model = ScriptedChatModel(["starter flour\nbread water\noven bread\n"])
    retriever = Recording([Document("d", id="1")])
    advisor = RetrievalAugmentationAdvisor(
        retriever,
        query_transformers=[RewriteQueryTransformer(ChatClient.builder(rewriter_model))],
        query_expander=MultiQueryExpander(ChatClient.builder(expander_model).build()),
    )
    model = ScriptedChatModel(["ok"])
    client = ChatClient.builder(model).default_advisors(advisor).build()
    await turn(client, "I'm baking, what goes into sourdough bread again?", "call")
    assert (
        rewriter_model.prompts[0]
        .messages[-1]
        .text.endswith(
            "Original query:\nI'm baking, what goes into sourdough bread again?\n\n"
            "Rewritten query:\n"
        )
    )
    assert "Original query: sourdough bread ingredients\n" in expander_model.prompts[0].contents
    assert sorted(q.text for q in retriever.queries) == sorted(
        ["sourdough bread ingredients", "starter flour", "bread water", "oven bread"]
    )
    assert "Query: I'm baking, what goes into sourdough bread again?" in model.prompts[0].contents


async def test_a_prompt_without_user_text_cannot_be_retrieved_for():
    client = (
        ChatClient.builder(ScriptedChatModel(["ok"]))
        .default_advisors(RetrievalAugmentationAdvisor(Recording([])))
        .build()
    )
    with pytest.raises(ValueError, match="non-blank text"):
        await client.prompt().system("only a system message").call().acontent()


def test_the_parts_are_checked_when_the_advisor_is_made():
    retriever = Recording([])
    assert RetrievalAugmentationAdvisor(retriever).order == 0
    assert RetrievalAugmentationAdvisor(retriever, order=5).order == 5
    with pytest.raises(TypeError, match="document_retriever must be a DocumentRetriever"):
        RetrievalAugmentationAdvisor(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"query_transformers\[1\]"):
        RetrievalAugmentationAdvisor(retriever, query_transformers=[_Same(), None])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="query_augmenter"):
        RetrievalAugmentationAdvisor(retriever, query_augmenter=object())  # type: ignore[arg-type]


class _Same:
    async def transform(self, query: Query) -> Query:
        return query
