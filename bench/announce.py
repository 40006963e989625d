"""CPU of a draw's announce decision alone (``server/service/draws.py``,
``announce``): a Camel Up roll at a table of 4 phones that anchored hash
chains, decided by applying the roll to a copy of the document (the trial,
as every announce did before) and by the engine's own checks
(``change.fresh_draw``), in the same run:

    .venv/bin/python bench/announce.py [--n 5000] [--rounds 3]

The table is made and started on the embedded store (no Redis server, no
network); the timed call is ``announce`` on the document as the decision
reads it (its own copy made beforehand, as ``decide`` does for every action),
the trial's copy included in the trial's figure. Prints µs of process CPU per
announce, old and new, per round, and their ratio.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.micro import micro_args, us_per_call  # noqa: E402
from engines import registry  # noqa: E402
from engines.base import Engine  # noqa: E402
from server.config import Limits  # noqa: E402
from server.model import TableDoc  # noqa: E402
from server.service import Tables, atrest, draws  # noqa: E402
from server.store import Store  # noqa: E402
from server.store.keys import loads  # noqa: E402
from tablemate_verify.chain import make_chain  # noqa: E402

SEATS = 4


def chained_table() -> tuple[Engine, str]:
    """A Camel Up table of ``SEATS`` phones, started, every phone's chain
    anchored: its engine and its stored document."""
    store = Store.connect(None, 600)
    tables = Tables(store, registry.get, rng=random.Random(3), limits=Limits(draw_wait=3.0))
    doc, host = tables.create({"game": "camelup", "name": "Host", "options": {}})
    tid = doc["id"]
    tokens = [host] + [tables.join(tid, {"name": f"P{i + 2}"})[1] for i in range(SEATS - 1)]
    tables.act(tid, host, {"action": {"type": "start"}, "request_id": "start"})
    for i, token in enumerate(tokens):
        chain = make_chain(64, f"{i + 1:02x}" * 32)
        tables.act(tid, token, {"action": {"type": "anchor", "anchor": chain[0], "length": 64},
                                "request_id": f"anchor-{i}"})
    engine = registry.get("camelup")
    raw = store.load_raw(tid)
    if engine is None or raw is None:
        raise SystemExit("no Camel Up table")
    return engine, raw


def main() -> None:
    args = micro_args(__doc__, n=5000).parse_args()
    engine, raw = chained_table()
    doc: TableDoc = loads(raw)
    state = atrest.load_state(engine, doc)
    roller = engine.waiting(state)[0]
    host = roller == doc["host"]
    seats = [s["id"] for s in doc["seats"]]
    rng = random.Random(1)

    def announce(trial: bool) -> Any:
        return draws.announce(engine, doc, roller, host, "pyramid", {}, rng, state, "bench", lambda: seats, 3.0,
                              None, lambda: loads(raw), trial=trial)

    old, new = announce(True), announce(False)
    for out in (old, new):
        assert draws.is_pending_action(out.action) and out.events[0]["waiting"] == seats, out.events
    for r in range(args.rounds):
        before = us_per_call(lambda: announce(True), args.n)
        after = us_per_call(lambda: announce(False), args.n)
        print(f"round {r + 1}: a roll's announce, {SEATS} chained phones: trial apply {before:.1f} µs, "
              f"without it {after:.1f} µs ({before / after:.1f}x)")


if __name__ == "__main__":
    main()
