"""The pipeline's modules one by one, as Spring AI's unit tests describe them: query
transformers and the multi-query expander on a scripted model, the vector store
retriever's search requests, the concatenation joiner and the contextual augmenter."""

from __future__ import annotations

import logging

import pytest

from ostinato import ChatClient
from ostinato.messages import AssistantMessage, SystemMessage, UserMessage
from ostinato.retrieval import Document, InMemoryVectorStore, Key, SearchRequest, as_filter
from ostinato.testing import HashingEmbeddingModel, ScriptedChatModel
from ostinato_retrieval import (
    COMPRESSION_PROMPT_TEMPLATE,
    MULTI_QUERY_PROMPT_TEMPLATE,
    RETRIEVER_FILTER_EXPRESSION,
    CompressionQueryTransformer,
    ConcatenationDocumentJoiner,
    ContextualQueryAugmenter,
    MultiQueryExpander,
    Query,
    RewriteQueryTransformer,
    TranslationQueryTransformer,
    VectorStoreDocumentRetriever,
)


def client_of(*answers) -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(list(answers))
    return ChatClient.builder(model).build(), model


# Query


def test_a_query_needs_text_and_keys_a_mapping_by_it():
    with pytest.raises(ValueError, match="non-blank text"):
        Query("  ")
    query = Query("q", [UserMessage("q")], {"k": 1})
    assert query.history == (UserMessage("q"),)
    assert {query: 1}[Query("q", (UserMessage("q"),), {"k": 1})] == 1
    assert query.copy(text="r").context == {"k": 1}


# Transformers


async def test_rewrite_sends_springs_template_and_keeps_history_and_context():
    client, model = client_of("  concise query  ")
    query = Query("a long, rambling question", [UserMessage("x")], {"k": "v"})
    rewritten = await RewriteQueryTransformer(client).transform(query)
    assert model.prompts[0].messages[-1].text == (
        "Given a user query, rewrite it to provide better results when querying a vector store.\n"
        "Remove any irrelevant information, and ensure the query is concise and specific.\n\n"
        "Original query:\na long, rambling question\n\n"
        "Rewritten query:\n"
    )
    assert rewritten == query.copy(text="  concise query  ")
    client, model = client_of("q2")
    RewriteQueryTransformer(client, target_search_system="web search engine").transform_sync(query)
    assert "when querying a web search engine." in model.prompts[0].contents


@pytest.mark.parametrize("answer", ["", "   "])
async def test_an_empty_answer_leaves_the_query_unchanged(answer, caplog):
    client, _ = client_of(answer)
    query = Query("unchanged")
    with caplog.at_level(logging.WARNING, logger="ostinato.retrieval"):
        assert (
            await TranslationQueryTransformer(client, target_language="english").transform(query)
            is query
        )
    assert "left unchanged" in caplog.text


async def test_translation_names_the_target_language_twice():
    client, model = client_of("Hvad er Danmarks hovedstad?")
    transformer = TranslationQueryTransformer(client, target_language="danish")
    result = await transformer.transform(Query("What is the capital of Denmark?"))
    assert result.text == "Hvad er Danmarks hovedstad?"
    assert model.prompts[0].messages[-1].text == (
        "Given a user query, translate it to danish.\n"
        "If the query is already in danish, return it unchanged.\n"
        "If you don't know the language of the query, return it unchanged.\n"
        "Do not add explanations nor any other text.\n\n"
        "Original query: What is the capital of Denmark?\n\n"
        "Translated query:\n"
    )
    with pytest.raises(ValueError, match="target_language"):
        TranslationQueryTransformer(client, target_language=" ")


async def test_compression_writes_the_user_and_assistant_turns_of_the_history():
    client, model = client_of("What is the population of Copenhagen?")
    history = [
        SystemMessage("be brief"),
        UserMessage("What is the capital of Denmark?"),
        AssistantMessage("Copenhagen."),
        UserMessage("And its population?"),
    ]
    result = await CompressionQueryTransformer(client).transform(
        Query("And its population?", history)
    )
    assert result.text == "What is the population of Copenhagen?"
    assert model.prompts[0].messages[-1].text == COMPRESSION_PROMPT_TEMPLATE.replace(
        "{history}",
        "USER: What is the capital of Denmark?\nASSISTANT: Copenhagen.\nUSER: And its population?",
    ).replace("{query}", "And its population?")


def test_templates_must_hold_their_placeholders():
    client, _ = client_of()
    with pytest.raises(ValueError, match=r"\{target\}"):
        RewriteQueryTransformer(client, prompt_template="{query}")
    with pytest.raises(ValueError, match=r"\{history\}"):
        CompressionQueryTransformer(client, prompt_template="{query}")
    with pytest.raises(ValueError, match=r"\{number\}"):
        MultiQueryExpander(client, prompt_template="Generate {NUMBER} variations of: {query}")
    with pytest.raises(TypeError, match="ChatClient"):
        RewriteQueryTransformer(object())  # type: ignore[arg-type]


# Multi-query expander


async def test_the_expander_puts_the_original_first_then_the_variants():
    client, model = client_of("variant one\nvariant two\nvariant three\n")
    query = Query("original", [UserMessage("original")], {"k": 1})
    queries = await MultiQueryExpander(client).expand(query)
    assert [q.text for q in queries] == ["original", "variant one", "variant two", "variant three"]
    assert all(q.history == query.history and q.context == query.context for q in queries)
    assert model.prompts[0].messages[-1].text == MULTI_QUERY_PROMPT_TEMPLATE.replace(
        "{number}", "3"
    ).replace("{query}", "original")


