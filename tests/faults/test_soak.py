"""The fault soak's short run (``tests/faults/soak.py``): one round of a master
killed (its replica takes over) and restarted, a master paused and a slot
moved, with actions going on from phones on two instances."""

from __future__ import annotations

import json

from tests.faults.soak import soak


def test_a_short_fault_soak() -> None:
    figures = soak(duration=300, n_tables=4, rounds=1, settle=3.0)  # the round ends it: ~35 s
    print(json.dumps(figures, indent=2))  # the figures, for a person reading -s
    assert len(figures["faults"]) == 3
    assert figures["acknowledged"] > 0
    assert figures["acknowledged lost"] == 0
    assert figures["not converged"] == 0, figures["faults"]
    assert figures["phones diverged"] == 0
    assert figures["healthz"] == [200, 200]
