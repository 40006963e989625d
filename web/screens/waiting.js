// Who the table waits for (issue 33). A line in the table's bottom bar, in
// sight wherever the screen is scrolled, names the seats the game waits for
// (the view's `waiting`, from the server: no rules here). With the host's
// reminder on, once a seat has been waited for that long every phone shows
// for how long, and the late phone rings (a chime unless its game's voice is
// off, and a vibration). The host's sheet above the line offers what the
// server allows for each waited-for or paused seat: go on without it (the
// engine's `skip` templates in `legal`, or in `held` until the seat's
// `step_in` time, never for a seat choosing again after an undo), enter for
// it (`phoneless`: its phone pauses; only once that phone has no live socket)
// and hand it back (`phone_back`, or why not yet: `paper_until`). Every phone
// announces a step the host took for another seat (`step`) as it happens.

import { has, t } from '../i18n.js';
import { serverNow } from '../snapshot.js';
import { armChime, chime } from '../chime.js';
import { confirmButton, h, toast, vibrate } from '../ui.js';
import { voiceOff } from '../voice.js';

/** How often the late phone rings for one wait: at the reminder's time, then at twice and three times it. */
export const RINGS = 3;

/**
 * How many rings a wait of `seconds` has earned with the reminder at `every` seconds (0: off).
 * @param {number} seconds @param {number} every
 */
export function ringsDue(seconds, every) {
  if (!every || seconds < every) return 0;
  return Math.min(RINGS, Math.floor(seconds / every));
}

/**
 * A wait as a clock: "0:45", "12:03".
 * @param {number} seconds
 */
export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * How long (s) the game has waited for `pid` at the server's time `now` (ms);
 * null when the snapshot does not say since when.
 * @param {import('../net.js').Snapshot} snap @param {string} pid @param {number} now
 */
export function waitedFor(snap, pid, now) {
  const since = snap.waiting_since && snap.waiting_since[pid];
  return typeof since === 'number' ? Math.max(0, now / 1000 - since) : null;
}

/**
 * The game's own word for `key` where it has one ("count Bo's vote as Yes"), else the platform's.
 * @param {string} game @param {string} key
 */
function gameKey(game, key) {
  return game && has(`${game}.${key}`) ? `${game}.${key}` : key;
}

/**
 * @param {import('./session.js').Session} session
 * @param {(pid: string) => string} name a seat's name
 */
