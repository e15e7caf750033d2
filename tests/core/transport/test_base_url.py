"""A base URL is refused early, with what was found (password masked) and what is expected."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.transport import check_base_url


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8080/v1",
        "https://api.example.com",
        "http://[::1]:11434",
        "https://user:pw@proxy.example/v1",
    ],
)
def test_http_and_https_urls_with_a_host_pass(url: str) -> None:
    assert check_base_url(url, variable="X") == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("not-a-url", "no scheme"),
        ("ftp://x", "the scheme 'ftp'"),
        ("http://", "names no host"),
        ("https:///v1", "names no host"),
        ("http://host:port", "not a URL"),
    ],
)
def test_other_values_name_the_variable_the_value_and_the_form(url: str, problem: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_base_url(url, variable="OSTINATO_OPENAI_BASE_URL")
    message = str(caught.value)
    assert message.startswith(f"OSTINATO_OPENAI_BASE_URL={url!r} is not a usable base URL")
    assert problem in message
    assert "expected http(s)://host[:port][/path]" in message
    assert "fix: set OSTINATO_OPENAI_BASE_URL" in message


def test_a_password_is_masked_in_the_error() -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_base_url("ftp://me:hunter2@x/v1", variable="B")
    assert "hunter2" not in str(caught.value)
    assert "'ftp://me:***@x/v1'" in str(caught.value)
