"""Turn a Python function's signature into a tool's argument model and JSON schema.

Each parameter becomes a field of a pydantic model (its type hint, its default, and a
description from ``Annotated[T, "text"]``, ``Annotated[T, Field(description=...)]`` or the
docstring, in that order of preference). Parameters typed ``ToolContext`` (or
``ToolContext | None``) are filled at call time and left out of the schema. The model
validates the arguments the model wrote; :meth:`ToolSignature.bind` turns a validated
model back into the function's ``*args, **kwargs``.

This module builds; it never calls the function.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import pydantic
from pydantic.fields import FieldInfo

from ostinato._tool_contract import ToolContext
from ostinato.errors import ConfigurationError
from ostinato.tools._docstring import parse_docstring
from ostinato.tools._schema import tidy_schema

__all__ = ["ToolParameter", "ToolSignature", "inspect_tool_function"]

_ARGUMENTS_CONFIG = pydantic.ConfigDict(
    extra="ignore",  # lenient like Spring AI: unknown keys are dropped, not fatal
    protected_namespaces=(),
)


@dataclass(frozen=True, slots=True)
class ToolParameter:
    """One parameter of a tool function.

    Attributes:
        name: the parameter name (and the JSON property name).
        field: the pydantic field holding it (differs from ``name`` only for names
            pydantic reserves, such as ``_private`` or ``schema``).
        kind: positional-only, positional-or-keyword or keyword-only.
        is_context: receives the :class:`ToolContext` instead of a model argument.
    """

    name: str
    field: str
    kind: inspect._ParameterKind
    is_context: bool = False


@dataclass(frozen=True, slots=True)
class ToolSignature:
    """What a function's signature means for a tool.

    Attributes:
        arguments_model: validates the arguments (a JSON object) the model wrote.
        parameters: every parameter, in signature order.
        input_schema: the JSON schema of the arguments, with ostinato's conventions.
        summary: the first paragraph of the docstring (``""`` without one).
        is_async: the function is a coroutine function.
    """

    arguments_model: type[pydantic.BaseModel]
    parameters: tuple[ToolParameter, ...]
    input_schema: dict[str, Any]
    summary: str
    is_async: bool

    def bind(
        self, arguments: pydantic.BaseModel, context: ToolContext
    ) -> tuple[list[Any], dict[str, Any]]:
        """The ``*args, **kwargs`` to call the function with, from validated arguments."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for p in self.parameters:
            value = context if p.is_context else getattr(arguments, p.field)
            if p.kind is inspect.Parameter.POSITIONAL_ONLY:
                args.append(value)
            else:
                kwargs[p.name] = value
        return args, kwargs


