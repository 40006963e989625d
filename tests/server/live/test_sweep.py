"""The sweep (server/live/liveness.py): an instance with few sockets visits
several heartbeat slices a wake, so its wakes (a fixed cost of every instance,
which four instances pay four times over a quarter of the actions each) are
fewer, while every slice is still visited in turn, once a second, and the
presence refresh keeps its slices and rate. Many sockets keep a slice a wake."""

from __future__ import annotations

from types import SimpleNamespace

from server.live import liveness
from server.live.liveness import BEAT_SLICES, MAX_STEP, REFRESH_SLICES, REFRESH_TICKS


class Sweep(liveness.Liveness):
    """The sweep alone over ``sockets`` stand-in sockets, for ``wakes`` wakes."""

    def __init__(self, sockets: int, wakes: int) -> None:
        slices = [set(range(k, sockets, BEAT_SLICES)) for k in range(BEAT_SLICES)]
        self.sockets = SimpleNamespace(slices=slices)  # type: ignore[assignment]
        self.beat_every = 2.0
        self.waits: list[float] = []
        self.beats: list[int | None] = []
        self.refreshed: list[int | None] = []
        self.left = wakes
        self.stop = self  # type: ignore[assignment]

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        self.left -= 1
        return self.left < 0

    def beat_all(self, every: float = 2.0, part: int | None = None) -> None:
        self.beats.append(part)

    def refresh(self, part: int | None = None) -> None:
        self.refreshed.append(part)


def test_few_sockets_are_visited_in_fewer_wakes_every_slice_in_turn() -> None:
    sweep = Sweep(sockets=200, wakes=31)
    sweep.sweep()
    # The first wake takes one slice; from then on MAX_STEP slices a wake.
    assert sweep.waits[1:-1] == [MAX_STEP / BEAT_SLICES] * 30, sweep.waits
    assert sweep.beats == [(k + 1) % BEAT_SLICES for k in range(1 + 30 * MAX_STEP)]
    # One refresh every REFRESH_TICKS slices, the refresh slices in turn: a table's
    # presence is refreshed as often as with a wake per slice.
    assert sweep.refreshed == [(k + 1) % REFRESH_SLICES for k in range(len(sweep.beats) // REFRESH_TICKS)]


def test_many_sockets_keep_a_slice_a_wake() -> None:
    sweep = Sweep(sockets=5000, wakes=120)
    sweep.sweep()
    assert set(sweep.waits) == {1 / BEAT_SLICES}
    assert sweep.beats == [(k + 1) % BEAT_SLICES for k in range(120)]
