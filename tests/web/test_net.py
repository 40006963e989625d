"""The web client's connection to the server (``web/live.js``, ``outbox.js``,
``snapshot.js``, ``connection.js``): the live connection draws a snapshot once
(the socket's first ``state`` frame repeats the HTTP snapshot the screen was
drawn from: same version, a ``type`` field, other key order; anything that
differs is drawn), the indicator says open only while the socket is, and an
action waits for a socket and goes again until it is answered."""

from __future__ import annotations

from conftest import run_node

_JS = """
import { Live } from './web/live.js';
import { presenceOnly, sameSnapshot } from './web/snapshot.js';
const http = {version: 4, status: 'playing', players: [{id: 'p1', name: '민준', connected: true}],
              view: {board: {a: [1, 2]}, me: 'p1'}, legal: [{type: 'roll'}]};
// The socket's frame: a type, the keys in another order.
const frame = {type: 'state', legal: [{type: 'roll'}], view: {me: 'p1', board: {a: [1, 2]}},
               players: [{name: '민준', id: 'p1', connected: true}], status: 'playing', version: 4};
const moved = {...frame, view: {me: 'p1', board: {a: [2, 1]}}};
const drawn = [];
const live = new Live({table: 't', token: null, onState: (s) => drawn.push(s.version),
                       onStatus: () => {}, onFatal: () => {}, onError: () => {}});
live.accept(http);
live.accept(frame);        // the same snapshot again: not drawn
live.accept(moved);        // same version, other content (a resync after an outage): drawn
live.accept({...moved, version: 5});
live.accept(http);         // older: never drawn
// The socket's first frame says this seat is connected now, nothing else: drawn,
// with every other field the very object drawn before (as a presence frame).
const states = [];
const fresh = new Live({table: 't', token: null, onState: (s) => states.push(s),
                        onStatus: () => {}, onFatal: () => {}, onError: () => {}});
const offline = {...http, players: [{id: 'p1', name: '민준', connected: false}]};
fresh.accept(offline);
fresh.accept(frame);
fresh.accept({...frame, players: [{id: 'p1', name: 'Minjun', connected: true}]});
process.stdout.write(JSON.stringify({
  presence: [states.length, states[1].view === offline.view, states[1].legal === offline.legal,
             states[1].players[0].connected, 'type' in states[1], states[2].view === offline.view],
  // What the table screen asks of two snapshots it draws in turn.
  presenceOnly: [presenceOnly(states[0], states[1]), presenceOnly(states[1], states[2]),
                 presenceOnly(null, states[0]), presenceOnly(states[1], states[1])],
  drawn,
  same: sameSnapshot(frame, http),
  differs: [sameSnapshot(moved, http), sameSnapshot({...frame, extra: 1}, http),
            sameSnapshot({...frame, players: []}, http), sameSnapshot({...frame, view: null}, http)],
}));
"""


def test_a_repeated_snapshot_is_not_drawn_again() -> None:
    got = run_node(_JS)
    assert got["drawn"] == [4, 4, 5]
    # Presence alone: drawn, the rest kept as the objects drawn; a renamed seat is not presence.
    assert got["presence"] == [3, True, True, True, False, False]
    # The table screen draws only the seats' dots for the presence alone, nothing else.
    assert got["presenceOnly"] == [True, False, False, False]
    assert got["same"] is True
    assert got["differs"] == [False, False, False, False]


_ACT_BEFORE_START = """
import { Live } from './web/live.js';
// The page opens its socket a task after the first render: a tap in between waits for it.
const opts = {table: 't', token: null, onState: () => {}, onStatus: () => {}, onFatal: () => {}, onError: () => {}};
const live = new Live(opts);
const out = {};
live.act({type: 'roll'}).then(() => { out.early = 'resolved'; }, (e) => { out.early = e.code; });
await Promise.resolve();
out.waiting = live.queued;
live.stop();             // the screen closed before the socket opened: the tap is told, not left hanging
await new Promise((r) => setTimeout(r, 0));
out.after_stop = live.queued;
const closed = new Live(opts);
closed.stop();
await closed.act({type: 'roll'}).catch((e) => { out.closed = e.code; });
process.stdout.write(JSON.stringify(out));
"""


