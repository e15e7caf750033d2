"""Words out of tool names, descriptions and queries, for the keyword index.

Identifiers are split where people see words (``getWeatherForecast``, ``get_weather``,
``HTTPServer``), text is folded so that case and accents do not matter (``Café`` and
``cafe`` match), common English words are dropped and plural endings are trimmed. Folding
uses Unicode rules only, never the process locale: a Turkish locale must not turn ``I``
into a dotless ``ı``. Pure Python; nothing here imports more than ``re`` and
``unicodedata``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = ["ENGLISH_STOP_WORDS", "fold", "split_identifier", "stem", "tokenize"]

#: Words too common to tell tools apart (Lucene's English stop words).
ENGLISH_STOP_WORDS: Final = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
        "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
        "there", "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip

#: Words queries are full of that say nothing about which tool is meant.
_QUERY_NOISE: Final = frozenset(
    {
        "can", "could", "do", "does", "find", "help", "how", "i", "me", "my", "need",
        "please", "should", "some", "something", "tool", "tools", "want", "we", "what",
        "which", "would", "you", "your",
    }
)  # fmt: skip

_STOP: Final = ENGLISH_STOP_WORDS | _QUERY_NOISE

# Runs of letters and digits (underscores and everything else separate words).
_WORD: Final = re.compile(r"[^\W_]+")
# camelCase and PascalCase boundaries, and the end of an acronym (HTTPServer -> HTTP Server).
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_identifier(text: str) -> list[str]:
    """The words of ``text`` as written: ``"getHTTPResponse_code"`` -> get, HTTP, Response, code."""
    words: list[str] = []
    for run in _WORD.findall(text):
        words.extend(part for part in _CAMEL.split(run) if part)
    return words


def fold(word: str) -> str:
    """``word`` without case and accents, by Unicode rules alone (locale-independent)."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def stem(word: str) -> str:
    """Trim an English plural ending (Harman's S-stemmer): tools -> tool, queries -> query."""
    if len(word) <= 3 or not word.endswith("s"):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith(("us", "ss")):
        return word
    return word[:-1]


def tokenize(text: str) -> list[str]:
    """The index terms of ``text``, in order: split, folded, stop words dropped, stemmed."""
    terms: list[str] = []
    for word in split_identifier(text):
        folded = fold(word)
        for part in _WORD.findall(folded):  # folding can produce separators (e.g. "½" -> "1⁄2")
            if part not in _STOP:
                terms.append(stem(part))
    return terms
