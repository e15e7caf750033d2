from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid

import pydantic

from ostinato.tools import DONE_RESULT, tool_result_to_text


class Mood(enum.Enum):
    HAPPY = "happy"


class Level(enum.IntEnum):
    HIGH = 3


class Shade(str, enum.Enum):  # noqa: UP042  # the mixin form on purpose: str() differs
    DARK = "dark"


class Item(pydantic.BaseModel):
    name: str
    price: float


@dataclasses.dataclass
class Stock:
    item: str
    count: int
    when: datetime.date


def test_none_is_the_done_marker() -> None:
    assert DONE_RESULT == "Done"
    assert tool_result_to_text(None) == "Done"


def test_strings_are_returned_as_they_are() -> None:
    assert tool_result_to_text("sunny") == "sunny"
    assert tool_result_to_text('{"already": "json"}') == '{"already": "json"}'
    assert tool_result_to_text(Shade.DARK) == "dark"


def test_numbers_and_bools_are_json() -> None:
    assert tool_result_to_text(42) == "42"
    assert tool_result_to_text(2.5) == "2.5"
    assert tool_result_to_text(True) == "true"
    assert tool_result_to_text(Level.HIGH) == "3"


def test_containers_are_json_with_non_ascii_kept() -> None:
    assert tool_result_to_text({"city": "Zürich", "temps": [1, 2]}) == (
        '{"city": "Zürich", "temps": [1, 2]}'
    )
    assert tool_result_to_text((1, "a")) == '[1, "a"]'


def test_pydantic_models_use_model_dump_json() -> None:
    assert tool_result_to_text(Item(name="pen", price=1.5)) == '{"name":"pen","price":1.5}'


def test_dataclasses_and_nested_non_json_values() -> None:
    stock = Stock("pen", 3, datetime.date(2024, 5, 1))
    assert tool_result_to_text(stock) == '{"item": "pen", "count": 3, "when": "2024-05-01"}'
    ident = uuid.UUID(int=1)
    assert tool_result_to_text(
        {"id": ident, "mood": Mood.HAPPY, "items": [Item(name="a", price=1)]}
    ) == (f'{{"id": "{ident}", "mood": "happy", "items": [{{"name": "a", "price": 1.0}}]}}')
    assert tool_result_to_text({"s": {2, 1}}) == '{"s": [1, 2]}'


def test_enums_give_their_value() -> None:
    assert tool_result_to_text(Mood.HAPPY) == "happy"


def test_other_objects_and_unserialisable_containers_use_str() -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    assert tool_result_to_text(Thing()) == "a thing"
    assert tool_result_to_text({(1, 2): "tuple key"}) == "{(1, 2): 'tuple key'}"