def test_a_tap_before_the_socket_starts_waits_for_it() -> None:
    got = run_node(_ACT_BEFORE_START)
    assert got == {"waiting": 1, "early": "network", "after_stop": 0, "closed": "network"}


_SEED_JS = """
import { Live } from './web/live.js';
import { fairChanged, fairOnly } from './web/snapshot.js';
const fair = (seeded) => ({open: [{scope: 't/x/g1/leg/1', commitment: 'ab'.repeat(32), seeded}], sealed: [], revealed: 1});
const base = {version: 7, status: 'playing', players: [{id: 'p1', name: 'Ada', connected: true}],
              view: {board: {a: [1, 2]}}, legal: [{type: 'roll'}], fair: fair([])};
const states = [];
const live = new Live({table: 't', token: null, onState: (s) => states.push(s),
                       onStatus: () => {}, onFatal: () => {}, onError: () => {}});
live.accept(base);
// Another phone's seed: a new version, the same game (as parsed afresh from a frame).
const seeded = {...JSON.parse(JSON.stringify(base)), type: 'state', version: 8, fair: fair(['p2'])};
live.accept(seeded);
// Then a roll: the game itself changed.
live.accept({...JSON.parse(JSON.stringify(seeded)), version: 9, view: {board: {a: [2, 1]}}});
process.stdout.write(JSON.stringify({
  versions: states.map((s) => s.version),
  kept: [states[1].view === base.view, states[1].legal === base.legal, states[1].players === base.players],
  seededShown: states[1].fair.open[0].seeded,
  roll: states[2].view === base.view,
  checks: [fairChanged(seeded, base), fairChanged(states[2], states[1]), fairChanged(base, seeded),
           fairChanged({...seeded, round: 2}, base), fairChanged({...seeded, now: 5}, {...base, now: 4})],
  // What the table screen asks of two snapshots it draws in turn: the fair line alone, or all.
  fairOnly: [fairOnly(states[0], states[1]), fairOnly(states[1], states[2]), fairOnly(null, states[0]),
             fairOnly(states[1], states[0])],
}));
"""


_CLOCK = """
import { Live } from './web/live.js';
import { sameSnapshot, serverNow } from './web/snapshot.js';
import { clock, ringsDue, waitedFor } from './web/screens/waiting.js';
const drawn = [];
const live = new Live({table: 't', token: null, onState: (s) => drawn.push(s.version),
                       onStatus: () => {}, onFatal: () => {}, onError: () => {}});
const snap = {version: 7, status: 'playing', players: [], view: {waiting: ['p2']}, legal: [],
              waiting_since: {p2: 1000}, now: 1090};
live.accept(snap);                          // a kept snapshot: its clock is not believed
const kept = Math.round(serverNow() - Date.now());
live.handle({type: 'state', ...snap, now: 1100.5});  // the socket's: the same table, the server's clock now
const skew = serverNow() - Date.now() - (1100.5 * 1000 - Date.now());
process.stdout.write(JSON.stringify({
  drawn, kept, skew_ok: Math.abs(skew) < 50,
  same: sameSnapshot({...snap, now: 1}, {...snap, now: 2}),
  waited: waitedFor(snap, 'p2', 1100500), none: waitedFor(snap, 'p3', 1100500),
  rings: [ringsDue(29, 30), ringsDue(30, 30), ringsDue(61, 30), ringsDue(400, 30), ringsDue(400, 0)],
  clocks: [clock(5), clock(65), clock(725.9)],
}));
"""


