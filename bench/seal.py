"""CPU of the at-rest sealing alone (``server/service/atrest.py``, AES-GCM): what
the server pays to keep a value it must see before its reveal unreadable in
the store, and to read it back:

    .venv/bin/python bench/seal.py [--n 20000] [--rounds 3] [--seats 5]

Timed with the server's own functions on real values: a Count Up sheet as the
log keeps its ``numbers`` action (``hide_action``, then ``shown``) and as the
engine's state keeps every seat's sheet (``hide_state`` of a state whose
``--seats`` sheets are locked, per sheet; the server seals them all again at
every action of the round), and a Camel Up face-down finish card as the log
keeps its ``finish_bet`` (``camel``). Also the bare ``seal`` / ``unseal`` of
each value. Prints µs of process CPU per seal and per open, per round; the key
is ``TABLEMATE_SEAL_KEY`` when set, else one drawn for this process, as the
server does.
"""

from __future__ import annotations

import copy
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.micro import micro_args, us_per_call  # noqa: E402
from engines import registry  # noqa: E402
from engines.base import Engine  # noqa: E402
from server.model import TableDoc  # noqa: E402
from server.service import atrest, schemas  # noqa: E402

TABLE = "Ab3xYz"


def locked_sheets(engine: Engine, seats: int, seed: int) -> Any:
    """A Count Up state (dumped) once every seat has locked its sheet: seeded
    legal play, each seat's sheet as the engine samples it."""
    rng = random.Random(seed)
    options = engine.normalize_options(schemas.options_with_defaults(engine, {}))
    players = [f"p{i + 1}" for i in range(seats)]
    state = engine.setup(players, engine.draw_setup(players, options, rng))
    for _ in range(200):
        dumped = engine.dump(state)
        if all(s.get("numbers") for s in dumped["seats"]):
            return dumped
        moves = [(p, a) for p in players for t in engine.legal_actions(state, p)
                 if (a := engine.sample(state, p, t, rng)) is not None]
        # A sheet whenever one may be locked; else what opens sheet entry (the round's restriction).
        moves = [m for m in moves if m[1]["type"] == "numbers"] or [
            m for m in moves if m[1]["type"] not in ("call", "skip", "set_phone")]
        player, action = rng.choice(moves)
        action = engine.draw(state, {**action, "player": player, "host": player == players[0]}, rng)
        state, _ = engine.apply(state, action)
    raise SystemExit("no state with every sheet locked: the Count Up engine's offers changed")


def engine_of(name: str) -> Engine:
    found = registry.get(name)
    if found is None:
        raise SystemExit(f"no {name} engine")
    return found


def main() -> None:
    ap = micro_args(__doc__)
    ap.add_argument("--seats", type=int, default=5)
    args = ap.parse_args()
    countup, camelup = engine_of("countup"), engine_of("camelup")
    state = locked_sheets(countup, args.seats, 5)
    sheet = state["seats"][0]["numbers"]
    doc: TableDoc = {"id": TABLE, "state": state, "version": 0}  # type: ignore[typeddict-item]
    numbers = {"type": "numbers", "numbers": sheet, "player": "p1", "host": True}
    finish = {"type": "finish_bet", "pile": "winner", "camel": "blue", "player": "p1", "host": True}
    logged_sheet = atrest.hide_action(countup, doc, numbers)
    logged_card = atrest.hide_action(camelup, doc, finish)
    assert atrest.shown(TABLE, logged_sheet, 1) == numbers and atrest.shown(TABLE, logged_card, 1) == finish
    hidden = copy.deepcopy(doc)
    atrest.hide_state(countup, hidden)
    assert "aesgcm" in str(hidden["state"]["seats"][0]["numbers"]), "the sheets were not sealed"

    def seal_state() -> None:
        atrest.hide_state(countup, {"id": TABLE, "state": state})  # type: ignore[typeddict-item]

    rows: list[tuple[str, Callable[[], object], int]] = [
        (f"sheet {sheet}: seal", lambda: atrest.seal(sheet, TABLE, "action/1/numbers"), 1),
        ("sheet: open", lambda: atrest.unseal(logged_sheet["numbers"], TABLE, "action/1/numbers"), 1),
        ("sheet as logged: hide_action", lambda: atrest.hide_action(countup, doc, numbers), 1),
        ("sheet as logged: shown", lambda: atrest.shown(TABLE, logged_sheet, 1), 1),
        (f"{args.seats} sheets in the state: hide_state, per sheet", seal_state, args.seats),
        ("face-down card 'blue': seal", lambda: atrest.seal("blue", TABLE, "action/1/camel"), 1),
        ("face-down card: open", lambda: atrest.unseal(logged_card["camel"], TABLE, "action/1/camel"), 1),
        ("card as logged: hide_action", lambda: atrest.hide_action(camelup, doc, finish), 1),
        ("card as logged: shown", lambda: atrest.shown(TABLE, logged_card, 1), 1),
    ]
    for r in range(args.rounds):
        for name, fn, per in rows:
            print(f"round {r + 1}: {name}: {us_per_call(fn, args.n) / per:.2f} µs")


if __name__ == "__main__":
    main()
