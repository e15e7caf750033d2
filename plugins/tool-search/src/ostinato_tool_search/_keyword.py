"""``KeywordToolIndex``: BM25 ranking over tool names and descriptions, in pure Python.

Each tool is a small document: the words of its name (split at camelCase and snake_case
boundaries, counted twice, since a name says most) and of its description, folded,
without stop words, plural endings trimmed (see ``_tokens``). A query is tokenised the
same way and ranked with Okapi BM25 (``k1=1.2``, ``b=0.75``, Lucene's always-positive
IDF). Only tools sharing at least one term with the query are returned; ties keep the
order the tools were attached in. A query without a meaningful word (blank, or only stop
words such as "which tools are there?") lists the tools in their order.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Final

from ostinato.errors import ConfigurationError
from ostinato.tools import ToolDefinition
from ostinato_tool_search._index import DEFAULT_MAX_RESULTS, InMemoryToolIndex
from ostinato_tool_search._tokens import tokenize

__all__ = ["KeywordToolIndex"]

_NAME_WEIGHT: Final = 2


@dataclass(frozen=True, slots=True)
class _Corpus:
    """One session's tools, ready to rank."""

    names: tuple[str, ...]
    term_counts: tuple[Counter[str], ...]
    lengths: tuple[int, ...]
    average_length: float
    postings: dict[str, tuple[int, ...]]


class KeywordToolIndex(InMemoryToolIndex[_Corpus]):
    """Ranks tools by BM25 over their names and descriptions; no dependencies.

    Args:
        default_max_results: how many names a search returns when not told (default 10).
        k1: term-frequency saturation (default 1.2).
        b: length normalisation, 0 (none) to 1 (full) (default 0.75).
    """

    def __init__(
        self,
        *,
        default_max_results: int = DEFAULT_MAX_RESULTS,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        super().__init__(default_max_results=default_max_results)
        if not k1 >= 0:
            raise ConfigurationError(f"k1 must be >= 0, got {k1!r}")
        if not 0 <= b <= 1:
            raise ConfigurationError(f"b must lie between 0 and 1, got {b!r}")
        self._k1 = float(k1)
        self._b = float(b)

    @staticmethod
    def terms_of(tool: ToolDefinition) -> Counter[str]:
        """The weighted terms a tool is indexed under (name terms count twice)."""
        counts = Counter(tokenize(tool.description))
        for term in tokenize(tool.name):
            counts[term] += _NAME_WEIGHT
        return counts

    def _prepare(self, tools: tuple[ToolDefinition, ...]) -> _Corpus:
        counts = tuple(self.terms_of(t) for t in tools)
        lengths = tuple(sum(c.values()) for c in counts)
        postings: dict[str, list[int]] = {}
        for position, terms in enumerate(counts):
            for term in terms:
                postings.setdefault(term, []).append(position)
        return _Corpus(
            names=tuple(t.name for t in tools),
            term_counts=counts,
            lengths=lengths,
            average_length=(sum(lengths) / len(lengths)) if lengths else 0.0,
            postings={term: tuple(found) for term, found in postings.items()},
        )

    def _rank(self, corpus: _Corpus, query: str, limit: int) -> list[str]:
        terms = dict.fromkeys(tokenize(query))
        if not terms:  # blank, or nothing but stop words ("which tools are there?")
            return list(corpus.names[:limit])
        total = len(corpus.names)
        average = corpus.average_length or 1.0
        scores: dict[int, float] = {}
        for term in terms:
            found = corpus.postings.get(term, ())
            if not found:
                continue
            idf = math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            for position in found:
                tf = corpus.term_counts[position][term]
                norm = self._k1 * (1 - self._b + self._b * corpus.lengths[position] / average)
                scores[position] = scores.get(position, 0.0) + idf * tf * (self._k1 + 1) / (
                    tf + norm
                )
        ranked = sorted(scores, key=lambda position: (-scores[position], position))
        return [corpus.names[position] for position in ranked[:limit]]

    def __repr__(self) -> str:
        return (
            f"KeywordToolIndex(default_max_results={self.default_max_results}, "
            f"k1={self._k1}, b={self._b})"
        )
