from __future__ import annotations

import pytest

from ostinato.tools._docstring import ParsedDocstring, parse_docstring


def test_no_docstring_gives_nothing() -> None:
    assert parse_docstring(None) == ParsedDocstring()
    assert parse_docstring("   \n  ") == ParsedDocstring()


def test_summary_is_the_first_paragraph_joined_into_one_line() -> None:
    doc = """Get the weather
        for a city.

        Longer explanation that is not part of the summary.
        """
    assert parse_docstring(doc).summary == "Get the weather for a city."


def test_summary_stops_at_a_section_without_a_blank_line() -> None:
    doc = """Look a user up.
    Args:
        user_id: the id.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Look a user up."
    assert parsed.params == {"user_id": "the id."}


def test_a_summary_line_ending_in_a_colon_is_still_the_summary() -> None:
    assert parse_docstring("Returns the weather like this:\n\n  sunny").summary == (
        "Returns the weather like this:"
    )


def test_a_docstring_that_starts_with_a_section_has_no_summary() -> None:
    assert parse_docstring("Args:\n    x: the x").summary == ""


def test_google_args_with_types_continuations_and_other_sections() -> None:
    doc = """Book a flight.

    Args:
        origin (str): where from,
            as an IATA code.
        destination: where to.
        *passengers: ignored star names are read too.

    Returns:
        origin: not a parameter.
    """
    assert parse_docstring(doc).params == {
        "origin": "where from, as an IATA code.",
        "destination": "where to.",
        "passengers": "ignored star names are read too.",
    }


@pytest.mark.parametrize("header", ["Arguments:", "Parameters:", "Keyword Args:"])
def test_google_header_variants(header: str) -> None:
    assert parse_docstring(f"Do it.\n\n{header}\n    x: the x\n").params == {"x": "the x"}


def test_rest_params_with_types_and_continuations() -> None:
    doc = """Convert money.

    :param amount: how much,
        in cents.
    :param str currency: ISO code.
    :type currency: str
    :returns: the converted amount.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Convert money."
    assert parsed.params == {"amount": "how much, in cents.", "currency": "ISO code."}


def test_numpy_parameters_section() -> None:
    doc = """Search documents.

    Parameters
    ----------
    query : str
        What to look for,
        in plain words.
    limit : int, optional
        At most this many.

    Returns
    -------
    list
        hits
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Search documents."
    assert parsed.params == {
        "query": "What to look for, in plain words.",
        "limit": "At most this many.",
    }
