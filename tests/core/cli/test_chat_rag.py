"""``ostinato chat --rag``: the question is searched in the index ``ostinato index``
made (the retrieval plugin's question-answer advisor on the configured store and
embedding model) and what is found goes to the model with it; clear errors without the
plugin or without an index. Scripted model, the deterministic hashing embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.cli.cli_process import run_main
from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions


@pytest.fixture
def retrieval(scripted: FakeDistributions, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The retrieval plugin installed, embedding with the hashing model into a SQLite
    index of this test's own; the index's path (not made yet)."""
    scripted.add("ostinato-retrieval", entry_points={"retrieval": "ostinato_retrieval.plugin"})
    index = tmp_path / "index.sqlite3"
    monkeypatch.setenv("OSTINATO_RETRIEVAL_EMBEDDING", "hashing")
    monkeypatch.setenv("OSTINATO_RETRIEVAL_PATH", str(index))
    return index


@pytest.mark.parametrize("stream", [True, False])
def test_chat_rag_answers_from_what_ostinato_index_stored(
    retrieval: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, stream: bool
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bread.md").write_text("Sourdough bread needs a starter, flour, water and time.\n")
    (docs / "sea.md").write_text("The lighthouse keeper watches the sea at night.\n")
    code, out, _ = run_main(capsys, "index", str(docs))
    assert code == 0 and "indexed 2 file(s)" in out

    more = () if stream else ("--no-stream",)
    code, out, err = run_main(
        capsys, "chat", "--rag", "-m", "scripted:echo", *more, "What does sourdough need?"
    )
    assert code == 0, err
    (prompt,) = scripted_provider.CREATED[-1].prompts
    sent = prompt.messages[-1].text or ""
    assert sent.startswith("What does sourdough need?\n\nContext information is below")
    assert "Sourdough bread needs a starter, flour, water and time." in sent
    assert "Sourdough bread needs a starter" in out  # the echo model repeats what it got


def test_chat_without_rag_does_not_search(
    retrieval: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(capsys, "chat", "-m", "scripted:echo", "hello")
    assert (code, out) == (0, "You said 'hello'; I see 0 earlier message(s).\n")
    assert not retrieval.exists()


def test_chat_rag_without_an_index_says_to_build_it(
    retrieval: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(capsys, "chat", "--rag", "-m", "scripted:echo", "hello")
    assert (code, out) == (2, "")
    assert err == (
        f"ostinato: error: --rag searches the index {str(retrieval)!r}, which does not exist; "
        "fix: build it first with ostinato index PATH... (the same OSTINATO_RETRIEVAL_PATH "
        "and OSTINATO_RETRIEVAL_EMBEDDING), or set OSTINATO_RETRIEVAL_PATH to the index you "
        "built\n"
    )
    assert not retrieval.exists()


def test_chat_rag_needs_the_retrieval_plugin(
    scripted: FakeDistributions, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(capsys, "chat", "--rag", "-m", "scripted:echo", "hello")
    assert (code, out) == (2, "")
    assert err == (
        "ostinato: error: --rag needs retrieval, and no plugin registers it; fix: pip install "
        "ostinato-retrieval, then index your files with ostinato index PATH... (or leave out "
        "--rag)\n"
    )
