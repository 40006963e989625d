"""Behind a proxy (issue 12): only what the deployment's proxy sets is trusted."""

from __future__ import annotations

import urllib.request

import pytest

from server import create_app
from server.client import origin_ok
from tests.server.livehelpers import http

BASE = {"RATE_CREATE": 3, "RATE_JOIN": 1000, "RATE_CODE": 1000}


def make(redis_url: str, **cfg):
    return create_app({"REDIS_URL": redis_url, **BASE, **cfg})


def create(client, **headers):
    return client.post("/api/tables", json={"game": "camelup", "name": "Mina"}, headers=headers)


def test_rotating_a_client_sent_forwarded_entry_does_not_escape_the_limit(redis_url) -> None:
    client = make(redis_url, TRUST_PROXY=1, PUBLIC_URL="https://t.example").test_client()
    codes = [create(client, **{"X-Forwarded-For": f"10.9.{i}.1, 203.0.113.7"}).status_code
             for i in range(6)]
    assert codes[:3] == [201] * 3 and set(codes[3:]) == {429}
    # Another real client (the address our proxy appended) has its own budget.
    assert create(client, **{"X-Forwarded-For": "203.0.113.8"}).status_code == 201


def test_a_client_sent_fly_header_is_ignored_unless_fly_is_configured(redis_url) -> None:
    client = make(redis_url, TRUST_PROXY=1, PUBLIC_URL="https://t.example").test_client()
    codes = [create(client, **{"Fly-Client-IP": f"198.51.100.{i}"}).status_code for i in range(5)]
    assert codes.count(429) == 2
    fly = make(redis_url, TRUST_PROXY="fly", PUBLIC_URL="https://t.example").test_client()
    assert {create(fly, **{"Fly-Client-IP": f"198.51.100.{i}", "X-Forwarded-For": "1.1.1.1"}).status_code
            for i in range(10, 15)} == {201}


def test_no_proxy_trusted_means_no_header_is(redis_url) -> None:
    client = make(redis_url).test_client()
    codes = [create(client, **{"X-Forwarded-For": f"10.0.0.{i}", "Fly-Client-IP": f"10.1.0.{i}"}).status_code
             for i in range(5)]
    assert codes.count(429) == 2


def test_a_deployment_without_a_public_url_refuses_to_start(redis_url) -> None:
    with pytest.raises(RuntimeError, match="TABLEMATE_PUBLIC_URL is required"):
        make(redis_url, TRUST_PROXY="fly")
    with pytest.raises(RuntimeError, match="must look like"):
        make(redis_url, PUBLIC_URL="tablemate.example/path")


def test_join_links_and_socket_origin_use_the_public_url(redis_url) -> None:
    app = make(redis_url, TRUST_PROXY="fly", PUBLIC_URL="https://t.example")
    r = create(app.test_client(), Host="evil.example")
    assert r.json["join_url"].startswith("https://t.example/t/")
    assert r.json["qr_svg"].startswith("https://t.example/")
    for origin, ok in (("https://t.example", True), ("https://evil.example", False),
                       ("http://127.0.0.1:8000", False)):
        with app.test_request_context("/api/tables/x/ws", headers={"Origin": origin, "Host": "evil.example"}):
            assert origin_ok() is ok, origin
    # Without a public URL (a LAN game) the page's own host is all there is.
    lan = make(redis_url)
    with lan.test_request_context("/", headers={"Origin": "http://192.168.1.5:8000", "Host": "192.168.1.5:8000"}):
        assert origin_ok()


def test_csp_allows_sockets_to_this_site_only_and_hsts_over_https(redis_url) -> None:
    r = make(redis_url, TRUST_PROXY="fly", PUBLIC_URL="https://t.example").test_client().get("/healthz")
    csp = r.headers["Content-Security-Policy"]
    assert "connect-src 'self' wss://t.example;" in csp and " ws: " not in csp and "wss: " not in csp
    assert r.headers["Strict-Transport-Security"].startswith("max-age=")
    plain = make(redis_url).test_client().get("/healthz")
    assert "connect-src 'self';" in plain.headers["Content-Security-Policy"]
    assert "Strict-Transport-Security" not in plain.headers


def test_the_access_log_keeps_every_line_with_tokens_redacted(app_server_factory) -> None:
    server = app_server_factory({"TABLEMATE_ACCESS_LOG": "-"})
    status, body = http(server.url, "POST", "/api/tables", {"game": "toy", "name": "Mina"})
    token = body["player"]["token"]
    with urllib.request.urlopen(f"{server.url}/api/tables/{body['table']}?token={token}&x=1") as r:
        assert r.status == 200
    http(server.url, "GET", "/healthz")
    logs = server.logs()
    assert token not in logs
    assert "token=***" in logs and '"GET /healthz' in logs and '"POST /api/tables' in logs
