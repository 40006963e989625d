"""web/kept.js in node: what a phone keeps of old tables leaves localStorage,
and a full storage makes room for a new seat's token."""

from __future__ import annotations

from typing import Any

from conftest import run_node

# localStorage as browsers have it: keys by index, and a quota (in characters here).
_STORAGE = """
globalThis.window = globalThis;
const data = new Map();
let quota = Infinity;
const used = () => [...data].reduce((n, [k, v]) => n + k.length + v.length, 0);
globalThis.localStorage = {
  get length() { return data.size; },
  key: (i) => [...data.keys()][i] ?? null,
  getItem: (k) => data.get(k) ?? null,
  setItem: (k, v) => {
    const before = data.get(k);
    data.set(k, String(v));
    if (used() > quota) {
      if (before === undefined) data.delete(k); else data.set(k, before);
      throw new Error('QuotaExceededError');
    }
  },
  removeItem: (k) => { data.delete(k); },
};
const DAY = 24 * 3600 * 1000;
const kept = await import('./web/kept.js');
const tokens = await import('./web/tokens.js');
const table = (id) => ({
  [`tablemate.token.${id}`]: 'tok', [`tablemate.chain.${id}`]: 'x'.repeat(17000),
  [`tablemate.links.${id}.ab12`]: 'top', [`tablemate.shown.${id}`]: '{}', [`tablemate.votes.${id}`]: '{}',
  [`tablemate.moment.${id}`]: '{}',
});
"""

_TIDY = _STORAGE + """
const now = 100 * DAY;
for (const id of ['Old', 'Recent', 'Before']) for (const [k, v] of Object.entries(table(id))) data.set(k, v);
data.set('tablemate.name', '민수');
data.set('tablemate.lang', 'ko');
data.set('tablemate.seen', JSON.stringify({Old: now - 20 * DAY, Recent: now - 2 * DAY}));  // 'Before': no date yet
kept.tidyStorage(now);
const first = [...data.keys()].sort();
kept.tidyStorage(now + DAY - 1);                       // twice the same day: nothing; 15 days on: again
const sameDay = data.size;
kept.tidyStorage(now + 15 * DAY);
process.stdout.write(JSON.stringify({first, sameDay, later: [...data.keys()].sort(),
                                     seen: JSON.parse(data.get('tablemate.seen'))}));
process.exit(0);
"""


def test_the_keys_of_a_table_not_opened_for_two_weeks_go_once_a_day() -> None:
    got: dict[str, Any] = run_node(_TIDY)
    recent = sorted(k for k in got["first"] if k.endswith("Recent") or ".Recent." in k)
    assert len(recent) == 6
    assert not any("Old" in k for k in got["first"])  # every kind of key of the old table
    assert sum("Before" in k for k in got["first"]) == 6  # undated: counted from today
    assert {"tablemate.name", "tablemate.lang"} <= set(got["first"])
    assert got["sameDay"] == len(got["first"])
    # 15 days on: the tables not opened since are gone, the phone's own settings stay.
    assert [k for k in got["later"] if "Recent" in k or "Before" in k] == []
    assert {"tablemate.name", "tablemate.lang"} <= set(got["later"])
    assert got["seen"] == {}


_FULL = _STORAGE + """
for (let i = 0; i < 20; i += 1) for (const [k, v] of Object.entries(table(`T${i}`))) data.set(k, v);
quota = used() + 100;                                  // full: a token does not fit
tokens.setToken('New', 'n'.repeat(200));
process.stdout.write(JSON.stringify({token: tokens.getToken('New'),
  chains: [...data.keys()].filter((k) => k.startsWith('tablemate.chain.')).length,
  tokens: [...data.keys()].filter((k) => k.startsWith('tablemate.token.')).length}));
process.exit(0);
"""


def test_a_full_storage_gives_up_other_tables_chains_for_a_new_seats_token() -> None:
    """Before, the token could not be kept: a reload lost the seat."""
    got: dict[str, Any] = run_node(_FULL)
    assert got["token"] == "n" * 200
    assert got["chains"] == 0 and got["tokens"] == 21  # the other seats' tokens stay
