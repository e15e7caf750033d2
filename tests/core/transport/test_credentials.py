"""``header_api_key`` / ``header_value``: a key fit for a header, or an error without it;
``split_userinfo``: a URL's password sent as a header."""

from __future__ import annotations

import base64

import pytest
from pydantic import SecretStr

from ostinato.errors import ConfigurationError
from ostinato.transport import header_api_key, header_value, split_userinfo

KEY = "sk-proj-AbC123_xyz-789"


@pytest.mark.parametrize(
    "raw", [KEY, f"{KEY}\n", f"{KEY}\r\n", f"  {KEY}\t", SecretStr(f"{KEY}\n")]
)
def test_surrounding_whitespace_is_dropped(raw):
    assert header_api_key(raw, provider="openai") == KEY


@pytest.mark.parametrize("raw", [None, "", "   ", SecretStr(""), SecretStr("\n")])
def test_no_key_is_none(raw):
    assert header_api_key(raw, provider="openai") is None


@pytest.mark.parametrize(
    ("raw", "what", "position"),
    [
        ("sk-ab\ncd", "a control character (U+000A)", 5),
        ("sk-ab cd", "a space character (U+0020)", 5),
        ("sk-ab\u00a0cd", "a space character (U+00A0)", 5),
        ("sk-ab\u2019cd", "a non-ASCII character (U+2019)", 5),
        ("sk-ab\x00", "a control character (U+0000)", 5),
    ],
)
def test_a_character_a_header_cannot_carry_is_refused_without_showing_the_key(raw, what, position):
    with pytest.raises(ConfigurationError) as caught:
        header_api_key(raw, provider="anthropic")
    message = str(caught.value)
    assert f"the anthropic API key holds {what} at position {position}" in message
    assert "sk-ab" not in message


def test_header_values_may_hold_inner_spaces():
    assert header_value(" Bearer abc ", what="the header 'x'") == "Bearer abc"
    with pytest.raises(ConfigurationError, match="the header 'x' holds a control character"):
        header_value("abc\r\nInjected: yes", what="the header 'x'")


def test_split_userinfo_moves_the_password_into_a_basic_header() -> None:
    url, header = split_userinfo("https://me:p%40ss@host:8443/v1")
    assert url == "https://host:8443/v1"
    assert header == "Basic " + base64.b64encode(b"me:p@ss").decode()
    assert split_userinfo("http://localhost:11434") == ("http://localhost:11434", None)
