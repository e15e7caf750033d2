"""Reading a request's JSON body, with errors in the API's shape."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

from ostinato_serve._problems import ApiError

__all__ = ["optional_str", "read_json_object", "required_str"]


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object.

    Raises:
        ApiError: ``400 invalid_json`` when it is not JSON, or not an object; ``413``
            when it is over the size limit (raised while reading).
    """
    raw = await request.body()
    try:
        data = json.loads(raw) if raw else None
    except ValueError as exc:
        raise ApiError(400, "invalid_json", f"the body is not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ApiError(
            400, "invalid_json", f"expected a JSON object body, got {type(data).__name__}"
        )
    return data


def required_str(data: dict[str, Any], key: str) -> str:
    """``data[key]``, a non-blank string.

    Raises:
        ApiError: ``422 invalid_request`` otherwise.
    """
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(422, "invalid_request", f"{key!r} must be a non-empty string, got {value!r}")
    return value


def optional_str(data: dict[str, Any], key: str) -> str | None:
    """``data[key]``: a non-blank string, or absent / ``null``.

    Raises:
        ApiError: ``422 invalid_request`` otherwise.
    """
    if data.get(key) is None:
        return None
    return required_str(data, key)
