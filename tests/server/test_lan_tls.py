"""`make run` on a LAN (issue 30, item 8): plain HTTP is announced with a warning
(anyone on the Wi-Fi reads tokens and PINs); with TABLEMATE_TLS_CERT / _KEY
gunicorn serves HTTPS, and the address and QR code printed are https."""

from __future__ import annotations

import json
import urllib.request

import pytest
import websocket

from conftest import AppServer, wait_for
from server import lan
from tests.server.livehelpers import socket_protocols


def announced(capsys: pytest.CaptureFixture[str], tls: bool = False, public_url: str | None = None) -> str:
    lan.announce(8000, embedded=True, tls=tls, public_url=public_url)
    return capsys.readouterr().out


def test_plain_http_is_announced_with_a_warning(capsys, monkeypatch) -> None:
    monkeypatch.setattr(lan, "lan_ip", lambda: "192.168.1.20")
    out = announced(capsys)
    assert "Tablemate is running: http://192.168.1.20:8000/" in out
    assert "Warning: plain HTTP" in out and "TABLEMATE_TLS_CERT" in out


def test_tls_is_announced_as_https_without_the_warning(capsys, monkeypatch) -> None:
    monkeypatch.setattr(lan, "lan_ip", lambda: "192.168.1.20")
    out = announced(capsys, tls=True)
    assert "Tablemate is running: https://192.168.1.20:8000/" in out
    assert "(this computer: https://localhost:8000/)" in out
    assert "Warning" not in out
    # A host name the certificate names (TABLEMATE_PUBLIC_URL) is what the phones open.
    out = announced(capsys, tls=True, public_url="https://tablemate.example.net:8000")
    assert "Tablemate is running: https://tablemate.example.net:8000/" in out
    assert "Warning" not in out
    # The QR code carries the same address: the code for it, row for row.
    assert lan.qr.terminal("https://tablemate.example.net:8000/") in out


def announcement(server: AppServer) -> str:
    wait_for(lambda: "Scan the QR code" in server.logs(), timeout=10, what="the start-up announcement")
    return server.logs()


def test_the_server_serves_https_and_wss_with_a_certificate(redis_url, certificate) -> None:
    cert, key = certificate
    server = AppServer(redis_url, {"TABLEMATE_TLS_CERT": cert, "TABLEMATE_TLS_KEY": key})
    try:
        assert server.url.startswith("https://")
        req = urllib.request.Request(server.url + "/api/tables", method="POST",
                                     data=json.dumps({"game": "toy", "name": "Host"}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10, context=server.ssl) as r:
            created = json.loads(r.read())
        assert r.status == 201
        table, token = created["table"], created["player"]["token"]
        ws = websocket.create_connection(
            f"wss://127.0.0.1:{server.port}/api/tables/{table}/ws",
            timeout=10, sslopt={"ca_certs": cert}, subprotocols=socket_protocols(token))
        try:
            assert json.loads(ws.recv())["type"] == "state"
        finally:
            ws.close()
        logs = announcement(server)
        assert "Tablemate is running: https://" in logs and f":{server.port}/" in logs
        assert "Warning: plain HTTP" not in logs
    finally:
        server.close()


def test_the_server_without_a_certificate_warns(redis_url) -> None:
    server = AppServer(redis_url)
    try:
        logs = announcement(server)
        assert "Tablemate is running: http://" in logs
        assert "Warning: plain HTTP" in logs
    finally:
        server.close()
