"""The single-writer contract: what is stored comes back exactly, whole and in order."""

from __future__ import annotations

import pytest

from ostinato.messages import (
    AssistantMessage,
    Media,
    Message,
    ToolCall,
    ToolResponse,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.testing.memory_conformance._base import RepositoryConformanceBase
from ostinato.testing.memory_conformance._samples import (
    ODD_CONVERSATION_IDS,
    every_message_type,
    turn,
)

__all__ = ["ContractConformance"]


class ContractConformance(RepositoryConformanceBase):
    """Round trips, ordering, replacement, isolation, odd ids, large messages, deletion
    and listing."""

    async def test_an_unknown_conversation_is_empty(self) -> None:
        """A conversation never stored reads as empty; a new store lists nothing."""
        async with self.opened() as repository:
            assert await repository.find_by_conversation_id("never-stored") == []
            assert await repository.find_conversation_ids() == []

    async def test_every_message_type_round_trips_exactly(self) -> None:
        """System, user (with media), assistant (tool calls, reasoning, media) and tool
        messages come back equal, of the same types."""
        async with self.opened() as repository:
            messages = every_message_type()
            await repository.save_all("c", messages)
            found = await repository.find_by_conversation_id("c")
            assert found == messages
            assert [type(m) for m in found] == [type(m) for m in messages]
            assert found[1].media[0].data == bytes(range(256))  # type: ignore[union-attr]

    async def test_empty_and_absent_values_round_trip(self) -> None:
        """An absent text stays ``None`` and an empty one ``""``; empty arguments, an empty
        tool result and a streamed call's index come back as they were."""
        async with self.opened() as repository:
            messages: list[Message] = [
                AssistantMessage(None),
                AssistantMessage("", media=(Media("audio/wav", data=b"RIFF"),)),
                AssistantMessage(None, (ToolCall("call_1", "alerts", "", index=1),)),
                ToolResponseMessage((ToolResponse("call_1", "alerts", ""),)),
            ]
            await repository.save_all("c", messages)
            assert await repository.find_by_conversation_id("c") == messages

    async def test_order_is_kept(self) -> None:
        """150 messages come back in the order they were saved."""
        async with self.opened() as repository:
            messages: list[Message] = []
            for i in range(75):
                messages += turn(str(i))
            await repository.save_all("c", messages)
            assert await repository.find_by_conversation_id("c") == messages

    async def test_save_all_replaces_the_whole_conversation(self) -> None:
        """``save_all`` replaces what was stored; it never appends."""
        async with self.opened() as repository:
            await repository.save_all("c", turn("1") + turn("2"))
            await repository.save_all("c", turn("3"))
            assert await repository.find_by_conversation_id("c") == turn("3")

    async def test_saving_nothing_removes_the_conversation(self) -> None:
        """Saving an empty list removes the conversation from reads and the listing."""
        async with self.opened() as repository:
            await repository.save_all("c", turn("1"))
            await repository.save_all("c", [])
            assert await repository.find_by_conversation_id("c") == []
            assert "c" not in await repository.find_conversation_ids()

    async def test_conversations_are_isolated(self) -> None:
        """Writing or deleting one conversation leaves the others as they were."""
        async with self.opened() as repository:
            await repository.save_all("left", turn("left"))
            await repository.save_all("right", turn("right"))
            await repository.delete_by_conversation_id("left")
            assert await repository.find_by_conversation_id("left") == []
            assert await repository.find_by_conversation_id("right") == turn("right")

    async def test_odd_ids_are_kept_apart_and_listed_exactly(self) -> None:
        """Ids with key separators, SQL wildcards, quotes, Unicode, tabs or 512 characters
        are distinct and listed exactly."""
        async with self.opened() as repository:
            for conversation_id in ODD_CONVERSATION_IDS:
                await repository.save_all(conversation_id, turn(conversation_id))
            assert sorted(await repository.find_conversation_ids()) == sorted(ODD_CONVERSATION_IDS)
            for conversation_id in ODD_CONVERSATION_IDS:
                found = await repository.find_by_conversation_id(conversation_id)
                assert found == turn(conversation_id), conversation_id

    async def test_large_messages_round_trip(self) -> None:
        """A 1 MiB text and 300 kB of media survive a round trip."""
        async with self.opened() as repository:
            text = "".join(chr(0x20 + i % 0x5E) for i in range(1 << 20)) + " 🎵"
            messages: list[Message] = [
                UserMessage(
                    text, media=(Media("application/octet-stream", data=b"\xff" * 300_000),)
                ),
                AssistantMessage(text[::-1]),
            ]
            await repository.save_all("big", messages)
            assert await repository.find_by_conversation_id("big") == messages

    async def test_delete_removes_and_deleting_the_unknown_is_harmless(self) -> None:
        """Deleting removes; deleting twice, or an unknown id, is no error."""
        async with self.opened() as repository:
            await repository.save_all("c", turn("1"))
            await repository.delete_by_conversation_id("c")
            await repository.delete_by_conversation_id("c")
            await repository.delete_by_conversation_id("never-stored")
            assert await repository.find_by_conversation_id("c") == []
            assert await repository.find_conversation_ids() == []

    async def test_listing_holds_exactly_the_stored_conversations(self) -> None:
        """The listing holds the stored conversations, no more, no fewer."""
        async with self.opened() as repository:
            for name in ("b", "a", "c"):
                await repository.save_all(name, turn(name))
            await repository.delete_by_conversation_id("b")
            assert sorted(await repository.find_conversation_ids()) == ["a", "c"]

    async def test_what_is_read_is_a_copy(self) -> None:
        """Changing a saved or a returned list does not change what is stored."""
        async with self.opened() as repository:
            stored = turn("1")
            await repository.save_all("c", stored)
            stored.append(UserMessage("changed after saving"))
            found = await repository.find_by_conversation_id("c")
            found.clear()
            assert await repository.find_by_conversation_id("c") == turn("1")

    async def test_a_blank_conversation_id_is_refused(self) -> None:
        """A blank conversation id is a ``ValueError`` naming ``conversationId``."""
        async with self.opened() as repository:
            for blank in ("", "   "):
                with pytest.raises(ValueError, match="conversationId"):
                    await repository.save_all(blank, turn("1"))
                with pytest.raises(ValueError, match="conversationId"):
                    await repository.find_by_conversation_id(blank)

    async def test_the_blocking_faces_agree_with_the_async_ones(self) -> None:
        """``save_all_sync`` and the blocking reads see what the async methods see."""
        async with self.opened() as repository:
            faces = ("save_all_sync", "find_by_conversation_id_sync", "find_conversation_ids_sync")
            missing = [name for name in faces if not callable(getattr(repository, name, None))]
            assert not missing, f"{type(repository).__name__} lacks the blocking faces {missing}"
            r: object = repository
            await self.blocking(r.save_all_sync, "sync", turn("s"))  # type: ignore[attr-defined]
            assert await repository.find_by_conversation_id("sync") == turn("s")
            found = await self.blocking(r.find_by_conversation_id_sync, "sync")  # type: ignore[attr-defined]
            assert found == turn("s")
            assert await self.blocking(r.find_conversation_ids_sync) == ["sync"]  # type: ignore[attr-defined]