def test_a_seed_from_another_phone_keeps_every_part_of_the_snapshot() -> None:
    """A phone's fair-dice seed is a change of its own (docs/fairness.md): the
    next snapshot differs only in ``version`` and ``fair``, and the screen gets
    back the very objects it drew, so nothing is redrawn."""
    got = run_node(_SEED_JS)
    assert got == {"versions": [7, 8, 9], "kept": [True, True, True], "seededShown": ["p2"], "roll": False,
                   "checks": [True, False, False, False, True], "fairOnly": [True, False, False, False]}


def test_a_wait_is_told_by_the_servers_clock_and_a_new_clock_alone_is_not_drawn() -> None:
    got = run_node(_CLOCK)
    assert got["drawn"] == [7], "the same table with only the server's clock moved is not drawn again"
    assert got["kept"] == 0 and got["skew_ok"] is True
    assert got["same"] is True
    assert got["waited"] == 100.5 and got["none"] is None
    assert got["rings"] == [0, 1, 2, 3, 0]
    assert got["clocks"] == ["0:05", "1:05", "12:05"]


# A browser stand-in for node: the page's <html>, timers that only run when
# the test says, a clock the test moves, and sockets it opens, feeds and kills.
_BROWSER = """
let clock = 1_000_000;
Date.now = () => clock;
const html = {dataset: {}};
const noop = () => {};
globalThis.document = {documentElement: html, visibilityState: 'visible', addEventListener: noop, removeEventListener: noop};
globalThis.window = {addEventListener: noop, removeEventListener: noop, setInterval: () => 1, setTimeout: () => 1};
globalThis.location = {protocol: 'http:', host: 'test'};
const sockets = [];
globalThis.WebSocket = class {
  static CONNECTING = 0; static OPEN = 1; static CLOSED = 3;
  constructor(url, protocols) { this.url = url; this.protocols = protocols; this.readyState = 0; this.sent = []; sockets.push(this); }
  send(data) { this.sent.push(JSON.parse(data)); }
  close() { this.readyState = 3; }
  open() { this.readyState = 1; this.onopen(); }
  greet(version = 0) { this.open(); this.hear({type: 'state', version}); }  // the server's first frame
  hear(msg) { if (this.onmessage) this.onmessage({data: JSON.stringify(msg)}); }
};
const later = (ms) => { clock += ms; };
"""

_INDICATOR = _BROWSER + """
import { httpReached, onConnection } from './web/connection.js';
import { Live } from './web/live.js';
const said = [];
onConnection((s) => said.push(s));
const statuses = [];
const out = {};
httpReached(true);                 // the home page's request: the server answers
out.home = html.dataset.connection;
const live = new Live({table: 't', token: 'tok', onState: () => {}, onStatus: (s) => statuses.push(s),
                       onFatal: () => {}, onError: () => {}});
live.start();
out.starting = html.dataset.connection;
httpReached(true);                 // an HTTP answer says nothing of the socket
out.http_while_connecting = html.dataset.connection;
out.handshake = [sockets[0].url, sockets[0].protocols];
sockets[0].open();
out.opened_unheard = html.dataset.connection;   // open, but nothing of the table heard yet
sockets[0].hear({type: 'state', version: 0});
out.opened = html.dataset.connection;
later(4000); sockets[0].hear({type: 'pong', version: -1}); later(4000);
live.watch();                      // heard 4 s ago: alive
out.heard_recently = html.dataset.connection;
later(1500);
live.watch();                      // nothing for 5.5 s: dead, whatever the browser thinks
out.silent = html.dataset.connection;
out.dropped = sockets[0].readyState;
httpReached(true);                 // the server answers HTTP: the socket is still down
out.http_while_offline = html.dataset.connection;
sockets[0].hear({type: 'state', version: 1});   // the dropped socket's late frame: not believed
out.late_frame = [html.dataset.connection, live.version];
live.stop();
httpReached(false);
out.after_stop = html.dataset.connection;
out.said = said;
out.statuses = statuses;
process.stdout.write(JSON.stringify(out));
"""


