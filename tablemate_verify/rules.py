"""The check with the game's rules (docs/fairness.md, "The draw schedule"):
every revealed outcome's draws and public inputs rebuilt from the game's
start and the results drawn before it (``schedule``), then replayed with
those inputs, never the proof's own. What ``python -m tablemate_verify``
runs; ``proof.check`` alone checks a proof as it stands (what the phones
do until they have the schedule too).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from tablemate_verify.proof import ProofError, Report, check
from tablemate_verify.schedule import SCHEDULES, Earlier, ScheduleError

#: ``t/<table>/g<game>/<name>``, the name maybe with a ``.k`` (drawn again after a reveal).
_LABEL = re.compile(r"t/([A-Za-z0-9_-]+)/g([1-9][0-9]*)/(.+?)(?:\.([2-9]|[1-9][0-9]+))?")
#: The random fields a game logs, in draw order (a fixed outcome has only these).
FIELDS = {"camelup": ("die", "color", "value"), "kingup": ("card",), "countup": ("restriction", "danger")}
#: A draw's public inputs (whatever else a draw says is not an input).
INPUTS = ("op", "items", "k", "start", "stop", "step")


def verify(proof: Any) -> Report:
    """The full report: ``check``'s lines for the proof with every draw's
    inputs taken from the schedule (so a result the proof's own inputs gave
    is a ``draw_mismatch``), then the schedule's lines (``inputs_ok``,
    ``inputs_mismatch``, ``index_mismatch``, ``no_schedule``), which say why."""
    rules = Report()
    rebuilt = rebuild(proof, rules)
    report = check(rebuilt)
    report.lines += rules.lines
    seeds(rebuilt, report)
    return report


def seeds(proof: Any, report: Report) -> None:
    """Each scope's seeds against the log's seed actions (``seeded``): the
    same seats, seeds and versions, in the same order, none missing and none
    added; every seed and every outcome gives its version. A server that
    swaps a seed, drops one or holds one back (and removes its version so
    ``late_seed`` cannot see it) must then rewrite the log too."""
    if not isinstance(proof, dict) or not isinstance(proof.get("scopes"), list):
        return
    logged = proof.get("seeded")
    if not isinstance(logged, list):
        report.add("mismatch", "seed_mismatch", {}, "the proof has no log of seed actions "
                   "('seeded'), so no scope's seeds can be held to it")
        return
    for scope in proof["scopes"]:
        if not isinstance(scope, dict) or not isinstance(scope.get("seeds"), list):
            continue
        label = scope.get("label")
        at = {"scope": label}
        unversioned = [e for e in scope["seeds"] if not isinstance(e, dict) or not _whole(e.get("v"))]
        unversioned += [o for o in _outcomes(scope) if not _whole(o.get("v"))]
        if unversioned:
            report.add("mismatch", "seed_unversioned", at, f"scope {label}: a seed or outcome without "
                       "its table version, so a seed held back cannot be seen")
            continue
        want = [(e.get("seat"), e.get("seed"), e.get("v")) for e in logged
                if isinstance(e, dict) and e.get("scope") == label]
        got = [(e.get("seat"), e.get("seed"), e.get("v")) for e in scope["seeds"]]
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))
            said = f"{want[first][0]}'s seed at version {want[first][2]}" if first < len(want) else "no seed"
            listed = f"{got[first][0]}'s seed at version {got[first][2]}" if first < len(got) else "no seed"
            report.add("mismatch", "seed_mismatch", at, f"scope {label}, seed {first + 1}: the log "
                       f"records {said}, the proof lists {listed}" + (" (another value)" if listed == said else ""))
        else:
            report.add("ok", "seeds_ok", at, f"scope {label}: its {len(got)} seeds are the log's")


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def rebuild(proof: Any, report: Report) -> Any:
    """A copy of ``proof`` whose revealed outcomes' draws have the schedule's
    ops and inputs (with the proof's results, in order); what disagrees goes
    into ``report``."""
    if not isinstance(proof, dict) or not isinstance(proof.get("scopes"), list):
        return proof  # check() says what it is not
    out = copy.deepcopy(proof)
    game = out.get("game")
    schedule = SCHEDULES.get(game) if isinstance(game, str) else None
    starts = _starts(out)
    scopes = [s for s in out["scopes"] if isinstance(s, dict)]
    named = [(s, _name(out, s)) for s in scopes]
    earlier: dict[int, Earlier] = {}
    for s, parsed in named:
        if parsed is None or s.get("secret") is None:
            continue
        g, base = parsed
        by = earlier.setdefault(g, Earlier({})).by_scope.setdefault(base, {})
        for o in _outcomes(s):
            if isinstance(o.get("index"), int):
                by.setdefault(o["index"], _results(str(game), o))
    for s, parsed in named:
        if s.get("secret") is None:
            continue  # open: nothing to replay yet
        at = {"scope": s.get("label")}
        if schedule is None or parsed is None or parsed[0] not in starts:
            why = (f"no draw schedule for the game {game!r}" if schedule is None else
                   "its label names no game of this table" if parsed is None else
                   f"the proof has no start of game {parsed[0]}")
            report.add("mismatch", "no_schedule", at, f"scope {s.get('label')}: {why}, "
                       "so its draws' public inputs cannot be rebuilt")
            continue
        g, base = parsed
        # Every outcome, not up to the first that fails: each must be rebuilt.
        followed = [_outcome(str(game), starts[g], base, s, o, earlier[g], report) for o in _outcomes(s)]
        if all(followed):
            report.add("ok", "inputs_ok", at, f"scope {s['label']}: every draw is the game's "
                       "rules' draw, with the inputs they give")
    return out


def _outcome(game: str, start: dict[str, Any], base: str, scope: dict[str, Any], o: dict[str, Any],
             before: Earlier, report: Report) -> bool:
    label, index = scope["label"], o.get("index")
    if not isinstance(index, int) or o.get("fixed") is True or not isinstance(o.get("draws"), list):
        return True  # check() refuses it or flags it
    where = {"scope": label, "index": index}
    mine = _results(game, o)
    drawn = before.of(base).get(index)
    if drawn is not None and drawn != mine:
        report.add("mismatch", "index_mismatch", where, f"scope {label}: two outcomes at index "
                   f"{index} give different results")
        return False
    try:
        plan = SCHEDULES[game](start, base, index, mine, before)
    except ScheduleError as e:
        report.add("mismatch", "index_mismatch", where, f"scope {label}, outcome {index}: {e}")
        return False
    draws = o["draws"]
    ok = True
    if len(draws) != len(plan):
        report.add("mismatch", "inputs_mismatch", where, f"scope {label}, outcome {index}: "
                   f"{len(draws)} draws, but the rules draw {len(plan)}")
        ok = False
    for d, (draw, want) in enumerate(zip(draws, plan, strict=False)):
        if not isinstance(draw, dict):
            continue
        given = {k: draw[k] for k in INPUTS if k in draw}
        wrong = set(given) - set(want) or {k for k in given if given[k] != want[k]}
        if ok and wrong:
            report.add("mismatch", "inputs_mismatch", {**where, "draw": d},
                       f"scope {label}, outcome {index}, draw {d}: the proof's inputs "
                       f"{_short(given)} are not the rules' {_short(want)}")
            ok = False
        for k in INPUTS:
            draw.pop(k, None)
        draw.update(want)
    # What check() replays: the rules' draws only, with the proof's results.
    o["draws"] = draws[:len(plan)]
    return ok


def _short(d: dict[str, Any]) -> str:
    text = repr(d)
    return text if len(text) <= 160 else text[:157] + "..."


def _results(game: str, o: dict[str, Any]) -> list[Any]:
    if o.get("fixed") is True:
        given = o.get("fields")
        fields = given if isinstance(given, dict) else {}
        return [fields[k] for k in FIELDS.get(game, ()) if k in fields]
    return [d.get("result") for d in o.get("draws") or [] if isinstance(d, dict)]


def _outcomes(scope: dict[str, Any]) -> list[dict[str, Any]]:
    outcomes = scope.get("outcomes")
    return [o for o in outcomes if isinstance(o, dict)] if isinstance(outcomes, list) else []


def _name(proof: dict[str, Any], scope: dict[str, Any]) -> tuple[int, str] | None:
    label = scope.get("label")
    m = _LABEL.fullmatch(label) if isinstance(label, str) else None
    if m is None or m.group(1) != proof.get("table"):
        return None
    return int(m.group(2)), m.group(3)


def _starts(proof: dict[str, Any]) -> dict[int, dict[str, Any]]:
    starts = proof.get("starts", [])
    if not isinstance(starts, list):
        raise ProofError("the proof's 'starts' is a list")
    out: dict[int, dict[str, Any]] = {}
    for s in starts:
        if not isinstance(s, dict) or not isinstance(s.get("game"), int) or not isinstance(s.get("options"), dict):
            raise ProofError("a start is an object with 'game' (a number) and 'options' (an object)")
        out[s["game"]] = s
    return out
