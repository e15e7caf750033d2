"""The app's plain endpoints against the ASGI app: info, health, the page's files, errors,
authentication, body size and CORS."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import agent, asgi_client, weather


async def test_healthz_and_info_describe_the_agent() -> None:
    app = create_app(agent(), tools=[weather], model_name="scripted:agent")
    async with asgi_client(app) as http:
        health = await http.get("/healthz")
        info = await http.get("/api/info")
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert info.status_code == 200
    body = info.json()
    assert body["name"] == "ostinato" and body["version"]
    assert body["model"] == "scripted:agent"
    assert body["tools"] == [{"name": "weather", "description": "Current weather for a city"}]
    assert body["memory"] is False and body["auth"] is False


async def test_the_model_name_defaults_to_the_model() -> None:
    async with asgi_client(create_app(agent())) as http:
        assert (await http.get("/api/info")).json()["model"] == "ScriptedChatModel"


async def test_unknown_paths_and_methods_get_the_error_shape() -> None:
    async with asgi_client(create_app(agent())) as http:
        missing = await http.get("/nope")
        wrong = await http.get("/api/turns")
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "not_found"
    assert wrong.status_code == 405
    assert wrong.json()["error"]["type"] == "method_not_allowed"


async def test_the_page_files_are_served_without_listing_or_traversal(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>page</h1>")
    (tmp_path / "app.js").write_text("console.log(1)")
    (tmp_path / "sub").mkdir()
    (tmp_path.parent / "secret.txt").write_text("no")
    app = create_app(agent(), static_dir=tmp_path)
    async with asgi_client(app) as http:
        page = await http.get("/")
        script = await http.get("/static/app.js")
        listing = await http.get("/static/")
        folder = await http.get("/static/sub")
        up = await http.get("/static/..%2Fsecret.txt")
        dotted = await http.get("/static/.hidden")
    assert page.status_code == 200 and page.text == "<h1>page</h1>"
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    for refused in (listing, folder, up, dotted):
        assert refused.status_code == 404, refused.url
        assert refused.json()["error"]["type"] == "not_found"


async def test_a_missing_page_is_a_404(tmp_path: Path) -> None:
    async with asgi_client(create_app(agent(), static_dir=tmp_path)) as http:
        response = await http.get("/")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"


TOKEN = "s3cret-token-value"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/turns"),
        ("POST", "/api/approvals/x"),
        ("GET", "/api/conversations"),
        ("GET", "/api/conversations/x"),
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ],
)
async def test_with_a_token_the_api_needs_it(method: str, path: str) -> None:
    app = create_app(agent(), settings=ServeSettings(token=TOKEN))
    async with asgi_client(app) as http:
        missing = await http.request(method, path, json={})
        wrong = await http.request(method, path, json={}, headers={"Authorization": "Bearer nope"})
        right = await http.request(
            method, path, json={}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
    for refused in (missing, wrong):
        assert refused.status_code == 401
        assert refused.json()["error"]["type"] == "unauthorized"
        assert refused.headers["www-authenticate"] == "Bearer"
        assert TOKEN not in refused.text
        # the hint names the header as it is written: the scheme word is no secret
        assert "'Authorization: Bearer <token>'" in refused.json()["error"]["message"]
    assert right.status_code != 401


async def test_with_a_token_info_health_and_page_stay_open(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("page")
    app = create_app(agent(), settings=ServeSettings(token=TOKEN), static_dir=tmp_path)
    async with asgi_client(app) as http:
        info = await http.get("/api/info")
        health = await http.get("/healthz")
        page = await http.get("/")
    assert info.status_code == 200 and info.json()["auth"] is True
    assert TOKEN not in info.text
    assert health.status_code == 200 and page.status_code == 200


async def test_a_body_over_the_limit_is_refused() -> None:
    app = create_app(agent(), settings=ServeSettings(max_body_bytes=100))
    big = {"message": "x" * 200}
    async with asgi_client(app) as http:
        announced = await http.post("/api/turns", json=big)

        async def chunks():  # no Content-Length: the limit applies while reading
            yield b'{"message": "'
            yield b"x" * 200
            yield b'"}'

        streamed = await http.post(
            "/api/turns", content=chunks(), headers={"Content-Type": "application/json"}
        )
        small = await http.post("/api/turns", json={"message": "hi"})
    for refused in (announced, streamed):
        assert refused.status_code == 413
        assert refused.json()["error"]["type"] == "request_too_large"
        assert "OSTINATO_SERVE_MAX_BODY_BYTES" in refused.json()["error"]["message"]
    assert small.status_code == 200


async def test_cors_is_off_unless_configured() -> None:
    preflight = {
        "Origin": "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    async with asgi_client(create_app(agent())) as http:
        off = await http.options("/api/turns", headers=preflight)
        plain = await http.get("/api/info", headers={"Origin": "https://app.example"})
    assert "access-control-allow-origin" not in off.headers
    assert "access-control-allow-origin" not in plain.headers
    settings = ServeSettings(cors_origins="https://app.example", token=TOKEN)
    async with asgi_client(create_app(agent(), settings=settings)) as http:
        allowed = await http.options("/api/turns", headers=preflight)
        other = await http.options(
            "/api/turns", headers={**preflight, "Origin": "https://evil.example"}
        )
        info = await http.get("/api/info", headers={"Origin": "https://app.example"})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://app.example"
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert other.status_code == 400
    assert "access-control-allow-origin" not in other.headers
    assert info.headers["access-control-allow-origin"] == "https://app.example"


async def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSTINATO_SERVE_TOKEN", TOKEN)
    monkeypatch.setenv("OSTINATO_SERVE_MAX_CONCURRENT_TURNS", "3")
    monkeypatch.setenv("OSTINATO_SERVE_CORS_ORIGINS", "https://a.example, https://b.example")
    settings = ServeSettings()
    assert settings.token_value == TOKEN
    assert settings.max_concurrent_turns == 3
    assert settings.origins == ["https://a.example", "https://b.example"]
    assert TOKEN not in repr(settings)
    async with asgi_client(create_app(agent())) as http:
        assert (await http.get("/api/info")).json()["auth"] is True


async def test_mounted_under_a_prefix_the_token_still_guards_the_api(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    (tmp_path / "index.html").write_text("page")
    inner = create_app(agent(), settings=ServeSettings(token=TOKEN), static_dir=tmp_path)
    outer = Starlette(routes=[Mount("/agent", app=inner)])
    async with asgi_client(outer) as http:
        refused = await http.get("/agent/api/conversations")
        turn = await http.post("/agent/api/turns", json={"message": "hi"})
        allowed = await http.post(
            "/agent/api/turns", json={"message": "hi"}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        info = await http.get("/agent/api/info")
        page = await http.get("/agent/")
    assert refused.status_code == 401 and turn.status_code == 401
    assert allowed.status_code == 200
    assert info.status_code == 200 and page.text == "page"
