"""validate_json_schema: each supported keyword, nested paths and local $ref."""

from __future__ import annotations

import pytest

from ostinato.advisors import validate_json_schema
from ostinato.advisors._json_schema import check_json_schema


def errors(instance, schema):
    return validate_json_schema(instance, schema)


# -- type ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instance", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (3, "integer"),
        (3.0, "integer"),
        (3, "number"),
        (2.5, "number"),
        ("x", "string"),
        ([1], "array"),
        ({"a": 1}, "object"),
    ],
)
def test_type_accepts_matching_values(instance, name):
    assert errors(instance, {"type": name}) == []


@pytest.mark.parametrize(
    ("instance", "name", "message"),
    [
        ("x", "integer", "$: 'x' is not of type 'integer'"),
        (2.5, "integer", "$: 2.5 is not of type 'integer'"),
        (True, "integer", "$: true is not of type 'integer'"),
        (False, "number", "$: false is not of type 'number'"),
        (1, "boolean", "$: 1 is not of type 'boolean'"),
        (None, "string", "$: null is not of type 'string'"),
        ({"a": 1}, "array", "$: {\"a\": 1} is not of type 'array'"),
        ([1, 2], "object", "$: [1, 2] is not of type 'object'"),
    ],
)
def test_type_rejects_other_values(instance, name, message):
    assert errors(instance, {"type": name}) == [message]


def test_type_lists_allow_null():
    schema = {"type": ["string", "null"]}
    assert errors(None, schema) == []
    assert errors("x", schema) == []
    assert errors(3, schema) == ["$: 3 is not of type 'string', 'null'"]


def test_a_type_mismatch_stops_further_checks_of_that_value():
    assert errors(5, {"type": "string", "minLength": 3, "pattern": "^a"}) == [
        "$: 5 is not of type 'string'"
    ]


# -- objects --------------------------------------------------------------------------------


PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


def test_valid_object():
    assert errors({"name": "John", "age": 30}, PERSON) == []


def test_property_errors_carry_the_path():
    assert errors({"name": "John", "age": "x"}, PERSON) == ["$.age: 'x' is not of type 'integer'"]


def test_required_properties():
    assert errors({"name": "John"}, PERSON) == ["$: 'age' is a required property"]
    assert errors({}, PERSON) == [
        "$: 'name' is a required property",
        "$: 'age' is a required property",
    ]


def test_additional_properties_false():
    assert errors({"name": "J", "age": 1, "x": 1}, PERSON) == [
        "$: additional properties are not allowed ('x' was unexpected)"
    ]
    assert errors({"name": "J", "age": 1, "x": 1, "y": 2}, PERSON) == [
        "$: additional properties are not allowed ('x', 'y' were unexpected)"
    ]


def test_additional_properties_absent_or_true_allow_anything():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert errors({"a": 1, "b": "anything"}, schema) == []
    assert errors({"a": 1, "b": 2}, {**schema, "additionalProperties": True}) == []


def test_additional_properties_schema_applies_to_the_extra_ones_only():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"type": "integer"},
    }
    assert errors({"a": "x", "b": 1}, schema) == []
    assert errors({"a": "x", "b": "y"}, schema) == ["$.b: 'y' is not of type 'integer'"]