async def test_the_expander_without_the_original_and_other_counts():
    client, _ = client_of("a\nb")
    expander = MultiQueryExpander(client, include_original=False, number_of_queries=2)
    assert [q.text for q in expander.expand_sync(Query("q"))] == ["a", "b"]
    client, _ = client_of("a\n\nc")  # three lines, one blank: counted, then dropped
    assert [q.text for q in await MultiQueryExpander(client).expand(Query("q"))] == [
        "q",
        "a",
        "c",
    ]


@pytest.mark.parametrize("answer", ["only one", "a\nb\nc\nd", ""])
async def test_a_wrong_number_of_variants_leaves_the_query_alone(answer, caplog):
    client, _ = client_of(answer)
    with caplog.at_level(logging.WARNING, logger="ostinato.retrieval"):
        assert await MultiQueryExpander(client).expand(Query("q")) == [Query("q")]
    assert "used alone" in caplog.text
    with pytest.raises(ValueError, match="positive"):
        MultiQueryExpander(client, number_of_queries=0)


# Vector store retriever


class RecordingStore(InMemoryVectorStore):
    def __init__(self) -> None:
        super().__init__(HashingEmbeddingModel())
        self.requests: list[SearchRequest] = []

    async def similarity_search(self, request):
        self.requests.append(request)
        return await super().similarity_search(request)


async def test_the_retriever_sends_its_parameters():
    store = RecordingStore()
    await store.add([Document("Rivendell is an elven outpost", {"location": "Rivendell"})])
    retriever = VectorStoreDocumentRetriever(
        store,
        similarity_threshold=0.73,
        top_k=5,
        filter_expression=Key("location") == "Rivendell",
    )
    await retriever.retrieve(Query("query"))
    (request,) = store.requests
    assert request == SearchRequest(
        "query", top_k=5, similarity_threshold=0.73, filter_expression="location == 'Rivendell'"
    )
    default = VectorStoreDocumentRetriever(store).search_request(Query("test query"))
    assert (default.top_k, default.similarity_threshold, default.filter_expression) == (
        4,
        0.0,
        None,
    )


async def test_a_filter_function_is_called_at_each_retrieval_and_the_context_wins():
    tenants = iter(["acme", "globex"])
    retriever = VectorStoreDocumentRetriever(
        RecordingStore(), filter_expression=lambda: f"tenant == '{next(tenants)}'"
    )
    assert retriever.search_request(Query("q")).filter_expression == as_filter("tenant == 'acme'")
    assert retriever.search_request(Query("q")).filter_expression == as_filter("tenant == 'globex'")
    override = Query("q", context={RETRIEVER_FILTER_EXPRESSION: "location == 'Rivendell'"})
    assert retriever.search_request(override).filter_expression == as_filter(
        "location == 'Rivendell'"
    )
    blank = Query("q", context={RETRIEVER_FILTER_EXPRESSION: " "})
    retriever = VectorStoreDocumentRetriever(RecordingStore(), filter_expression="a == 1")
    assert retriever.search_request(blank).filter_expression == as_filter("a == 1")


def test_the_retriever_refuses_bad_parameters():
    store = RecordingStore()
    with pytest.raises(ValueError, match="top_k must be greater than 0"):
        VectorStoreDocumentRetriever(store, top_k=0)
    with pytest.raises(ValueError, match=r"equal to or greater than 0\.0"):
        VectorStoreDocumentRetriever(store, similarity_threshold=-1.0)
    with pytest.raises(TypeError, match="VectorStore"):
        VectorStoreDocumentRetriever(object())  # type: ignore[arg-type]


# Joiner


async def test_the_joiner_keeps_the_first_of_duplicates_and_sorts_by_score():
    joiner = ConcatenationDocumentJoiner()
    joined = await joiner.join(
        {
            Query("query1"): [
                [Document("Content 1", id="1"), Document("Content 2", id="2")],
                [Document("Content 3", id="3")],
            ],
            Query("query2"): [[Document("Content 2 again", id="2"), Document("Content 4", id="4")]],
        }
    )
    assert [d.id for d in joined] == ["1", "2", "3", "4"]
    assert [d.text for d in joined].count("Content 2") == 1
    scored = joiner.join_sync(
        {
            Query("query1"): [
                [Document("1", id="1", score=0.81), Document("2", id="2", score=0.83)],
                [Document("3", id="3", score=None)],
            ],
            Query("query2"): [
                [Document("4", id="4", score=0.85), Document("5", id="5", score=0.77)]
            ],
        }
    )
    assert [d.id for d in scored] == ["4", "2", "1", "5", "3"]


# Augmenter


async def test_the_augmenter_with_documents_empty_context_and_custom_templates():
    query = Query("test query")
    documents = [Document("content1"), Document("content2")]
    custom = ContextualQueryAugmenter(prompt_template="Context:\n{context}\nQuery:\n{query}\n")
    assert (await custom.augment(query, documents)).text == (
        "Context:\ncontent1\ncontent2\nQuery:\ntest query\n"
    )
    assert ContextualQueryAugmenter(allow_empty_context=True).augment_sync(query, []) is query
    empty = ContextualQueryAugmenter(empty_context_prompt_template="No context available.")
    assert (await empty.augment(query, [])).text == "No context available."
    formatted = ContextualQueryAugmenter(
        prompt_template="{context}|{query}",
        document_formatter=lambda docs: ";".join(d.text.upper() for d in docs),
    )
    assert (await formatted.augment(query, documents)).text == "CONTENT1;CONTENT2|test query"
    with pytest.raises(ValueError, match=r"\{context\}"):
        ContextualQueryAugmenter(prompt_template="You are the boss. Query: {query}")
    with pytest.raises(ValueError, match=r"\{query\}"):
        ContextualQueryAugmenter(prompt_template="You are the boss. Context: {context}")
