"""A small, dependency-free JSON Schema validator (a subset of draft 2020-12).

It checks a model's structured output against the schema it was asked to follow and
explains each failure in one line with a JSON path (``$.items[2].name: 'x' is not of type
'integer'``), text meant to be read by the model on a retry as much as by people.

Supported keywords: ``type`` (a name or a list of names; ``integer`` accepts ``3.0``;
booleans are never numbers), ``enum``, ``const``, ``properties``, ``patternProperties``,
``additionalProperties`` (boolean or schema), ``required``, ``minProperties``,
``maxProperties``, ``items``, ``prefixItems``, ``minItems``, ``maxItems``,
``uniqueItems``, ``minimum``, ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``,
``multipleOf``, ``minLength``, ``maxLength``, ``pattern`` (Python ``re.search``),
``anyOf``, ``oneOf``, ``allOf``, ``not``, and ``$ref`` to local JSON pointers
(``#``, ``#/$defs/...``, ``#/definitions/...``). Every other keyword (``format``,
``title``, ``description``, ...) is ignored. Nullable values are written as type lists
(``["string", "null"]``).

This module does not fetch remote schemas and does not validate schemas themselves beyond
:func:`check_json_schema` (references resolve, patterns compile).

Why not ``jsonschema`` or ``fastjsonschema`` (measured against this module; CPython 3.11,
a shared 2-core machine, best of several runs):

* Verdicts on the 148 (instance, schema) pairs of our tests: ``jsonschema`` 4.26
  (Draft 2020-12) differs on 3 — ``0.3`` is refused for ``multipleOf: 0.1`` (float
  division), ``exclusiveMinimum: false`` (a draft-4 schema from older generators)
  rejects ``0``, and a ``$ref`` cycle raises ``RecursionError``; ``fastjsonschema``
  2.22 differs on 6 (no ``prefixItems``: drafts 4 to 7 only; ``format: email``
  enforced; a ``$ref`` beside ``maxLength`` ignores the sibling; the same cycle).
* Messages: the model reads them on a retry, so it needs every error with its path;
  ``fastjsonschema`` stops at the first, and ``jsonschema``'s messages carry no path
  (it is a separate attribute), so the one-line messages would be rebuilt here anyway.
* Import, after ``ostinato.advisors``: this module 31 ms, ``fastjsonschema`` 72 ms,
  ``jsonschema`` 534 ms (with ``attrs``, ``referencing``, ``rpds-py``,
  ``jsonschema-specifications``: four more distributions, one compiled).
* Speed, a 7-day forecast object against its schema: 0.8 ms here, 1.4 ms
  ``jsonschema``, 0.07 ms ``fastjsonschema`` plus 20 ms to compile each schema — once
  per model reply, which takes seconds, none of them matters.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from ostinato.advisors._json_values import (
    child_path,
    is_json_type,
    is_number,
    json_equal,
    number_keyword,
    show,
    type_list,
)

__all__ = ["check_json_schema", "validate_json_schema"]


def validate_json_schema(instance: Any, schema: Mapping[str, Any] | bool) -> list[str]:
    """Validate ``instance`` (parsed JSON) against ``schema``; return the error messages.

    An empty list means the instance is valid. Each message starts with the JSON path of
    the offending value, e.g. ``"$.age: 'x' is not of type 'integer'"``.

    Raises:
        ValueError: the schema holds a ``$ref`` that cannot be resolved (only local
            references are supported) or a ``pattern`` that is not a valid regex.
    """
    return list(_Validator(schema).errors(instance, schema, "$"))


def check_json_schema(schema: Mapping[str, Any] | bool) -> None:
    """Check that ``schema`` can be used by :func:`validate_json_schema`.

    Raises:
        ValueError: a ``$ref`` cannot be resolved or a ``pattern`` (or a
            ``patternProperties`` name) does not compile.
    """
    validator = _Validator(schema)
    for node in _schema_nodes(schema):
        ref = node.get("$ref")
        if isinstance(ref, str):
            validator.resolve(ref)
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            _compile(pattern)
        patterns = node.get("patternProperties")
        if isinstance(patterns, Mapping):
            for name in patterns:
                _compile(name)


_NAMED_SUBSCHEMAS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA = (
    "items",
    "additionalItems",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
)
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def _schema_nodes(schema: Any) -> Iterator[Mapping[str, Any]]:
    """Every object schema in ``schema``, nested ones included (data such as ``const``
    values is not entered)."""
    if not isinstance(schema, Mapping):
        return
    yield schema
    for key in _NAMED_SUBSCHEMAS:
        named = schema.get(key)
        if isinstance(named, Mapping):
            for sub in named.values():
                yield from _schema_nodes(sub)
    for key in _SUBSCHEMA:
        yield from _schema_nodes(schema.get(key))
    for key in _SUBSCHEMA_LISTS:
        subs = schema.get(key)
        if isinstance(subs, list):
            for sub in subs:
                yield from _schema_nodes(sub)


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as e:
        raise ValueError(f"JSON schema pattern {pattern!r} is not a valid regex: {e}") from e


# -- the validator --------------------------------------------------------------------------


class _Validator:
    """Walks one instance against one root schema (which ``$ref`` pointers resolve in)."""

    __slots__ = ("_active", "_root")

    def __init__(self, root: Mapping[str, Any] | bool) -> None:
        self._root = root
        # (reference, id(instance)) pairs being expanded: a $ref loop that consumes no
        # part of the instance would otherwise recurse forever.
        self._active: set[tuple[str, int]] = set()

    def resolve(self, ref: str) -> Any:
        """The subschema a local ``$ref`` points to."""
        if not ref.startswith("#"):
            raise ValueError(
                f"JSON schema $ref {ref!r} cannot be resolved: only local references "
                "('#', '#/$defs/...', '#/definitions/...') are supported"
            )
        node: Any = self._root
        pointer = unquote(ref[1:])
        if pointer == "":
            return node
        if not pointer.startswith("/"):
            raise ValueError(
                f"JSON schema $ref {ref!r} cannot be resolved: anchors are not supported, "
                "use a JSON pointer such as '#/$defs/Name'"
            )
        for raw in pointer[1:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise ValueError(
                    f"JSON schema $ref {ref!r} cannot be resolved: no {token!r} in the schema"
                )
        if not isinstance(node, Mapping | bool):
            raise ValueError(f"JSON schema $ref {ref!r} does not point to a schema")
        return node

    def errors(self, value: Any, schema: Any, path: str) -> Iterator[str]:
        """Every error of ``value`` (at ``path``) against ``schema``."""
        if schema is True or schema == {}:
            return
        if schema is False:
            yield f"{path}: {show(value)} is not allowed here (the schema is false)"
            return
        if not isinstance(schema, Mapping):
            return  # not a schema: ignored like an unknown keyword

        ref = schema.get("$ref")
        if isinstance(ref, str):
            key = (ref, id(value))
            if key not in self._active:
                self._active.add(key)
                try:
                    yield from self.errors(value, self.resolve(ref), path)
                finally:
                    self._active.discard(key)

        types = schema.get("type")
        if types is not None:
            names = [types] if isinstance(types, str) else list(types)
            if not any(is_json_type(value, n) for n in names):
                yield f"{path}: {show(value)} is not of type {type_list(names)}"
                # Keywords below assume the declared type; stop rather than pile up noise.
                return

        if "enum" in schema and isinstance(schema["enum"], list):
            options = schema["enum"]
            if not any(json_equal(value, o) for o in options):
                shown = ", ".join(show(o) for o in options)
                yield f"{path}: {show(value)} is not one of [{shown}]"
        if "const" in schema and not json_equal(value, schema["const"]):
            yield f"{path}: {show(schema['const'])} was expected, got {show(value)}"

        if is_number(value):
            yield from self._number_errors(value, schema, path)
        elif isinstance(value, str):
            yield from self._string_errors(value, schema, path)
        elif isinstance(value, list | tuple):
            yield from self._array_errors(value, schema, path)
        elif isinstance(value, Mapping):
            yield from self._object_errors(value, schema, path)

        yield from self._combinator_errors(value, schema, path)

    def _number_errors(self, value: float, schema: Mapping[str, Any], path: str) -> Iterator[str]:
        shown = show(value)
        minimum = number_keyword(schema, "minimum")
        maximum = number_keyword(schema, "maximum")
        ex_min = number_keyword(schema, "exclusiveMinimum")
        ex_max = number_keyword(schema, "exclusiveMaximum")
        # Draft 4 wrote exclusive bounds as booleans beside minimum/maximum.
        if schema.get("exclusiveMinimum") is True:
            ex_min, minimum = minimum, None
        if schema.get("exclusiveMaximum") is True:
            ex_max, maximum = maximum, None
        if minimum is not None and value < minimum:
            yield f"{path}: {shown} is less than the minimum of {show(minimum)}"
        if maximum is not None and value > maximum:
            yield f"{path}: {shown} is greater than the maximum of {show(maximum)}"
        if ex_min is not None and value <= ex_min:
            yield (
                f"{path}: {shown} is less than or equal to the exclusive minimum of {show(ex_min)}"
            )
        if ex_max is not None and value >= ex_max:
            yield (
                f"{path}: {shown} is greater than or equal to the exclusive maximum of "
                f"{show(ex_max)}"
            )
        step = number_keyword(schema, "multipleOf")
        if step is not None and step > 0:
            quotient = value / step
            # Tolerate float noise (0.3 / 0.1 == 2.9999999999999996).
            if not math.isfinite(quotient) or abs(quotient - round(quotient)) > 1e-9 * max(
                1.0, abs(quotient)
            ):
                yield f"{path}: {shown} is not a multiple of {show(step)}"

    def _string_errors(self, value: str, schema: Mapping[str, Any], path: str) -> Iterator[str]:
        shown = show(value)
        min_length = schema.get("minLength")
        max_length = schema.get("maxLength")
        if isinstance(min_length, int) and len(value) < min_length:
            yield f"{path}: {shown} is too short (minLength {min_length}, got {len(value)})"
        if isinstance(max_length, int) and len(value) > max_length:
            yield f"{path}: {shown} is too long (maxLength {max_length}, got {len(value)})"
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not _compile(pattern).search(value):
            yield f"{path}: {shown} does not match the pattern {pattern!r}"

    def _array_errors(
        self, value: Sequence[Any], schema: Mapping[str, Any], path: str
    ) -> Iterator[str]:
        count = len(value)
        min_items = schema.get("minItems")
        max_items = schema.get("maxItems")
        if isinstance(min_items, int) and count < min_items:
            yield f"{path}: expected at least {min_items} item(s), got {count}"
        if isinstance(max_items, int) and count > max_items:
            yield f"{path}: expected at most {max_items} item(s), got {count}"
        if schema.get("uniqueItems") is True:
            for j in range(1, count):
                i = next((i for i in range(j) if json_equal(value[i], value[j])), None)
                if i is not None:
                    yield f"{path}: items [{i}] and [{j}] are equal but uniqueItems is true"
                    break

        prefix = schema.get("prefixItems")
        items = schema.get("items")
        rest_schema: Any = items
        if isinstance(items, list):  # drafts before 2020-12: items as a list is prefixItems
            prefix, rest_schema = items, schema.get("additionalItems")
        prefix = prefix if isinstance(prefix, list) else []
        for i, item in enumerate(value[: len(prefix)]):
            yield from self.errors(item, prefix[i], child_path(path, i))
        if rest_schema is False and count > len(prefix):
            yield (
                f"{path}: expected at most {len(prefix)} item(s), got {count} "
                "(no items beyond the listed ones are allowed)"
            )
        elif rest_schema is not None:
            for i in range(len(prefix), count):
                yield from self.errors(value[i], rest_schema, child_path(path, i))

    def _object_errors(
        self, value: Mapping[str, Any], schema: Mapping[str, Any], path: str
    ) -> Iterator[str]:
        required = schema.get("required")
        if isinstance(required, list):
            for name in required:
                if isinstance(name, str) and name not in value:
                    yield f"{path}: {name!r} is a required property"
        min_props = schema.get("minProperties")
        max_props = schema.get("maxProperties")
        if isinstance(min_props, int) and len(value) < min_props:
            yield f"{path}: expected at least {min_props} properties, got {len(value)}"
        if isinstance(max_props, int) and len(value) > max_props:
            yield f"{path}: expected at most {max_props} properties, got {len(value)}"

        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        patterns = schema.get("patternProperties")
        patterns = patterns if isinstance(patterns, Mapping) else {}
        additional = schema.get("additionalProperties")
        unexpected: list[str] = []
        for name, item in value.items():
            matched = False
            if name in properties:
                matched = True
                yield from self.errors(item, properties[name], child_path(path, name))
            for pattern, sub in patterns.items():
                if _compile(pattern).search(name):
                    matched = True
                    yield from self.errors(item, sub, child_path(path, name))
            if matched or additional is None or additional is True:
                continue
            if additional is False:
                unexpected.append(name)
            else:
                yield from self.errors(item, additional, child_path(path, name))
        if unexpected:
            names = ", ".join(repr(n) for n in unexpected)
            verb = "was" if len(unexpected) == 1 else "were"
            yield f"{path}: additional properties are not allowed ({names} {verb} unexpected)"

    def _combinator_errors(self, value: Any, schema: Mapping[str, Any], path: str) -> Iterator[str]:
        all_of = schema.get("allOf")
        if isinstance(all_of, list):
            for sub in all_of:
                yield from self.errors(value, sub, path)

        any_of = schema.get("anyOf")
        if isinstance(any_of, list) and any_of:
            failures = [list(self.errors(value, sub, path)) for sub in any_of]
            if all(failures):
                yield (
                    f"{path}: {show(value)} is not valid under any of the anyOf schemas "
                    f"({_branches(failures)})"
                )

        one_of = schema.get("oneOf")
        if isinstance(one_of, list) and one_of:
            failures = [list(self.errors(value, sub, path)) for sub in one_of]
            passing = [i for i, errs in enumerate(failures) if not errs]
            if not passing:
                yield (
                    f"{path}: {show(value)} is not valid under any of the oneOf schemas "
                    f"({_branches(failures)})"
                )
            elif len(passing) > 1:
                which = ", ".join(str(i) for i in passing)
                yield (
                    f"{path}: {show(value)} is valid under more than one of the oneOf "
                    f"schemas (options {which}); exactly one must match"
                )

        if "not" in schema and not list(self.errors(value, schema["not"], path)):
            yield f"{path}: {show(value)} must not be valid under the 'not' schema"


def _branches(failures: Sequence[Sequence[str]]) -> str:
    """Each alternative's errors, compactly: ``option 0: ... | option 1: ...``."""
    return " | ".join(f"option {i}: {', '.join(errs)}" for i, errs in enumerate(failures))
