"""web/screens/fair.js in node: the phone's check of the table's proof."""

from __future__ import annotations

from conftest import run_node

_RETRY = """
globalThis.window = globalThis;
globalThis.document = {documentElement: {dataset: {}}};
let calls = 0;
globalThis.fetch = async () => {
  calls += 1;
  if (calls === 1) throw new TypeError('the Wi-Fi dropped');
  return new Response(JSON.stringify({format: 'tablemate-proof/1', scopes: [], sealed: []}),
                      {status: 200, headers: {'Content-Type': 'application/json'}});
};
const { fairTable } = await import('./web/screens/fair.js');
const fair = fairTable('t1', () => 'tok', async () => ({}));
// The game's last change revealed something; no snapshot comes after it.
fair.update({version: 3, me: 'p1', fair: {open: [], sealed: [], revealed: 1}}, false);
await new Promise((r) => setTimeout(r, 2600));
process.stdout.write(JSON.stringify({calls, checked: fair.result() !== null}));
"""


def test_a_proof_that_failed_to_load_is_fetched_again_without_a_new_snapshot() -> None:
    """At a finished game no next snapshot comes to try again on: a phone on
    flaky Wi-Fi would never show its check."""
    assert run_node(_RETRY) == {"calls": 2, "checked": True}
