"""``ostinato.redaction``: every credential a component sends is masked wherever it appears."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from ostinato.redaction import (
    MASK,
    Redactor,
    is_credential_name,
    mask_credentials,
    mask_url,
)

KEY = 'sk-live/"4f9a@c31'


@pytest.mark.parametrize(
    "name",
    [
        "Authorization",
        "api-key",
        "x-api-key",
        "X-Goog-Api-Key",
        "apiKey",
        "api_key",
        "X-Auth-Token",
        "access_token",
        "client_secret",
        "Cookie",
        "set-cookie",
        "X-Amz-Signature",
        "sig",
        "password",
        "Proxy-Authorization",
        "secretKey",
    ],
)
def test_credential_names(name: str) -> None:
    assert is_credential_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "content-type",
        "max_tokens",
        "keyword",
        "monkey",
        "anthropic-version",
        "author",
        "model",
        "KeyError",
        "TokenExpiredError",
        "AuthenticationException",
    ],
)
def test_names_that_are_not_credentials(name: str) -> None:
    assert not is_credential_name(name)


def test_an_exception_and_its_message_are_not_a_credential_pair() -> None:
    # What a tool raised reaches the model and the user as ``Class: message``.
    assert mask_credentials("KeyError: 3") == "KeyError: 3"
    assert mask_credentials("tool raised KeyError: 'city'") == "tool raised KeyError: 'city'"
    assert mask_credentials("KeyError: 'x' (api_key=sk-12345678)") == (
        f"KeyError: 'x' (api_key={MASK})"
    )


def test_a_redactor_masks_a_key_as_sent_percent_encoded_and_json_escaped() -> None:
    redactor = Redactor([KEY])
    text = f"{KEY} | {quote(KEY, safe='')} | {quote(KEY)} | {json.dumps(KEY)}"
    masked = redactor.mask(text)
    assert "4f9a" not in masked and masked.count(MASK) == 4


def test_the_longest_secret_is_masked_whole() -> None:
    assert Redactor(["abcd1234", "abcd12345678"]).mask("x abcd12345678 y") == f"x {MASK} y"


def test_for_request_collects_every_credential_sent() -> None:
    basic = base64.b64encode(b"me:hunter2-pw").decode()
    redactor = Redactor.for_request(
        api_key="sk-the-key",
        headers={
            "api-key": "azure-key-1",
            "X-Gateway-Token": "gw-token-2",
            "Authorization": f"Basic {basic}",
            "user-agent": "ostinato-test",
        },
        url="https://me:url-pass%2F9@host/v1?key=query-key-3&api-version=2024",
        params={"access_token": "param-token-4", "api-version": "2024-05-01"},
    )
    text = (
        "sk-the-key azure-key-1 gw-token-2 hunter2-pw url-pass/9 url-pass%2F9 "
        f"{basic} query-key-3 param-token-4 ostinato-test 2024-05-01"
    )
    assert redactor.mask(text) == f"{' '.join([MASK] * 9)} ostinato-test 2024-05-01"
    assert "sk-the-key" not in repr(redactor)


def test_short_values_are_masked_only_where_they_stand_as_credentials() -> None:
    redactor = Redactor(["401"])
    assert redactor.mask("error 401") == "error 401"
    assert redactor.mask('{"token": "401"}') == f'{{"token": "{MASK}"}}'


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ('{"api-key": "abc", "model": "m"}', f'{{"api-key": "{MASK}", "model": "m"}}'),
        ("x-api-key: abc def", f"x-api-key: {MASK} def"),
        ("Authorization: Bearer sk-123", f"Authorization: Bearer {MASK}"),
        ("sent Bearer sk-abcdefgh here", f"sent Bearer {MASK} here"),
        # a scheme word with no token after it hides nothing: it stays
        ("expected 'Authorization: Bearer <token>'", "expected 'Authorization: Bearer <token>'"),
        ("Authorization: Basic", "Authorization: Basic"),
        ("authorization=Bearer", "authorization=Bearer"),
        ("Authorization: Token", f"Authorization: {MASK}"),
        ("GET /v1?api_key=abc&n=2", f"GET /v1?api_key={MASK}&n=2"),
        ("https://user:pw@host/v1", f"https://user:{MASK}@host/v1"),
        ('{"error": "bad token=abc"}', f'{{"error": "bad token={MASK}"}}'),
        (
            '{"max_tokens": 5, "detail": "no key here"}',
            '{"max_tokens": 5, "detail": "no key here"}',
        ),
    ],
)
def test_mask_credentials(text: str, masked: str) -> None:
    assert mask_credentials(text) == masked


def test_mask_url() -> None:
    assert (
        mask_url("https://me:pw@host/v1?key=abc&api-version=1")
        == f"https://me:{MASK}@host/v1?key={MASK}&api-version=1"
    )
    assert mask_url("http://localhost:11434") == "http://localhost:11434"


@pytest.mark.parametrize(
    "text",
    [
        '{"x-api-key": "sk-cut-off-here',
        "{'token': 'sk-cut-off-here",
        '{"a": 1, "Authorization": "Bearer sk-cut-off-here',
    ],
)
def test_a_credential_the_text_cuts_off_is_masked_to_the_end(text):
    masked = mask_credentials(text)
    assert "sk-cut-off-here" not in masked
    assert masked.endswith(MASK)


def test_mask_url_masks_a_password_before_a_host_without_scheme() -> None:
    assert mask_url("gateway-user:pw/with@signs@host") == f"gateway-user:{MASK}@host"
    assert mask_url("openai:gpt-4.1-mini") == "openai:gpt-4.1-mini"