def test_pattern_properties_count_as_known_for_additional_properties():
    schema = {
        "type": "object",
        "patternProperties": {"^x_": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert errors({"x_a": 1}, schema) == []
    assert errors({"x_a": "s"}, schema) == ["$.x_a: 's' is not of type 'integer'"]
    assert errors({"y": 1}, schema) == [
        "$: additional properties are not allowed ('y' was unexpected)"
    ]


def test_min_and_max_properties():
    assert errors({}, {"minProperties": 1}) == ["$: expected at least 1 properties, got 0"]
    assert errors({"a": 1, "b": 2}, {"maxProperties": 1}) == [
        "$: expected at most 1 properties, got 2"
    ]


def test_odd_property_names_are_quoted_in_paths():
    schema = {"properties": {"first name": {"type": "string"}}}
    assert errors({"first name": 1}, schema) == ["$['first name']: 1 is not of type 'string'"]


# -- arrays ---------------------------------------------------------------------------------


def test_items_apply_to_every_element_with_its_index():
    schema = {"type": "array", "items": {"type": "integer"}}
    assert errors([1, 2, 3], schema) == []
    assert errors([1, "two", 3, None], schema) == [
        "$[1]: 'two' is not of type 'integer'",
        "$[3]: null is not of type 'integer'",
    ]


def test_prefix_items_then_items():
    schema = {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": {"type": "boolean"},
    }
    assert errors(["a", 1, True, False], schema) == []
    assert errors([1, "a", "b"], schema) == [
        "$[0]: 1 is not of type 'string'",
        "$[1]: 'a' is not of type 'integer'",
        "$[2]: 'b' is not of type 'boolean'",
    ]


def test_items_false_after_prefix_items_forbids_extra_elements():
    schema = {"prefixItems": [{"type": "string"}], "items": False}
    assert errors(["a"], schema) == []
    assert errors(["a", "b"], schema) == [
        "$: expected at most 1 item(s), got 2 (no items beyond the listed ones are allowed)"
    ]


def test_shorter_arrays_than_prefix_items_are_fine():
    assert errors([], {"prefixItems": [{"type": "string"}]}) == []


def test_min_and_max_items():
    assert errors([], {"minItems": 1}) == ["$: expected at least 1 item(s), got 0"]
    assert errors([1, 2, 3], {"maxItems": 2}) == ["$: expected at most 2 item(s), got 3"]
    assert errors([1, 2], {"minItems": 2, "maxItems": 2}) == []


def test_unique_items_uses_json_equality():
    assert errors([1, 2, 3], {"uniqueItems": True}) == []
    assert errors([1, 2, 1.0], {"uniqueItems": True}) == [
        "$: items [0] and [2] are equal but uniqueItems is true"
    ]
    assert errors([1, True], {"uniqueItems": True}) == []  # true is not 1 in JSON
    assert errors([{"a": [1]}, {"a": [1]}], {"uniqueItems": True}) == [
        "$: items [0] and [1] are equal but uniqueItems is true"
    ]
    assert errors([1, 1], {"uniqueItems": False}) == []


# -- enum / const ---------------------------------------------------------------------------


def test_enum():
    schema = {"enum": ["red", "green", None]}
    assert errors("red", schema) == []
    assert errors(None, schema) == []
    assert errors("blue", schema) == ["$: 'blue' is not one of ['red', 'green', null]"]
    assert errors(True, {"enum": [1]}) == ["$: true is not one of [1]"]


def test_const():
    assert errors("circle", {"const": "circle"}) == []
    assert errors(1.0, {"const": 1}) == []
    assert errors("square", {"const": "circle"}) == ["$: 'circle' was expected, got 'square'"]
    assert errors(0, {"const": False}) == ["$: false was expected, got 0"]


# -- numbers and strings --------------------------------------------------------------------


def test_minimum_and_maximum_are_inclusive():
    schema = {"minimum": 1, "maximum": 10}
    assert errors(1, schema) == []
    assert errors(10, schema) == []
    assert errors(0, schema) == ["$: 0 is less than the minimum of 1"]
    assert errors(10.5, schema) == ["$: 10.5 is greater than the maximum of 10"]


def test_exclusive_bounds():
    schema = {"exclusiveMinimum": 0, "exclusiveMaximum": 1}
    assert errors(0.5, schema) == []
    assert errors(0, schema) == ["$: 0 is less than or equal to the exclusive minimum of 0"]
    assert errors(1, schema) == ["$: 1 is greater than or equal to the exclusive maximum of 1"]


def test_draft4_boolean_exclusive_bounds():
    assert errors(0, {"minimum": 0, "exclusiveMinimum": True}) == [
        "$: 0 is less than or equal to the exclusive minimum of 0"
    ]
    assert errors(0, {"minimum": 0, "exclusiveMinimum": False}) == []


def test_number_keywords_ignore_non_numbers():
    assert errors("5", {"minimum": 10}) == []
    assert errors(True, {"minimum": 10}) == []


def test_multiple_of_tolerates_float_noise():
    assert errors(0.3, {"multipleOf": 0.1}) == []
    assert errors(10, {"multipleOf": 5}) == []
    assert errors(7, {"multipleOf": 5}) == ["$: 7 is not a multiple of 5"]


def test_string_length_counts_characters():
    assert errors("héé", {"maxLength": 3}) == []
    assert errors("ab", {"minLength": 3}) == ["$: 'ab' is too short (minLength 3, got 2)"]
    assert errors("abcd", {"maxLength": 3}) == ["$: 'abcd' is too long (maxLength 3, got 4)"]


def test_pattern_is_searched_not_fully_matched():
    assert errors("abc123", {"pattern": "[0-9]+"}) == []
    assert errors("abc", {"pattern": "^[0-9]+$"}) == [
        "$: 'abc' does not match the pattern '^[0-9]+$'"
    ]


def test_long_values_are_shortened_in_messages():
    (message,) = errors("x" * 200, {"type": "integer"})
    assert message.startswith("$: 'xxxx")
    assert "..." in message
    assert len(message) < 120


# -- combinators --------------------------------------------------------------------------


def test_any_of():
    schema = {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}
    assert errors("x", schema) == []
    assert errors(3, schema) == []
    assert errors(-1, schema) == [
        "$: -1 is not valid under any of the anyOf schemas "
        "(option 0: $: -1 is not of type 'string' | "
        "option 1: $: -1 is less than the minimum of 0)"
    ]


def test_one_of():
    schema = {"oneOf": [{"type": "integer"}, {"type": "number"}]}
    assert errors(2.5, schema) == []
    assert errors(2, schema) == [
        "$: 2 is valid under more than one of the oneOf schemas (options 0, 1); "
        "exactly one must match"
    ]
    (message,) = errors("x", schema)
    assert message.startswith("$: 'x' is not valid under any of the oneOf schemas (option 0:")


def test_all_of_reports_each_failing_schema():
    schema = {"allOf": [{"type": "integer"}, {"minimum": 5}, {"maximum": 3}]}
    assert errors(4, schema) == [
        "$: 4 is less than the minimum of 5",
        "$: 4 is greater than the maximum of 3",
    ]


def test_not():
    schema = {"not": {"type": "string"}}
    assert errors(1, schema) == []
    assert errors("x", schema) == ["$: 'x' must not be valid under the 'not' schema"]


def test_boolean_schemas():
    assert errors(1, True) == []
    assert errors(1, {}) == []
    assert errors(1, False) == ["$: 1 is not allowed here (the schema is false)"]
    assert errors({"a": 1}, {"properties": {"a": False}}) == [
        "$.a: 1 is not allowed here (the schema is false)"
    ]


def test_unknown_keywords_are_ignored():
    schema = {"type": "string", "format": "email", "x-custom": 1, "title": "T"}
    assert errors("not an email", schema) == []


# -- nesting and $ref ---------------------------------------------------------------------


ORDER = {
    "type": "object",
    "properties": {
        "customer": {"$ref": "#/$defs/Customer"},
        "lines": {"type": "array", "items": {"$ref": "#/definitions/Line"}},
    },
    "required": ["customer", "lines"],
    "$defs": {
        "Customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": ["string", "null"]}},
            "required": ["name"],
            "additionalProperties": False,
        }
    },
    "definitions": {
        "Line": {
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
            "required": ["sku", "qty"],
        }
    },
}