def test_the_indicator_never_says_open_while_the_socket_is_not() -> None:
    """While a table's socket runs, only it sets ``data-connection``: an HTTP
    answer does not make a dead or unopened socket look connected, and a
    socket silent past its dead time is said offline at once."""
    got = run_node(_INDICATOR)
    assert got["home"] == "open"
    assert got["starting"] == "connecting" and got["http_while_connecting"] == "connecting"
    assert got["handshake"] == ["ws://test/api/tables/t/ws", ["tablemate", "tablemate.token.tok"]], "the token never in the URL"
    assert got["opened_unheard"] == "connecting", "open before the table's first snapshot came"
    assert got["opened"] == "open" and got["heard_recently"] == "open"
    assert got["silent"] == "offline" and got["dropped"] == 3
    assert got["http_while_offline"] == "offline"
    assert got["late_frame"] == ["offline", 0]
    assert got["after_stop"] == "offline", "stopped, HTTP says again: here, unreached"
    assert got["said"] == ["open", "connecting", "open", "offline"]
    assert got["statuses"] == ["connecting", "open", "offline"]


_OUTBOX = _BROWSER + """
import { Live } from './web/live.js';
const live = new Live({table: 't', token: 'tok', onState: () => {}, onStatus: () => {},
                       onFatal: () => {}, onError: () => {}});
const got = {};
live.start();
const first = live.act({type: 'roll'});         // not open yet: waits
const second = live.act({type: 'bet', camel: 'red'}, {version: 3});
got.unsent = sockets[0].sent.length;
sockets[0].greet();                            // both go, in the order made
const frames = sockets[0].sent.map((f) => [f.type, f.action.type, f.version ?? null]);
const [a, b] = sockets[0].sent.map((f) => f.request_id);
sockets[0].hear({type: 'result', request_id: a, version: 4, events: [{type: 'rolled'}]});
got.first = await first;
sockets[0].hear({type: 'error', request_id: b, error: {code: 'stale_version', message: 'old'}});
got.second = await second.catch((e) => [e.code, e.status]);
const third = live.act({type: 'pass'});        // open: sent at once
got.sent_at_once = sockets[0].sent.length;
const c = sockets[0].sent[2].request_id;
later(8500); sockets[0].hear({type: 'pong', version: 4});
live.watch();                                  // unanswered 8.5 s: again, same request id
got.resent = sockets[0].sent.filter((f) => f.type === 'action').map((f) => f.request_id === c);
later(1000); live.watch(); later(1000); live.watch(); later(4000); live.watch();   // silent: dead
live.connect();                                // the backoff's timer
sockets[1].greet();                            // the new socket carries it again
got.on_new_socket = sockets[1].sent.filter((f) => f.type === 'action').map((f) => f.request_id === c);
got.queued = live.queued;
live.stop();
got.third = await third.catch((e) => e.code);
got.after_stop = live.queued;
process.stdout.write(JSON.stringify({frames, ...got}));
"""


def test_an_action_waits_for_the_socket_and_goes_again_until_answered() -> None:
    got = run_node(_OUTBOX)
    assert got["unsent"] == 0
    assert got["frames"] == [["action", "roll", None], ["action", "bet", 3]]
    assert got["first"] == {"version": 4, "events": [{"type": "rolled"}]}
    assert got["second"] == ["stale_version", 0]
    assert got["sent_at_once"] == 3
    assert got["resent"] == [False, False, True, True]
    assert got["on_new_socket"] == [True], "only what still waits, with its own request id"
    assert got["queued"] == 1
    assert got["third"] == "network" and got["after_stop"] == 0



