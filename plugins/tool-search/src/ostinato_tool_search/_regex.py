"""``RegexToolIndex``: the default index, as in Spring AI's tool search.

A natural-language query becomes one case-insensitive alternation of its words
(:func:`query_to_regex_pattern`); each tool is scored by where and how often the pattern
matches its name (weighted more) and its description. Lower-casing uses Python's
``str.lower``, which follows Unicode and never the process locale, so ``"GET INVENTORY"``
gives ``(?i)(get|inventory)`` under a Turkish locale too (a bug of Spring AI's regex index).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Final

from ostinato.tools import ToolDefinition
from ostinato_tool_search._index import DEFAULT_MAX_RESULTS, InMemoryToolIndex
from ostinato_tool_search._tokens import ENGLISH_STOP_WORDS

__all__ = ["MAX_PATTERN_LENGTH", "RegexToolIndex", "query_to_regex_pattern"]

#: The longest pattern a query becomes; trailing words are dropped to fit.
MAX_PATTERN_LENGTH: Final = 200

_SEPARATORS: Final = re.compile(r"[\s" + re.escape(string.punctuation) + r"]+")
_MATCH_ALL: Final = ".*"


def query_to_regex_pattern(query: str) -> str:
    """The pattern a query is searched with: ``"weather tools"`` -> ``(?i)(weather|tools)``.

    The query is lower-cased, split at whitespace and punctuation; words shorter than two
    characters and English stop words are dropped (all words are kept if that leaves
    none); each word is escaped, duplicates removed, and the alternation is cut to
    :data:`MAX_PATTERN_LENGTH` characters by dropping trailing words. A blank query gives
    ``.*``.
    """
    words = [w for w in _SEPARATORS.split(query.lower()) if w]
    kept = [w for w in words if len(w) >= 2 and w not in ENGLISH_STOP_WORDS] or words
    if not kept:
        return _MATCH_ALL
    alternatives: list[str] = []
    length = len("(?i)()")
    for word in dict.fromkeys(re.escape(w) for w in kept):
        extra = len(word) + (1 if alternatives else 0)
        if alternatives and length + extra > MAX_PATTERN_LENGTH:
            break
        alternatives.append(word)
        length += extra
    return f"(?i)({'|'.join(alternatives)})"


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    description: str


def _score(pattern: re.Pattern[str], text: str, weight: float, first_bonus: float) -> float:
    matches = list(pattern.finditer(text))
    if not matches:
        return 0.0
    return len(matches) * weight + first_bonus / (1 + 0.1 * matches[0].start())


class RegexToolIndex(InMemoryToolIndex[tuple[_Entry, ...]]):
    """Scores tools by regular-expression matches of the query's words.

    Per tool: name matches x 2 + 1 / (1 + 0.1 x position of the first name match), plus
    description matches x 1 + 0.5 / (1 + 0.1 x position of the first description match).
    Tools scoring 0 are left out; ties keep the order the tools were attached in.

    Args:
        default_max_results: how many names a search returns when not told (default 10).
    """

    def __init__(self, *, default_max_results: int = DEFAULT_MAX_RESULTS) -> None:
        super().__init__(default_max_results=default_max_results)

    def _prepare(self, tools: tuple[ToolDefinition, ...]) -> tuple[_Entry, ...]:
        return tuple(_Entry(t.name, t.description) for t in tools)

    def _rank(self, entries: tuple[_Entry, ...], query: str, limit: int) -> list[str]:
        pattern = re.compile(query_to_regex_pattern(query))
        scored: list[tuple[float, int, str]] = []
        for position, entry in enumerate(entries):
            score = _score(pattern, entry.name, 2.0, 1.0) + _score(
                pattern, entry.description, 1.0, 0.5
            )
            if score > 0:
                scored.append((-score, position, entry.name))
        scored.sort()
        return [name for _, _, name in scored[:limit]]
