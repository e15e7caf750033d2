"""The text form of filter expressions (Spring AI's filter language), parsed.

Grammar, keywords in either case::

    expression  := or
    or          := and (("||" | "OR") and)*
    and         := unary (("&&" | "AND") unary)*
    unary       := ("NOT" | "!") unary | "(" expression ")" | comparison
    comparison  := key ("==" | "!=" | "<" | "<=" | ">" | ">=") value
                 | key ("IN" | "NIN" | "NOT IN") "[" value ("," value)* "]"
    key         := identifier (letters, digits, "_", ".") | "double-quoted" | `back-quoted`
    value       := 'string' | "string" | number | true | false
"""

from __future__ import annotations

import re
from typing import Final

from ostinato.retrieval._errors import FilterExpressionError
from ostinato.retrieval._filter import And, Comparison, Filter, Not, Or, Scalar

__all__ = ["as_filter", "parse_filter"]

_TOKEN: Final = re.compile(
    r"""\s*(?:
      (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    | (?P<backquoted>`[^`]*`)
    | (?P<number>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
    | (?P<op>==|!=|<=|>=|<|>|&&|\|\||!|\(|\)|\[|\]|,)
    | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
    )""",
    re.VERBOSE,
)
_COMPARE: Final = {"==", "!=", "<", "<=", ">", ">="}


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                self.fail(position, "an unexpected character")
            assert match is not None
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            position = match.end()
        self.index = 0

    def fail(self, position: int, what: str) -> None:
        raise FilterExpressionError(
            f"filter expression {self.text!r}: {what} at character {position + 1}\n"
            "expected e.g. \"genre == 'drama' && year >= 2020\" or \"tag in ['a', 'b']\""
        )

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def keyword(self, *words: str) -> bool:
        token = self.peek()
        if token is not None and token[0] in ("word", "op") and token[1].upper() in words:
            self.index += 1
            return True
        return False

    def expect(self, symbol: str) -> None:
        if not self.keyword(symbol):
            token = self.peek()
            where = len(self.text) if token is None else token[2]
            found = "the end" if token is None else repr(token[1])
            self.fail(where, f"{found} where {symbol!r} was expected")

    def parse(self) -> Filter:
        if not self.tokens:
            raise FilterExpressionError(
                "the filter expression is empty; give one (e.g. \"genre == 'drama'\") or None"
            )
        result = self.disjunction()
        token = self.peek()
        if token is not None:
            self.fail(token[2], f"{token[1]!r} after a complete expression")
        return result

    def disjunction(self) -> Filter:
        node = self.conjunction()
        while self.keyword("||", "OR"):
            node = Or(node, self.conjunction())
        return node

    def conjunction(self) -> Filter:
        node = self.unary()
        while self.keyword("&&", "AND"):
            node = And(node, self.unary())
        return node

    def unary(self) -> Filter:
        if self.keyword("!", "NOT"):
            return Not(self.unary())
        if self.keyword("("):
            node = self.disjunction()
            self.expect(")")
            return node
        return self.comparison()

    def comparison(self) -> Filter:
        token = self.peek()
        if token is None:
            self.fail(len(self.text), "the end where a metadata key was expected")
        assert token is not None
        kind, text, position = token
        if kind == "word" and text.upper() not in ("AND", "OR", "NOT", "IN", "NIN"):
            key = text
        elif kind in ("string", "backquoted"):
            key = _unquote(text)
        else:
            self.fail(position, f"{text!r} where a metadata key was expected")
        self.index += 1
        operator = self.peek()
        if operator is not None and operator[0] == "op" and operator[1] in _COMPARE:
            self.index += 1
            return Comparison(key, operator[1], self.value())  # type: ignore[arg-type]
        if self.keyword("IN"):
            return Comparison(key, "in", self.values())
        if self.keyword("NIN"):
            return Comparison(key, "nin", self.values())
        if self.keyword("NOT"):
            self.expect("IN")
            return Comparison(key, "nin", self.values())
        where = len(self.text) if operator is None else operator[2]
        self.fail(where, f"no comparison operator after {key!r}")
        raise AssertionError  # unreachable: fail raises

    def values(self) -> tuple[Scalar, ...]:
        self.expect("[")
        values = [self.value()]
        while self.keyword(","):
            values.append(self.value())
        self.expect("]")
        return tuple(values)

    def value(self) -> Scalar:
        token = self.peek()
        if token is None:
            self.fail(len(self.text), "the end where a value was expected")
        assert token is not None
        kind, text, position = token
        self.index += 1
        if kind == "string":
            return _unquote(text)
        if kind == "number":
            number = float(text)
            return int(text) if re.fullmatch(r"[-+]?\d+", text) else number
        if kind == "word" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        self.fail(
            position, f"{text!r} where a value ('text', a number, true or false) was expected"
        )
        raise AssertionError  # unreachable: fail raises


def parse_filter(text: str) -> Filter:
    """The filter expression ``text`` writes (Spring AI's filter language).

    Raises:
        FilterExpressionError: ``text`` does not parse; the message says where and what
            was expected.
    """
    if not isinstance(text, str):
        raise FilterExpressionError(f"a filter expression is a str, got {type(text).__name__}")
    return _Parser(text).parse()


def as_filter(expression: Filter | str | None) -> Filter | None:
    """``expression`` as a filter node: text parsed, a node or ``None`` as it is."""
    if expression is None or isinstance(expression, Comparison | And | Or | Not):
        return expression
    if isinstance(expression, str):
        return parse_filter(expression)
    raise FilterExpressionError(
        f"a filter expression is a str or a filter node (Key('a') == 1), "
        f"got {type(expression).__name__}"
    )