_UNHEARD = _BROWSER + """
import { Live } from './web/live.js';
const delays = [];
window.setTimeout = (fn, ms) => { delays.push(Math.round(ms)); return 1; };
globalThis.fetch = async () => { throw new Error('offline'); };
const statuses = [];
const live = new Live({table: 't', token: 'tok', onState: () => {}, onStatus: (s) => statuses.push(s),
                       onFatal: () => {}, onError: () => {}});
const out = {};
live.start();
// A server that opens the socket and closes it before its first snapshot (1013:
// it cannot load the table), again and again: the backoff grows.
for (let i = 0; i < 6; i += 1) {
  const ws = sockets[sockets.length - 1];
  ws.open();
  ws.onclose({code: 1013});
  live.connect();                                // the backoff's timer fired
}
out.delays = delays;
out.never_open = !statuses.includes('open');
// A socket open and beaten by the heartbeat, its first snapshot never coming: given up.
const ws = sockets[sockets.length - 1];
ws.open();
for (let t = 0; t < 10; t += 1) { later(1000); ws.hear({type: 'pong', version: -1}); live.watch(); }
later(1000); live.watch();
out.given_up = [ws.readyState, html.dataset.connection];
// The next one says it: open with its snapshot, then not while the store is down.
live.connect();
const next = sockets[sockets.length - 1];
next.greet(4);
out.greeted = [html.dataset.connection, live.heardFrom];
next.hear({type: 'error', error: {code: 'store_unavailable', message: 'down'}});
out.store_down = html.dataset.connection;
const tap = live.act({type: 'pass'});
out.held = next.sent.filter((f) => f.type === 'action').length;
// Back: the same table, a fresh snapshot, a draw announced meanwhile waiting in it
// (its id is the next version): heard from that draw on, not before.
next.hear({type: 'state', version: 4, fair: {pending: {draw: 5}}});
out.store_back = [html.dataset.connection, next.sent.filter((f) => f.type === 'action').length, live.heardFrom];
live.stop();
await tap.catch(() => {});
process.stdout.write(JSON.stringify(out));
"""


def test_the_indicator_says_open_only_once_the_table_is_heard() -> None:
    """A socket is not the table: 'open' waits for the server's first
    snapshot on it. A server that opens sockets and closes them before that
    (1013) gets a growing backoff, not a reconnect at once each time (one phone
    opened 450 sockets in 10 s); a socket whose first snapshot never comes is
    given up; a store outage says 'offline' until the fresh snapshot, and a
    tap made meanwhile waits for it."""
    got = run_node(_UNHEARD)
    assert got["never_open"] is True
    delays = [d for d in got["delays"] if d != 15_000]  # the backoff's, not the HTTP fetch's timeout
    assert delays[0] == 0 and delays[-1] >= 2000 and sorted(delays[:4]) == delays[:4], delays
    assert got["given_up"] == [3, "connecting"]
    assert got["greeted"] == ["open", 4], "and the version it was heard at (fair-chain.js dates the phone live from it)"
    assert got["store_down"] == "offline" and got["held"] == 0
    assert got["store_back"] == ["open", 1, 5], "a draw already waiting was announced before this phone heard"



_LATE_HTTP = _BROWSER + """
import { Live } from './web/live.js';
let answer;
globalThis.fetch = () => new Promise((resolve) => { answer = resolve; });
let shown = null;
const live = new Live({table: 't', token: 'tok', onState: (s) => { shown = s; }, onStatus: () => {},
                       onFatal: () => {}, onError: () => {}});
const snap = (me) => ({version: 9, status: 'playing', view: {}, legal: [],
  players: [{id: 'p1', name: 'Me', connected: me}, {id: 'p2', name: 'Bo', connected: true}]});
live.start();
sockets[0].open(); sockets[0].hear({type: 'state', ...snap(true)});
sockets[0].onclose({code: 1006});                // a blip: the first retry goes at once
live.connect(); sockets[1].onclose({code: 1006}); // the second fetches HTTP meanwhile
live.connect(); sockets[2].open(); sockets[2].hear({type: 'state', ...snap(true)});
answer({ok: true, status: 200, json: async () => snap(false), headers: {get: () => null}});
await new Promise((r) => setTimeout(r, 0));
process.stdout.write(JSON.stringify(shown.players.map((p) => p.connected)));
"""


