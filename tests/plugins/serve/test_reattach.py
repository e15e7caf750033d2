"""A served turn's events carry ``id: <seq>``; a client that lost its connection reads
on with ``GET /api/turns/<turn_id>/events`` and ``Last-Event-ID``, each event once; bad
positions and unknown turns get clear errors at once."""

from __future__ import annotations

import re

from ostinato_serve import ServeSettings, create_app
from tests.plugins.serve.served import agent, asgi_client, read_sse


def ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^id: (\d+)$", text, re.MULTILINE)]


async def test_a_turn_read_again_after_its_last_event_id_gives_the_rest_once() -> None:
    async with asgi_client(create_app(agent())) as http:
        first = await http.post("/api/turns", json={"message": "weather in Paris?"})
        messages = read_sse(first.text)
        turn_id = messages[0][1]["turn_id"]
        seen = ids(first.text)
        assert seen == list(range(1, len(seen) + 1))
        assert [data["seq"] for kind, data in messages[1:]] == seen
        # The connection dropped after the third event: the rest, once, in order.
        url = f"/api/turns/{turn_id}/events"
        rest = await http.get(url, headers={"Last-Event-ID": "3"})
        assert rest.status_code == 200
        assert rest.headers["content-type"].startswith("text/event-stream")
        assert ids(rest.text) == seen[3:]
        again = read_sse(rest.text)
        assert again[0] == ("turn", messages[0][1])
        assert again[1:] == messages[4:]
        by_query = await http.get(url, params={"after": str(seen[-1])})
        assert ids(by_query.text) == []

        past = await http.get(url, headers={"Last-Event-ID": "999"})
        unknown = await http.get("/api/turns/turn-nope/events")
        bad = await http.get(url, headers={"Last-Event-ID": "x"})
    assert past.status_code == 416 and past.json()["error"]["type"] == "past_end"
    assert "999" in past.json()["error"]["message"]
    assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "unknown_turn"
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "invalid_position"


async def test_an_ended_turn_s_events_are_forgotten_after_their_retention() -> None:
    app = create_app(agent(), settings=ServeSettings(turn_log_seconds=0))
    async with asgi_client(app) as http:
        first = await http.post("/api/turns", json={"message": "weather in Paris?"})
        turn_id = read_sse(first.text)[0][1]["turn_id"]
        gone = await http.get(f"/api/turns/{turn_id}/events")
    assert gone.status_code == 404
