"""The contract every vector store keeps: search, filters, upserts, deletes, dimensions,
blocking faces and concurrent writers."""

from __future__ import annotations

import asyncio

import pytest

from ostinato.retrieval import (
    DimensionMismatchError,
    Document,
    FilterExpressionError,
    Key,
    SearchRequest,
    matches,
    parse_filter,
)
from ostinato.testing._embedding import HashingEmbeddingModel
from ostinato.testing.vector_store_conformance._base import (
    ResizableEmbeddingModel,
    VectorStoreConformanceBase,
)
from ostinato.testing.vector_store_conformance._samples import FILTER_CASES, SAMPLES

__all__ = ["VectorStoreContractConformance"]


class VectorStoreContractConformance(VectorStoreConformanceBase):
    """Every check of the kit."""

    async def test_an_empty_store_finds_nothing(self) -> None:
        """An empty store finds nothing."""
        async with self.opened() as store:
            assert await store.similarity_search("lighthouse") == []

    async def test_search_ranks_the_closest_first_with_scores(self) -> None:
        """Search ranks the closest first with scores."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            found = await store.similarity_search(
                SearchRequest("lighthouse keeper stairs", top_k=3)
            )
            assert found[0].id == "a"
            assert len(found) == 3
            scores = [d.score for d in found]
            assert all(s is not None and -1.0001 <= s <= 1.0001 for s in scores)
            assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]

    async def test_a_document_comes_back_whole(self) -> None:
        """A document comes back whole."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            found = {d.id: d for d in await self.everything(store)}
            assert set(found) == {d.id for d in SAMPLES}
            for original in SAMPLES:
                back = found[original.id]
                assert back.text == original.text
                assert dict(back.metadata) == dict(original.metadata)
                for key, value in original.metadata.items():
                    assert type(back.metadata[key]) is type(value), key

    async def test_the_same_text_scores_one(self) -> None:
        """The same text scores one."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            (best,) = await store.similarity_search(SearchRequest(SAMPLES[2].text, top_k=1))
            assert best.id == "c"
            assert best.score == pytest.approx(1.0, abs=1e-4)

    async def test_top_k_bounds_the_results(self) -> None:
        """Top k bounds the results."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            assert len(await store.similarity_search(SearchRequest("bakery", top_k=2))) == 2
            assert len(await store.similarity_search("bakery")) == 4  # the default top_k

    async def test_the_threshold_drops_what_is_far(self) -> None:
        """The threshold drops what is far."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            request = SearchRequest(SAMPLES[1].text, top_k=10, similarity_threshold=0.99)
            assert [d.id for d in await store.similarity_search(request)] == ["b"]

    @pytest.mark.parametrize(("text", "expected"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
    async def test_filters_select_the_documents_they_say(
        self, text: str, expected: set[str]
    ) -> None:
        """Filters select the documents they say."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            assert await self.ids(store, text) == expected
            # The expression agrees with `matches`, the evaluation in Python of ostinato.retrieval.
            expression = parse_filter(text)
            assert {d.id for d in SAMPLES if matches(expression, d.metadata)} == expected

    async def test_filters_built_in_python_agree_with_text(self) -> None:
        """Filters built in python agree with text."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            built = (Key("genre") == "drama") & ~(Key("year") < 2020)
            assert await self.ids(store, built) == {"a", "d"}  # d's year is a string
            assert await self.ids(store, Key("genre").in_(["comedy"]) | (Key("rating") > 4)) == {
                "a",
                "b",
                "c",
            }

    async def test_a_filter_that_does_not_parse_is_refused_before_searching(self) -> None:
        """A filter that does not parse is refused before searching."""
        async with self.opened() as store:
            with pytest.raises(FilterExpressionError, match="character"):
                await store.similarity_search(
                    SearchRequest("x", filter_expression="genre === 'drama'")
                )

    async def test_adding_an_id_again_replaces_the_document(self) -> None:
        """Adding an id again replaces the document."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            await store.add([Document("Completely new words here.", {"genre": "poetry"}, "a")])
            found = {d.id: d for d in await self.everything(store)}
            assert len(found) == len(SAMPLES)
            assert found["a"].text == "Completely new words here."
            assert dict(found["a"].metadata) == {"genre": "poetry"}
            assert await self.ids(store, "genre == 'drama'") == {"d"}

    async def test_repeated_ids_in_one_add_keep_the_last(self) -> None:
        """Repeated ids in one add keep the last."""
        async with self.opened() as store:
            await store.add([Document("first", {"n": 1}, "x"), Document("second", {"n": 2}, "x")])
            (only,) = await self.everything(store)
            assert (only.text, dict(only.metadata)) == ("second", {"n": 2})

    async def test_delete_removes_the_ids_and_ignores_unknown_ones(self) -> None:
        """Delete removes the ids and ignores unknown ones."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            await store.delete(["a", "c", "no-such-id"])
            assert await self.ids(store) == {"b", "d", "e"}
            await store.delete([])
            assert await self.ids(store) == {"b", "d", "e"}

    async def test_delete_by_filter_removes_what_it_selects(self) -> None:
        """Delete by filter removes what it selects."""
        async with self.opened() as store:
            await store.add(SAMPLES)
            await store.delete_by_filter("genre == 'drama' || year < 2020")
            assert await self.ids(store) == {"b", "e"}
            await store.delete_by_filter(Key("draft") == True)  # noqa: E712 - builds a filter
            assert await self.ids(store) == {"e"}

    async def test_a_vector_of_another_length_is_refused_clearly(self) -> None:
        """A vector of another length is refused clearly."""
        model = ResizableEmbeddingModel(64)
        async with self.opened(model) as store:
            await store.add(SAMPLES[:2])
            model.resize(32)
            with pytest.raises(DimensionMismatchError, match="32 dimensions, expected 64"):
                await store.add(SAMPLES[2:3])
            with pytest.raises(DimensionMismatchError, match="expected 64"):
                await store.similarity_search("bakery")
            model.resize(64)  # the store is still usable
            assert len(await self.everything(store)) == 2

    async def test_a_store_made_again_sees_what_was_stored(self) -> None:
        """A store made again sees what was stored."""
        if not self.persistent:
            pytest.skip("the store keeps nothing once closed")
        async with self.opened() as first:
            await first.add(SAMPLES)
        async with self.opened(HashingEmbeddingModel(32)) as second:
            with pytest.raises(DimensionMismatchError, match="expected 64"):
                await second.add([Document("new", {}, "z")])
        async with self.opened() as third:
            assert await self.ids(third) == {d.id for d in SAMPLES}

    async def test_blocking_faces_agree_with_the_async_ones(self) -> None:
        """Blocking faces agree with the async ones."""
        async with self.opened() as store:
            faces = store
            await asyncio.to_thread(faces.add_sync, SAMPLES)  # type: ignore[attr-defined]
            found = await asyncio.to_thread(
                faces.similarity_search_sync,  # type: ignore[attr-defined]
                SearchRequest("lighthouse keeper", top_k=2),
            )
            assert [d.id for d in found] == [
                d.id
                for d in await store.similarity_search(SearchRequest("lighthouse keeper", top_k=2))
            ]
            await asyncio.to_thread(faces.delete_sync, ["a"])  # type: ignore[attr-defined]
            await asyncio.to_thread(faces.delete_by_filter_sync, "genre == 'comedy'")  # type: ignore[attr-defined]
            assert await self.ids(store) == {"c", "d", "e"}

    async def test_concurrent_writers_lose_nothing(self) -> None:
        """Concurrent writers lose nothing."""
        async with self.opened() as store:
            batches = [
                [
                    Document(f"note {w} {i} about topic {i % 7}", {"writer": w}, f"{w}-{i}")
                    for i in range(10)
                ]
                for w in range(8)
            ]
            await asyncio.gather(*(store.add(batch) for batch in batches))
            assert len(await self.everything(store)) == 80
            for w in range(8):
                assert len(await self.ids(store, Key("writer") == w)) == 10

    async def test_concurrent_upserts_of_one_id_leave_one_whole_document(self) -> None:
        """Concurrent upserts of one id leave one whole document."""
        async with self.opened() as store:
            versions = [Document(f"version {n} text", {"n": n}, "same") for n in range(10)]
            await asyncio.gather(*(store.add([v]) for v in versions))
            (only,) = await self.everything(store)
            assert only.text == f"version {only.metadata['n']} text"