def test_an_http_snapshot_that_lands_after_the_socket_is_heard_is_dropped() -> None:
    """Between attempts the phone reads the table over HTTP, as it was with
    no socket of this phone: landing after the new socket's first snapshot of
    the same version, it said this phone's own seat was not connected, and no
    presence frame came to say otherwise."""
    assert run_node(_LATE_HTTP) == [True, True]


_STOPPED = _BROWSER + """
import { Live } from './web/live.js';
const answers = [];
globalThis.fetch = () => new Promise((resolve, reject) => { answers.push({resolve, reject}); });
const seen = {states: 0, fatal: 0};
const live = new Live({table: 't', token: 'tok', onState: () => { seen.states += 1; }, onStatus: () => {},
                       onFatal: () => { seen.fatal += 1; }, onError: () => {}});
live.start();
sockets[0].greet(3);
const start = seen.states;
sockets[0].onclose({code: 1006}); live.connect(); sockets[1].onclose({code: 1006});  // an HTTP read on its way
live.connect(); sockets[2].onclose({code: 1006});                                     // and another
live.stop();                                     // the seat lost, the table left
answers[0].resolve({ok: true, status: 200, json: async () => ({version: 9, players: []}), headers: {get: () => null}});
answers[1].resolve({ok: false, status: 401, json: async () => ({error: {code: 'bad_token', message: 'x'}}), headers: {get: () => null}});
await new Promise((r) => setTimeout(r, 0));
process.stdout.write(JSON.stringify({states: seen.states - start, fatal: seen.fatal}));
"""


def test_a_stopped_socket_tells_nothing_of_an_http_answer_still_on_its_way() -> None:
    """A table left (or its seat lost) while a reconnect's HTTP read was on
    its way: the answer must not reach the screen of whatever came next, nor
    end it a second time."""
    assert run_node(_STOPPED) == {"states": 0, "fatal": 0}

_DRAW_FRAME = """
import { Live } from './web/live.js';
const states = [];
const live = new Live({table: 't', token: null, onState: (s) => states.push(s),
                       onStatus: () => {}, onFatal: () => {}, onError: () => {}});
const fair = {open: [], sealed: [], revealed: 0};
live.accept({version: 7, status: 'playing', players: [], view: {}, legal: [{type: 'pyramid'}], fair});
const pending = (waiting) => ({draw: 8, scope: 's', index: 0, action: 'pyramid', player: 'p1',
                               contributors: ['p1', 'p2'], waiting, at: 0, wait: 3});
live.handle({type: 'draw', version: 8, pending: pending(['p1', 'p2'])});  // the announce
live.handle({type: 'draw', version: 8, pending: pending(['p2'])});        // p1's link
live.accept({version: 9, status: 'playing', players: [], view: {}, legal: [], fair});  // the draw made
live.handle({type: 'draw', version: 8, pending: pending([])});            // the last link's, late: dropped
process.stdout.write(JSON.stringify(states.map((s) => [s.version, s.fair.pending ? s.fair.pending.waiting : null])));
"""


def test_a_draw_frame_puts_whom_the_draw_waits_for_into_the_snapshot_held() -> None:
    """The announce and each link come as a small ``draw`` frame (issue 38):
    merged as the snapshot's ``fair.pending`` (the version stays the one
    drawn); one from before the snapshot held is dropped."""
    got = run_node(_DRAW_FRAME)
    assert got == [[7, None], [7, ["p1", "p2"]], [7, ["p2"]], [9, None]]


