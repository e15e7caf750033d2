"""The documents the kit stores: metadata of every kind a filter compares."""

from __future__ import annotations

from ostinato.retrieval import Document

__all__ = ["FILTER_CASES", "SAMPLES"]

#: Five documents with metadata of every kind (strings, ints, floats, booleans, missing
#: keys, a key with a space), about different subjects.
SAMPLES: tuple[Document, ...] = (
    Document(
        "The lighthouse keeper climbed the spiral stairs at dusk.",
        {"genre": "drama", "year": 2020, "rating": 4.5, "draft": False, "odd key": "x"},
        "a",
    ),
    Document(
        "A comedy about a cat who runs a bakery in Paris.",
        {"genre": "comedy", "year": 2021, "rating": 3.0, "draft": True},
        "b",
    ),
    Document(
        "Sourdough bread needs a starter, flour, water and patience.",
        {"genre": "cooking", "year": 2019, "rating": 5},
        "c",
    ),
    Document(
        "Drama at the bakery: the oven broke on the busiest morning.",
        {"genre": "drama", "year": "2021", "draft": False},
        "d",
    ),
    Document("An untagged note about lighthouses and the sea.", {}, "e"),
)

#: Filter texts and the ids of :data:`SAMPLES` each must select.
FILTER_CASES: tuple[tuple[str, set[str]], ...] = (
    ("genre == 'drama'", {"a", "d"}),
    ("genre != 'drama'", {"b", "c"}),
    ("year == 2020", {"a"}),
    ("year == 2020.0", {"a"}),
    ("year >= 2020", {"a", "b"}),
    ("year > 2020", {"b"}),
    ("year < 2020", {"c"}),
    ("year <= 2020", {"a", "c"}),
    ("year == '2021'", {"d"}),
    ("rating >= 4.5", {"a", "c"}),
    ("rating < 4", {"b"}),
    ("draft == false", {"a", "d"}),
    ("draft == true", {"b"}),
    ("draft != true", {"a", "d"}),
    ("genre in ['comedy', 'cooking']", {"b", "c"}),
    ("genre nin ['comedy', 'cooking']", {"a", "d"}),
    ("genre NOT IN ['drama']", {"b", "c"}),
    ("year in [2019, 2021]", {"b", "c"}),
    ("genre == 'drama' && year >= 2020", {"a"}),
    ("genre == 'drama' AND draft == false", {"a", "d"}),
    ("genre == 'comedy' || year < 2020", {"b", "c"}),
    ("NOT genre == 'drama'", {"b", "c", "e"}),
    ("not (genre == 'drama' or genre == 'comedy')", {"c", "e"}),
    ("!(year >= 2020)", {"c", "d", "e"}),
    ("\"odd key\" == 'x'", {"a"}),
    ("genre == 'Drama'", set()),
    ("missing == 1", set()),
    ("missing != 1", set()),
)
