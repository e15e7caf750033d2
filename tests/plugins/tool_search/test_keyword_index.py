"""KeywordToolIndex: tokenising names and descriptions, BM25 ranking (its sessions are
checked with every index's, in test_index_sessions.py)."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools import ToolDefinition
from ostinato_tool_search import KeywordToolIndex, tokenize
from ostinato_tool_search._tokens import fold, split_identifier, stem


def tool(name: str, description: str) -> ToolDefinition:
    return ToolDefinition(name, description, '{"type":"object"}')


CATALOGUE = [
    tool("getWeatherForecast", "Weather forecast for a city over the coming days"),
    tool("send_email", "Send an email message to a recipient"),
    tool("convertCurrency", "Convert an amount of money from one currency into another"),
    tool("searchFlights", "Find flights between two airports on a date"),
    tool("HTTPStatusLookup", "Explain what an HTTP status code means"),
    tool("listCalendarEvents", "List the events in a calendar between two dates"),
]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("getWeatherForecast", ["get", "Weather", "Forecast"]),
        ("send_email", ["send", "email"]),
        ("HTTPStatusLookup", ["HTTP", "Status", "Lookup"]),
        ("get-user.v2", ["get", "user", "v2"]),
        ("utf8Decode", ["utf8", "Decode"]),
    ],
)
def test_identifiers_split_where_people_see_words(text, words):
    assert split_identifier(text) == words


def test_folding_drops_case_and_accents_whatever_the_locale():
    assert fold("Café") == "cafe"
    assert fold("STRASSE") == fold("straße") == "strasse"
    assert fold("INVENTORY") == "inventory"  # never a dotless ı


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("tools", "tool"),
        ("queries", "query"),
        ("boxes", "boxe"),
        ("status", "status"),
        ("class", "class"),
        ("bus", "bus"),
    ],
)
def test_plural_endings_are_trimmed(word, stemmed):
    assert stem(word) == stemmed


def test_tokenize_drops_stop_words_and_query_noise():
    assert tokenize("Find the weather forecasts for Paris") == ["weather", "forecast", "pari"]
    assert tokenize("which tools can you use?") == ["use"]
    assert tokenize("the of") == []


async def ranked(query: str, max_results: int | None = None) -> list[str]:
    index = KeywordToolIndex()
    await index.index_tools("s", CATALOGUE)
    return await index.search("s", query, max_results)


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("weather forecast", "getWeatherForecast"),
        ("what will the weather be like tomorrow in Oslo", "getWeatherForecast"),
        ("send an e-mail", "send_email"),
        ("email", "send_email"),
        ("exchange euros to dollars currency", "convertCurrency"),
        ("flights to Rome", "searchFlights"),
        ("http status", "HTTPStatusLookup"),
        ("calendar events", "listCalendarEvents"),
        ("send_email", "send_email"),
        ("CONVERT CURRENCY", "convertCurrency"),
    ],
)
async def test_the_right_tool_ranks_first(query, best):
    assert (await ranked(query))[0] == best


async def test_only_tools_sharing_a_term_are_returned():
    assert await ranked("astronomy telescope") == []
    assert await ranked("dates") == ["searchFlights", "listCalendarEvents"]


async def test_name_matches_outrank_description_matches():
    index = KeywordToolIndex()
    await index.index_tools(
        "s", [tool("mailer", "Deliver weather reports"), tool("weather", "Current conditions")]
    )
    assert await index.search("s", "weather") == ["weather", "mailer"]


async def test_max_results_limits_and_a_blank_query_lists_in_order():
    assert await ranked("two", 1) == ["searchFlights"]
    assert await ranked("", 2) == ["getWeatherForecast", "send_email"]
    index = KeywordToolIndex(default_max_results=3)
    await index.index_tools("s", CATALOGUE)
    assert len(await index.search("s", "")) == 3


async def test_a_query_without_a_meaningful_word_lists_tools_in_order():
    assert await ranked("which tools are there?", 3) == [t.name for t in CATALOGUE[:3]]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"default_max_results": 0}, "default_max_results must be a positive int"),
        ({"k1": -1}, "k1 must be >= 0"),
        ({"b": 2}, "b must lie between 0 and 1"),
    ],
)
def test_bad_parameters_are_refused(arguments, message):
    with pytest.raises(ConfigurationError, match=message):
        KeywordToolIndex(**arguments)


async def test_a_bad_max_results_is_refused():
    with pytest.raises(ConfigurationError, match="max_results"):
        await KeywordToolIndex().search("s", "q", 0)