def _is_tool_context(annotation: Any) -> bool:
    if annotation is ToolContext:
        return True
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _is_tool_context(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return len(members) == 1 and _is_tool_context(members[0])
    return False


def _split_annotated(annotation: Any) -> tuple[Any, str | None, bool]:
    """Remove plain-string metadata from ``Annotated``; report it and any Field description."""
    if typing.get_origin(annotation) is not Annotated:
        return annotation, None, False
    base, *metadata = typing.get_args(annotation)
    texts = [m for m in metadata if isinstance(m, str)]
    rest = [m for m in metadata if not isinstance(m, str)]
    has_field_description = any(isinstance(m, FieldInfo) and m.description for m in rest)
    if texts:
        annotation = Annotated[(base, *rest)] if rest else base
    return annotation, " ".join(t.strip() for t in texts) or None, has_field_description


def _resolve_hints(
    target: Callable[..., Any], tool_name: str, localns: Mapping[str, Any] | None
) -> dict[str, Any]:
    try:
        return typing.get_type_hints(target, localns=dict(localns or {}), include_extras=True)
    except NameError as e:
        raise ConfigurationError(
            f"cannot resolve the type hints of tool '{tool_name}': {e}\n"
            "Define the types the tool's parameters use where the function can see them "
            "(at module level, or before the function)."
        ) from e
    except TypeError:
        return {}  # not introspectable (e.g. some builtins): fall back to raw annotations


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def inspect_tool_function(
    function: Callable[..., Any],
    *,
    tool_name: str,
    localns: Mapping[str, Any] | None = None,
) -> ToolSignature:
    """Build the :class:`ToolSignature` of ``function`` (a function, bound method, partial
    or callable object).

    Raises:
        ConfigurationError: the signature cannot be a tool: ``*args``/``**kwargs``, an
            unbound method, a type pydantic cannot validate, or hints that do not resolve.
    """
    target: Callable[..., Any] = function
    if isinstance(function, functools.partial):
        target = function.func
    elif not (inspect.isfunction(function) or inspect.ismethod(function)) and callable(function):
        call = getattr(function, "__call__", None)  # noqa: B004  # a callable object's method
        if inspect.ismethod(call):
            target = call
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as e:
        raise ConfigurationError(
            f"cannot read the signature of tool '{tool_name}' ({function!r}): {e}"
        ) from e
    hints = _resolve_hints(target, tool_name, localns)
    if target is function or isinstance(function, functools.partial):
        doc_text = inspect.getdoc(target)
    else:  # a callable object: its __call__'s own docstring, else its class docstring
        doc_text = getattr(target, "__doc__", None) or inspect.getdoc(function)
    doc = parse_docstring(doc_text)

    parameters: list[ToolParameter] = []
    fields: dict[str, Any] = {}
    for index, p in enumerate(signature.parameters.values()):
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            star = "*" if p.kind is inspect.Parameter.VAR_POSITIONAL else "**"
            raise ConfigurationError(
                f"tool '{tool_name}' has parameter {star}{p.name}; a tool's parameters must "
                "be named (the model passes a JSON object). Declare each argument explicitly."
            )
        if index == 0 and p.name in ("self", "cls") and p.annotation is inspect.Parameter.empty:
            raise ConfigurationError(
                f"tool '{tool_name}' takes '{p.name}' first: it looks like a method that is "
                "not bound. Pass an instance (tool_callbacks(MyTools())), not the class or "
                "the function taken from the class."
            )
        annotation = hints.get(p.name, p.annotation)
        if annotation is inspect.Parameter.empty or isinstance(annotation, str):
            annotation = Any
        if _is_tool_context(annotation):
            parameters.append(ToolParameter(p.name, p.name, p.kind, is_context=True))
            continue
        annotation, description, has_field_description = _split_annotated(annotation)
        if description is None and not has_field_description:
            description = doc.params.get(p.name)
        field_name = p.name
        if p.name.startswith("_") or hasattr(pydantic.BaseModel, p.name):
            field_name = f"field_{index}"
        default = ... if p.default is inspect.Parameter.empty else p.default
        extra: dict[str, Any] = {}
        if field_name != p.name:
            extra["alias"] = p.name
        if description:
            extra["description"] = description
        info = pydantic.Field(default, **extra)
        fields[field_name] = (annotation, info)
        parameters.append(ToolParameter(p.name, field_name, p.kind))

    try:
        model = pydantic.create_model("ToolArguments", __config__=_ARGUMENTS_CONFIG, **fields)
        schema = tidy_schema(model.model_json_schema())
    except (pydantic.PydanticUserError, TypeError, ValueError) as e:
        raise ConfigurationError(
            f"tool '{tool_name}' has a parameter type pydantic cannot handle: {_first_line(e)}\n"
            "Use types pydantic understands (models, dataclasses, TypedDict, enums, "
            "Literal, lists, dicts, scalars), or annotate the parameter ToolContext."
        ) from e

    return ToolSignature(
        arguments_model=model,
        parameters=tuple(parameters),
        input_schema=schema,
        summary=doc.summary,
        is_async=_is_async(function, target),
    )


def _is_async(function: Callable[..., Any], target: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(target)
