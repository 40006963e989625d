"""No scope secret, salt or sealed value reaches anyone before its reveal
(issue 31): whole random games of every game over the HTTP API, every phone
anchoring its chain and answering each draw as the app does, the host undoing now and then. After every action,
each secret the table still keeps (``fair`` in the stored document) is looked
for in every seat's and the spectator's snapshot, the action's events, the
history in both languages, the analysis and the proof; and the proof shows an
open scope's outcomes without their draws, a sealed choice without its value."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from server.model import TableDoc
from server.service import atrest
from tests.server.conftest import Phone
from tests.server.service.test_fairness import real_random_client, send, services
from tests.verify.games import started

__all__ = ["real_random_client"]  # the fixture, used by name

#: Options under which each game draws and seals during play.
OPTIONS = {"camelup": {}, "kingup": {"goalCardMode": "deal"}, "countup": {"dangerZoneEnabled": True}}


def kept_secrets(doc: TableDoc) -> list[str]:
    """What the table keeps secret now: open scopes' secrets, unrevealed seals'
    salts and values (a value as its canonical JSON, as it would show)."""
    fair = doc.get("fair")
    if fair is None:
        return []
    out = [s["secret"] for s in fair["scopes"]]
    for x in fair["seals"]:
        salt = _opened(doc, x)["salt"]
        if salt is not None:  # None: a seal made on a phone, not opened (the server has no salt)
            out.append(salt)
    return out


def _opened(doc: TableDoc, seal: Any) -> Any:
    """A seal record's salt and value, opened if kept encrypted at rest."""
    if "at_rest" in seal:
        return atrest.unseal(seal["at_rest"], doc["id"], f"seal/{seal['label']}")
    return seal


def sealed_values(doc: TableDoc) -> list[Any]:
    fair = doc.get("fair")
    return [_opened(doc, x)["value"] for x in fair["seals"]] if fair else []


def published(client: Any, phones: list[Phone]) -> dict[str, str]:
    """Every text the table publishes now, by where it came from."""
    t = phones[0].table
    out = {f"snapshot {p.id}": p.get().get_data(as_text=True) for p in phones}
    out["snapshot spectator"] = client.get(f"/api/tables/{t}").get_data(as_text=True)
    # The history's values, whatever language a phone words them in.
    out["history"] = client.get(f"/api/tables/{t}/history").get_data(as_text=True)
    out["analysis"] = phones[0].client.get(f"/api/tables/{t}/analysis", headers=phones[0].auth).get_data(as_text=True)
    out["proof"] = client.get(f"/api/tables/{t}/proof").get_data(as_text=True)
    return out


@pytest.mark.parametrize("game", sorted(OPTIONS))
@pytest.mark.parametrize("seed", range(2))
def test_no_secret_salt_or_sealed_value_is_published_before_its_reveal(real_random_client, game: str,
                                                                       seed: int) -> None:
    app, client = real_random_client
    rng = random.Random(seed)
    # Every phone anchors its chain and answers every draw, as the app does.
    phones, chains = started(app, client, game, OPTIONS[game], rng)
    host = phones[0]
    svc = services(app)
    checked = 0
    sealed_seen = 0
    for step in range(500):
        move = chains.move(rng)
        if move is None:
            break
        r = send(*move)
        events = json.dumps(r.json) if r.status_code == 200 else ""
        chains.answer()
        if r.status_code == 200 and rng.random() < 0.15:
            u = host.act("undo")
            events += json.dumps(u.json)
        doc = svc.store.load(host.table)
        secrets = kept_secrets(doc)
        texts = published(client, phones)
        texts["events"] = events
        for where, text in texts.items():
            for s in secrets:
                assert s not in text, f"{game}, step {step}: a kept secret is in the {where}"
        proof = json.loads(texts["proof"])
        for scope in proof["scopes"]:
            if scope["secret"] is None:
                assert all(set(o) <= {"index", "seeds", "v", "links"} for o in scope["outcomes"]), scope
        for x in proof["sealed"]:
            if x["salt"] is None:
                assert "value" not in x
        sealed_seen += len(sealed_values(doc))
        checked += len(secrets)
        if doc["status"] == "over":
            break
    assert checked > 0
    if game != "camelup":
        assert sealed_seen > 0, "no choice was ever sealed"