_FRAME_FIRST = """
import { Live } from './web/live.js';
const states = [];
const live = new Live({table: 't', token: null, onState: (s) => states.push(s),
                       onStatus: () => {}, onFatal: () => {}, onError: () => {}});
const fair = {open: [], sealed: [], revealed: 0};
live.accept({version: 5, status: 'playing', players: [], view: {}, legal: [], fair});
// The table at 6 (this phone's anchor), a draw announced on it (it commits as 7): its
// frame overtakes version 6's snapshot, which knows nothing of the draw.
const pending = {draw: 7, scope: 's', index: 0, action: 'pyramid', player: 'p2',
                 contributors: ['p1'], waiting: ['p1'], at: 0, wait: 3};
live.handle({type: 'draw', version: 6, pending});
live.accept({version: 6, status: 'playing', players: [], view: {}, legal: [], fair: {...fair, chains: {p1: {}}}});
live.accept({version: 7, status: 'playing', players: [], view: {}, legal: [], fair});  // the draw made
process.stdout.write(JSON.stringify(states.map((s) => [s.version, s.fair.pending ? s.fair.pending.draw : null])));
"""


def test_a_snapshot_pushed_after_the_draw_frame_keeps_the_draw_waiting() -> None:
    """Pushes race: the snapshot of the version a draw was announced on may
    come after the announce's frame. It must not make the phone forget the
    draw that waits for its link (it would never answer); the draw's own
    snapshot, at its id, ends it."""
    got = run_node(_FRAME_FIRST)
    assert got == [[5, None], [5, 7], [6, 7], [7, None]]


