"""The text splitter: chunks within the size, overlapping, cut between words, ids stable."""

from __future__ import annotations

import itertools

import pytest

from ostinato.retrieval import CHUNK_INDEX, PARENT_DOCUMENT_ID, Document, TextSplitter

TEXT = " ".join(f"word{i}" for i in range(100))


def test_character_chunks_stay_within_the_size_and_overlap():
    splitter = TextSplitter(50, 12, unit="characters")
    chunks = splitter.split_text(TEXT)
    assert all(len(c) <= 50 for c in chunks)
    assert " ".join(chunks).split() != TEXT.split()  # overlapping words repeat
    assert all(c.split()[0] in p.split() for p, c in itertools.pairwise(chunks))
    words = []
    for chunk in chunks:  # every word is kept, in order
        for word in chunk.split():
            if not words or int(word[4:]) > int(words[-1][4:]):
                words.append(word)
    assert words == TEXT.split()


def test_token_chunks_count_words_and_punctuation():
    splitter = TextSplitter(10, 0)
    chunks = splitter.split_text("One, two. " * 20)
    assert len(chunks) == 8
    assert all(len(c.split()) <= 10 for c in chunks)


def test_a_custom_token_count_is_used():
    splitter = TextSplitter(4, 1, count_tokens=lambda text: len(text.split()))
    assert splitter.split_text("a b c d e f g") == ["a b c d", "d e f g"]


def test_a_word_longer_than_a_chunk_is_cut():
    assert TextSplitter(4, 0, unit="characters").split_text("abcdefghij") == ["abcd", "efgh", "ij"]


def test_blank_text_has_no_chunk():
    assert TextSplitter().split_text(" \n\t ") == []


def test_documents_split_keep_metadata_and_get_stable_ids():
    document = Document(TEXT, {"source": "notes.md"}, "doc-1")
    chunks = TextSplitter(30, 5).split(document)
    assert [c.id for c in chunks] == [f"doc-1:{i}" for i in range(len(chunks))]
    assert all(c.metadata["source"] == "notes.md" for c in chunks)
    assert [c.metadata[CHUNK_INDEX] for c in chunks] == list(range(len(chunks)))
    assert {c.metadata[PARENT_DOCUMENT_ID] for c in chunks} == {"doc-1"}
    assert TextSplitter(30, 5).split([document]) == chunks


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"chunk_size": 0}, "chunk_size"),
        ({"chunk_size": 10, "chunk_overlap": 10}, "chunk_overlap"),
        ({"chunk_size": 10, "chunk_overlap": -1}, "chunk_overlap"),
        ({"unit": "bytes"}, "unit"),
    ],
)
def test_bad_settings_are_refused(arguments, message):
    with pytest.raises(ValueError, match=message):
        TextSplitter(**arguments)
