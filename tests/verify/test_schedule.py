"""The tamper suite, item 1 of issue 38: a proof's public inputs come from the
game's rules (``tablemate_verify.schedule``), not from the proof. Honest games
of all three games, with undos, pass ``python -m tablemate_verify``; a proof
whose items were reordered, padded with a draw or moved to another index, and
re-derived so that it replays as it stands (``check`` passes), fails it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tablemate_verify import check
from tablemate_verify.__main__ import main
from tablemate_verify.rules import verify
from tests.verify import games


def honest(redis_url: str, game: str) -> dict[str, Any]:
    return games.honest(redis_url, game)[0]


def cli(tmp_path: Path, proof: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "proof.json"
    path.write_text(json.dumps(proof), encoding="utf-8")
    code = main([str(path)])
    return code, capsys.readouterr().out.splitlines()[-1]


@pytest.mark.parametrize("game", sorted(games.OPTIONS))
def test_honest_games_with_undos_pass(redis_url: str, game: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    proof, undone = games.honest(redis_url, game)
    assert undone > 0, "no action was undone"
    report = verify(proof)
    assert report.ok, report.first_mismatch
    scopes = [s for s in proof["scopes"] if s["secret"] is not None]
    assert scopes and report.count("ok") > len(scopes)
    inputs_ok = {line.where["scope"] for line in report.lines if line.code == "inputs_ok"}
    assert inputs_ok == {s["label"] for s in scopes}
    assert cli(tmp_path, proof, capsys)[0] == 0


def test_spent_decks_are_whole_again_in_the_schedule(redis_url: str) -> None:
    """Count Up's decks of two cards run out every two rounds: the schedule
    reshuffles them as the game does (flow.remaining)."""
    small = {"dangerZoneEnabled": True, "restrictionDeck": [[1, 2, 3], [4, 5, 6]],
             "dangerZones": [[10, 20], [30, 40]]}
    for seed in range(6):  # a game of three rounds or more (almost every one)
        proof, _ = games.play(redis_url, "countup", seed, options=small)
        rounds = [s for s in proof["scopes"] if s["secret"] and s["outcomes"]]
        if len(rounds) >= 3:
            break
    assert len(rounds) >= 3, "the decks never ran out"
    report = verify(proof)
    assert report.ok, report.first_mismatch
    # The third round's restriction draw is from the whole deck again.
    assert rounds[2]["outcomes"][0]["draws"][0]["items"] == [[1, 2, 3], [4, 5, 6]]


#: name → (game, tamper, a code among the mismatches).
TAMPERS: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str]] = {
    # items [2,1,3]: a die 1 becomes a 2 (issue 38, item 1).
    "reordered faces": ("camelup", lambda p: games.reorder(p, "leg/", -1), "inputs_mismatch"),
    "reordered pyramid": ("camelup", lambda p: games.reorder(p, "leg/", 0), "inputs_mismatch"),
    # One padding choice shifts every word after it: a grey die turned blue.
    "padding draw": ("camelup", lambda p: games.pad(p, "leg/"), "inputs_mismatch"),
    "moved index": ("camelup", lambda p: games.move(p, "leg/", 21), "index_mismatch"),
    # The first roll drawn again at the second's index: two rolls at one index.
    "moved onto another": ("camelup", lambda p: games.move(p, "leg/", 1, o=0), "index_mismatch"),
    "reordered deck": ("kingup", lambda p: games.reorder(p, "round/", 0), "inputs_mismatch"),
    "padded goal": ("kingup", lambda p: games.pad(p, "round/"), "inputs_mismatch"),
    "moved goal": ("kingup", lambda p: games.move(p, "round/", 25), "index_mismatch"),
    "reordered zones": ("countup", lambda p: games.reorder(p, "round/", -1), "inputs_mismatch"),
    "padded round": ("countup", lambda p: games.pad(p, "round/"), "inputs_mismatch"),
    "moved round": ("countup", lambda p: games.move(p, "round/", 1), "index_mismatch"),
}


@pytest.mark.parametrize("name", TAMPERS)
def test_a_proof_whose_inputs_disagree_with_the_rules_fails(redis_url: str, name: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    game, tamper, code = TAMPERS[name]
    proof = tamper(honest(redis_url, game))
    # The proof alone replays: only the rules catch it.
    assert check(proof).ok, check(proof).first_mismatch
    report = verify(proof)
    assert code in {line.code for line in report.lines if line.status == "mismatch"}, report.lines
    exit_code, last = cli(tmp_path, proof, capsys)
    assert exit_code == 1 and last.startswith("MISMATCH: "), last


def test_a_results_only_proof_checks_with_the_rules_inputs(redis_url: str) -> None:
    proof = honest(redis_url, "camelup")
    for scope in proof["scopes"]:
        for o in scope["outcomes"]:
            for d in o.get("draws", ()):
                for k in ("op", "items", "k", "start", "stop", "step"):
                    d.pop(k, None)
    report = verify(proof)
    assert report.ok, report.first_mismatch
    # A result changed in it is still caught: the rules' inputs replay to another.
    leg = next(s for s in proof["scopes"] if "/leg/" in s["label"] and s["secret"])
    draw = leg["outcomes"][0]["draws"][-1]
    draw["result"] = 1 + draw["result"] % 3
    assert verify(proof).first_mismatch.code in ("draw_mismatch", "field_mismatch")


@pytest.mark.parametrize("change", ["no starts", "other game", "foreign label"])
def test_a_scope_the_rules_cannot_place_fails(redis_url: str, change: str) -> None:
    proof = honest(redis_url, "camelup")
    if change == "no starts":
        proof["starts"] = []
    elif change == "other game":
        proof["game"] = "chess"
    else:
        scope = next(s for s in proof["scopes"] if s["secret"])
        scope["label"] = scope["label"].replace(f"t/{proof['table']}/", "t/Other/")
    # (A label is in every derivation: one changed replays to other results too.)
    assert "no_schedule" in {line.code for line in verify(proof).lines if line.status == "mismatch"}


def test_every_outcome_is_rebuilt_past_the_first_that_fails(redis_url: str) -> None:
    """An outcome that fails does not leave the rest of its scope replayed
    with the proof's own inputs."""
    proof = honest(redis_url, "camelup")
    s, _ = games.revealed(proof, "leg/")[0]
    for o in (0, 1):
        draw = proof["scopes"][s]["outcomes"][o]["draws"][-1]
        draw["items"] = draw["items"][1:] + draw["items"][:1]
    flagged = {line.where.get("index") for line in verify(proof).lines if line.code == "inputs_mismatch"}
    assert flagged == {0, 1}