export function waitingBar(session, name) {
  const names = h('span', { class: 'waiting-names' });
  const manage = /** @type {HTMLButtonElement} */ (h('button', {
    type: 'button', class: 'stall-manage', t: 'stall.manage', hidden: true,
    'aria-expanded': 'false', 'aria-controls': 'stall-sheet',
  }));
  const text = h('p', { class: 'waiting-text', role: 'status' },
    h('span', { class: 'waiting-label', t: 'stall.waiting_for' }), ' ', names);
  const line = h('div', { class: 'waiting-line', hidden: true }, text, manage);
  const rows = h('div', { class: 'stall-seats' });
  const close = h('button', { type: 'button', t: 'common.close' });
  const sheet = h('div', { class: 'stall-sheet', id: 'stall-sheet', role: 'group', 'aria-labelledby': 'stall-title', hidden: true },
    h('h2', { id: 'stall-title', t: 'stall.title' }), rows, h('div', { class: 'row' }, close));
  /** @type {import('../net.js').Snapshot|null} */
  let snap = null;
  let timer = 0;
  /** The ringing of this phone's current wait: which wait (its start), and how often it rang. */
  let rung = { since: 0, n: 0 };
  /** The version of the last host's step this phone announced. */
  let announced = 0;
  /** Seats whose skip the sheet shows as held, to redraw it when their time comes. */
  let heldShown = new Set();
  armChime();

  const open = (/** @type {boolean} */ on) => {
    sheet.hidden = !on;
    manage.setAttribute('aria-expanded', String(on));
    if (on) renderSheet();
    schedule();
  };

  /** A clock runs only while someone is waited for and a time shows: the
   * reminder's, or the host's sheet. */
  function schedule() {
    const ticking = waiting().length > 0 && ((snap && snap.reminder) || !sheet.hidden);
    if (ticking && !timer) timer = window.setInterval(tick, 1000);
    else if (!ticking && timer) { clearInterval(timer); timer = 0; }
  }
  manage.addEventListener('click', () => open(sheet.hidden === true));
  close.addEventListener('click', () => { open(false); manage.focus(); });

  const isHost = () => !!snap && !session.spectator && snap.me !== null && snap.me === snap.host;
  const waiting = () => /** @type {string[]} */ ((snap && snap.status === 'playing' && snap.view && snap.view.waiting) || []);
  /** Seats the host's sheet is about: those waited for and those paused, in seat order, but the host's own. */
  const stalled = () => {
    if (!snap) return [];
    const wait = new Set(waiting());
    return snap.players.filter((p) => p.id !== snap?.me && (wait.has(p.id) || p.paused === true));
  };

  /** @param {{type: string, [k: string]: unknown}} action */
  async function act(action) {
    try {
      await session.act(action);
    } catch { /* shown by session.act */ }
  }

  function renderLine() {
    if (!snap) return;
    const seats = waiting();
    const every = snap.reminder || 0;
    const now = serverNow();
    names.replaceChildren(...seats.flatMap((pid, i) => {
      // A paused or sealed phone's seat is waited for, but not from this phone: its name.
      const mine = pid === snap?.me && !snap?.paused && !snap?.sealed;
      const waited = snap ? waitedFor(snap, pid, now) : null;
      const late = every > 0 && waited !== null && waited >= every;
      return [...(i ? [', '] : []), h('span', { class: `waiting-seat${mine ? ' mine' : ''}${late ? ' late' : ''}`, 'data-player': pid },
        mine ? t('stall.you') : name(pid),
        late && waited !== null ? h('span', { class: 'waiting-time', text: ` ${clock(waited)}` }) : null)];
    }));
    manage.hidden = !isHost() || stalled().length === 0;
    // The host's button stays while a seat is paused, even when nobody is waited for.
    text.hidden = seats.length === 0;
    line.hidden = seats.length === 0 && manage.hidden;
    line.classList.toggle('mine', !!snap.me && seats.includes(snap.me) && !snap.paused && !session.spectator);
    if (manage.hidden && !sheet.hidden) open(false);
  }

  /** The late phone rings at the reminder's time, and again twice as long, three times at most. */
  function ring() {
    if (!snap || session.spectator || !snap.me || snap.paused || !waiting().includes(snap.me)) return;
    const since = (snap.waiting_since && snap.waiting_since[snap.me]) || 0;
    if (rung.since !== since) rung = { since, n: 0 };
    const waited = waitedFor(snap, snap.me, serverNow());
    const due = waited === null ? 0 : ringsDue(waited, snap.reminder || 0);
    if (due <= rung.n) return;
    rung.n = due;
    line.dataset.rung = String(due);
    if (!voiceOff(snap.game)) chime();
    vibrate([300, 150, 300, 150, 300]);
    toast(t('stall.ring_toast'));
  }

  function tick() {
    renderLine();
    ring();
    if (!sheet.hidden) {
      if ([...heldShown].some((pid) => mayStepIn(pid))) renderSheet();
      else renderTimes();
    }
  }

  /** When (ms, the server's clock) the host may step in for `pid`; null: never now. */
  const stepIn = (/** @type {string} */ pid) => {
    const at = snap && snap.step_in && snap.step_in[pid];
    return typeof at === 'number' ? at * 1000 : null;
  };
  const mayStepIn = (/** @type {string} */ pid) => {
    const at = stepIn(pid);
    return at !== null && serverNow() >= at;
  };

  /** Every phone says so when the host steps in for another seat (its version's snapshot carries it). */
  function announce() {
    const step = snap && snap.step;
    if (!snap || !step || step.v !== snap.version || step.v <= announced) return;
    announced = step.v;
    if (has(`stall.step.${step.type}`)) toast(t(`stall.step.${step.type}`, { host: name(step.by), name: name(step.seat) }));
  }

  /** The sheet's clocks only, every second (its buttons keep their armed confirms). */
  function renderTimes() {
    if (!snap) return;
    const now = serverNow();
    for (const el of rows.querySelectorAll('[data-waited]')) {
      const pid = /** @type {HTMLElement} */ (el).dataset.waited || '';
      const waited = waitedFor(snap, pid, now);
      el.textContent = waited === null ? t('stall.waiting_now') : t('stall.waiting', { time: clock(waited) });
    }
    for (const el of rows.querySelectorAll('[data-step-in]')) {
      const pid = /** @type {HTMLElement} */ (el).dataset.stepIn || '';
      const at = stepIn(pid);
      el.textContent = at === null ? '' : t('stall.skip_in', { name: name(pid), time: clock((at - now) / 1000) });
    }
  }

  function renderSheet() {
    if (!snap || !isHost()) return;
    const s = snap;
    const game = s.game;
    const wait = new Set(waiting());
    const until = /** @type {Record<string, string>} */ ((s.view && s.view.paper_until) || {});
    heldShown = new Set();
    rows.replaceChildren(...stalled().map((p) => {
      const nm = p.name;
      const tools = h('div', { class: 'row wrap' });
      const notes = [];
      const held = (s.held || []).some((a) => a.type === 'skip' && a.seat === p.id);
      // A vote sealed on a phone that is gone at the reveal: skip withdraws it (issue 38).
      const election = /** @type {any} */ (s.view && s.view.election);
      const sealedKey = election && (election.opening || []).includes(p.id) ? 'stall.skip_sealed' : 'stall.skip';
      if (s.legal.some((a) => a.type === 'skip' && a.seat === p.id) || (held && mayStepIn(p.id))) {
        tools.append(confirmButton({
          key: `skip:${p.id}`, t: gameKey(game, sealedKey), confirm: gameKey(game, `${sealedKey}_confirm`), tp: { name: nm },
          onConfirm: () => { act({ type: 'skip', seat: p.id }); },
        }));
      } else if (held) {
        // The rules would go on without it, but the seat has not been waited for long enough yet.
        heldShown.add(p.id);
        tools.append(h('button', { type: 'button', disabled: true, t: gameKey(game, sealedKey), tp: { name: nm } }));
        notes.push(h('p', { class: 'hint stall-step-in', 'data-step-in': p.id }));
      }
      const reopened = (s.reopened || []).includes(p.id);
      if (reopened) notes.push(h('p', { class: 'hint stall-reopened', t: 'stall.reopened', tp: { name: nm } }));
      if (p.phone !== false && s.status === 'playing' && !reopened) {
        if (p.connected === true) {
          notes.push(h('p', { class: 'hint stall-live', t: 'stall.phone_live', tp: { name: nm } }));
        } else {
          tools.append(confirmButton({
            key: `pause:${p.id}`, t: 'stall.pause', confirm: 'stall.pause_confirm', tp: { name: nm },
            onConfirm: () => { act({ type: 'phoneless', player: p.id }); },
          }));
        }
      }
      let why = null;
      if (p.paused) {
        const code = until[p.id];
        const may = s.status !== 'playing' || s.legal.some((a) => a.type === 'set_phone' && a.seat === p.id);
        if (may || !code) {
          tools.append(confirmButton({
            key: `back:${p.id}`, t: 'stall.hand_back', confirm: 'stall.hand_back_confirm', tp: { name: nm }, class: 'primary',
            onConfirm: () => { act({ type: 'phone_back', player: p.id }); },
          }));
        } else {
          tools.append(h('button', { type: 'button', disabled: true, t: 'stall.hand_back', tp: { name: nm } }));
          why = h('p', { class: 'hint stall-until', t: gameKey(game, `stall.until.${code}`), tp: { name: nm } });
        }
      }
      const state = wait.has(p.id)
        ? h('span', { class: 'stall-state', 'data-waited': p.id })
        : h('span', { class: 'stall-state', t: 'stall.paused_seat', tp: { name: nm } });
      return h('section', { class: 'stall-seat', 'data-player': p.id },
        h('h3', null, h('span', { class: 'seat-name', text: nm }), ' ', state), tools, ...notes, why);
    }));
    renderTimes();
  }

  return {
    line,
    sheet,
    /** @param {import('../net.js').Snapshot} s */
    update(s) {
      snap = s;
      renderLine();
      if (!sheet.hidden) renderSheet();
      ring();
      announce();
      schedule();
    },
    /** The language changed: the names of "you" and the sheet's texts. */
    relabel() {
      renderLine();
      if (!sheet.hidden) renderSheet();
    },
    destroy() {
      clearInterval(timer);
      timer = 0;
    },
  };
}