def test_nested_valid_document():
    doc = {"customer": {"name": "Ann", "email": None}, "lines": [{"sku": "A", "qty": 2}]}
    assert errors(doc, ORDER) == []


def test_nested_errors_have_full_paths():
    doc = {
        "customer": {"email": 5, "vip": True},
        "lines": [{"sku": "A", "qty": 2}, {"sku": 7, "qty": 0}, {"qty": 1}],
    }
    assert errors(doc, ORDER) == [
        "$.customer: 'name' is a required property",
        "$.customer.email: 5 is not of type 'string', 'null'",
        "$.customer: additional properties are not allowed ('vip' was unexpected)",
        "$.lines[1].sku: 7 is not of type 'string'",
        "$.lines[1].qty: 0 is less than the minimum of 1",
        "$.lines[2]: 'sku' is a required property",
    ]


def test_recursive_ref():
    tree = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
            }
        },
        "$ref": "#/$defs/Node",
    }
    good = {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}
    assert errors(good, tree) == []
    bad = {"value": 1, "children": [{"value": 2, "children": [{"value": "x"}]}]}
    assert errors(bad, tree) == ["$.children[0].children[0].value: 'x' is not of type 'integer'"]


def test_ref_to_the_root_and_escaped_pointers():
    schema = {
        "type": "object",
        "properties": {"next": {"$ref": "#"}, "odd": {"$ref": "#/$defs/a~1b"}},
        "$defs": {"a/b": {"type": "integer"}},
    }
    assert errors({"next": {"next": {}}, "odd": 1}, schema) == []
    assert errors({"next": {"odd": "x"}}, schema) == ["$.next.odd: 'x' is not of type 'integer'"]


def test_ref_siblings_are_applied_too():
    schema = {"$defs": {"S": {"type": "string"}}, "$ref": "#/$defs/S", "maxLength": 2}
    assert errors("abc", schema) == ["$: 'abc' is too long (maxLength 2, got 3)"]


def test_a_ref_loop_that_consumes_nothing_terminates():
    schema = {
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
        "$ref": "#/$defs/A",
    }
    assert errors(1, schema) == []


def test_unresolvable_refs_raise():
    with pytest.raises(ValueError, match="cannot be resolved: no 'Missing'"):
        errors(1, {"$ref": "#/$defs/Missing", "$defs": {"Other": {}}})
    with pytest.raises(ValueError, match="cannot be resolved: no '\\$defs'"):
        errors(1, {"$ref": "#/$defs/Missing"})
    with pytest.raises(ValueError, match="only local references"):
        errors(1, {"$ref": "https://example.com/schema.json"})
    with pytest.raises(ValueError, match="anchors are not supported"):
        errors(1, {"$ref": "#thing"})


def test_check_json_schema_finds_bad_refs_and_patterns_anywhere():
    check_json_schema(ORDER)
    check_json_schema(True)
    with pytest.raises(ValueError, match="'#/\\$defs/Nope' cannot be resolved"):
        check_json_schema({"properties": {"a": {"items": {"$ref": "#/$defs/Nope"}}}})
    with pytest.raises(ValueError, match="not a valid regex"):
        check_json_schema({"anyOf": [{"pattern": "("}]})
    with pytest.raises(ValueError, match="not a valid regex"):
        check_json_schema({"patternProperties": {"[": {}}})
    # data is not mistaken for schemas
    check_json_schema({"const": {"$ref": "#/nowhere"}, "enum": [{"pattern": "("}]})