_RELOAD = _BROWSER + """
const stored = new Map();
globalThis.sessionStorage = {getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, String(v)),
                             removeItem: (k) => stored.delete(k)};
import { Live } from './web/live.js';
const opts = (token) => ({table: 't', token, onState: () => {}, onStatus: () => {}, onFatal: () => {}, onError: () => {}});
const out = {};
// A page offline: a tap waits, and a quiet one (a fair-dice link) that its screen keeps itself.
const before = new Live(opts('tok'));
before.start();
before.act({type: 'bet', camel: 'red'}).catch(() => {});
before.act({type: 'link', draw: 'd', link: 'ab'}, {quiet: true}).catch(() => {});
const made = JSON.parse(stored.get('tablemate.outbox.t'));
out.kept = made.kept.map((k) => k.frame.action.type);
const rid = made.kept[0].frame.request_id;
// The page reloads (nothing of it runs again: no stop). The next page of that seat sends it.
later(60_000);
const after = new Live(opts('tok'));
const resumed = after.resume();
out.resumed = [resumed.waiting.length, resumed.stale];
out.again = after.resume().waiting.length;              // once only
after.start();
const ws = sockets[sockets.length - 1];
out.before_heard = ws.sent.length;
ws.greet(4);
out.sent = ws.sent.filter((f) => f.type === 'action').map((f) => [f.action.type, f.request_id === rid]);
ws.hear({type: 'result', request_id: rid, version: 5, events: []});
out.answered = [(await resumed.waiting[0].done).version, resumed.waiting[0].frame.action.type];
out.left = stored.has('tablemate.outbox.t');
// A tap too old when the next page finds it is dropped and counted.
const offline = (token) => { const page = new Live(opts(token)); page.start(); return page; };
offline('tok').act({type: 'bet', camel: 'blue'}).catch(() => {});
later(10 * 60_000 + 1);
const late = new Live(opts('tok'));
const stale = late.resume();
out.late = [stale.waiting.length, stale.stale, stored.has('tablemate.outbox.t')];
// A page of another seat in this tab (a rejoin code redeemed) sends none of the old seat's taps.
offline('tok').act({type: 'bet', camel: 'green'}).catch(() => {});
out.other_seat = [new Live(opts('other')).resume().waiting.length, new Live(opts('tok')).resume().waiting.length];
// One that went out before the reload, its answer lost, may have been applied:
// too old, it is not sent again (the server forgets a request id after 500
// versions: it would be applied twice) and the player is told it may have been.
const online = new Live(opts('tok'));
online.start();
const sock = sockets[sockets.length - 1];
sock.greet(5);
online.act({type: 'bet', camel: 'white'}).catch(() => {});
// A PIN is never written to storage, nor sent again by a later page.
online.act({type: 'unlock', pin: '4821'}, {secret: true}).catch(() => {});
const keptNow = stored.get('tablemate.outbox.t');
out.marked_sent = JSON.parse(keptNow).kept.map((k) => k.sent === true);
out.pin_kept = keptNow.includes('4821');
later(60 * 60_000);
const hour = new Live(opts('tok'));
const old = hour.resume();
out.sent_long_ago = [old.waiting.length, old.stale, old.unsure];
hour.stop();
// Pages reloaded while still offline never reached the server: they do not count.
offline('tok').act({type: 'pass'}).catch(() => {});
const reloads = [];
for (let i = 0; i < 5; i += 1) {
  const page = new Live(opts('tok'));
  const got = page.resume();
  reloads.push(got.waiting.length);
  for (const w of got.waiting) w.done.catch(() => {});
}
out.offline_reloads = reloads;
// One the server never answers (it closes the socket on it) is sent by three pages at most.
const pages = [];
for (let i = 0; i < 4; i += 1) {
  const page = new Live(opts('tok'));
  const got = page.resume();
  pages.push([got.waiting.length, got.stale, got.unsure]);
  for (const w of got.waiting) w.done.catch(() => {});
  page.start();
  sockets[sockets.length - 1].greet(7);          // sent on the open socket, never answered
}
out.pages = pages;
// A page that leaves the table (stop) takes what waits with it.
const leaving = new Live(opts('tok'));
leaving.start();
leaving.act({type: 'pass'}).catch(() => {});
out.while_waiting = stored.has('tablemate.outbox.t');
leaving.stop();
out.after_leaving = stored.has('tablemate.outbox.t');
// Storage full: what it kept before (answered since) must not be left for the next page.
const full = new Live(opts('tok'));
full.start();
full.act({type: 'pass'}).catch(() => {});
const setItem = sessionStorage.setItem;
sessionStorage.setItem = () => { throw new Error('QuotaExceededError'); };
full.act({type: 'bet', camel: 'yellow'}).catch(() => {});
out.full = stored.has('tablemate.outbox.t');
sessionStorage.setItem = setItem;
full.stop();
// Storage that throws: the tap waits in the page as before.
globalThis.sessionStorage = {getItem: () => { throw new Error('blocked'); }, setItem: () => { throw new Error('full'); }, removeItem: () => {}};
const blocked = new Live(opts('tok'));
blocked.start();
blocked.act({type: 'pass'}).catch(() => {});
out.blocked = [blocked.queued, blocked.resume().waiting.length];
process.stdout.write(JSON.stringify(out));
"""


def test_a_tap_waiting_when_the_page_reloads_is_sent_by_the_next_page() -> None:
    got = run_node(_RELOAD)
    assert got["kept"] == ["bet"], "a quiet action is its screen's to send again"
    assert got["resumed"] == [1, 0] and got["again"] == 0
    assert got["before_heard"] == 0, "it waits for the socket's first snapshot"
    assert got["sent"] == [["bet", True]], "the same request id: the server applies it once"
    assert got["answered"] == [5, "bet"] and got["left"] is False
    assert got["other_seat"] == [0, 0], "not sent for the new seat, and forgotten"
    assert got["late"] == [0, 1, False], "older than KEEP_MS: counted, forgotten, not sent"

    assert got["marked_sent"] == [True]
    assert got["pin_kept"] is False
    assert got["sent_long_ago"] == [0, 0, 1], "it went out: not called unsent, not sent again"
    assert got["offline_reloads"] == [1, 1, 1, 1, 1], "a page that never reached the server does not count"
    assert got["pages"] == [[1, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 1]], "sent by three pages: maybe applied"
    assert got["while_waiting"] is True and got["after_leaving"] is False
    assert got["full"] is False, "a write that failed leaves no older list behind"
    assert got["blocked"] == [1, 0]
