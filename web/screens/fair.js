// Checkable dice and sealed choices on the phone (docs/fairness.md): this
// phone's part of every draw (its hash chain, fair-chain.js), the open scope's 4 words to
// compare aloud, and the check of the table's proof each time something is
// revealed, with a mark per leg or round for the history and the result sheet.
// No game rules: it checks what the proof says, against what this phone saw.
// fairness.js and words.js come with the table screens: the lobby anchors, the
// table shows the words and checks the start's reveal at once (the word lists
// themselves load on first use).

import { CheckUnavailable, checkReady } from '../fairness.js';
import { getLang, has, t, translateElement } from '../i18n.js';
import { api } from '../net.js';
import { h } from '../ui.js';
import { verifyProof } from '../rules.js';
import { shownHashes } from './fair-kept.js';
import { phoneChain } from './fair-chain.js';
import { phrase } from '../words.js';

/**
 * @typedef {NonNullable<import('../net.js').Snapshot['fair']>} FairView
 * @typedef {{status: 'ok'|'open'|'mismatch'|'server_only', code: string,
 *   where: {scope?: string, index?: number, draw?: number, seal?: string}}} Line
 * @typedef {{game: number, round: number, kind?: string|null, seat?: string}} Place
 * @typedef {{lines: Line[], first: Line|null, groups: Map<string, 'ok'|'bad'|'server'>,
 *   places: Map<string, Place>, checked: number, unavailable?: boolean}} Checked
 * @typedef {{
 *   update: (snap: import('../net.js').Snapshot, canSeed: boolean, heard?: number|null) => void,
 *   result: () => Checked|null,
 *   mark: (game: number, round: number) => HTMLElement|null,
 *   problem: (game: string, name: (pid: string) => string) => string|null,
 *   onChange: (fn: () => void) => () => void,
 *   missed: () => number,
 *   leftOut: () => number,
 *   exported: () => Record<string, unknown>,
 * }} FairTable
 */

/**
 * One table's fair dice, for the whole visit (lobby and table alike).
 * @param {string} id the table
 * @param {() => string|null} token this phone's seat token (null: a spectator)
 * @param {(action: {type: string, [k: string]: unknown}) => Promise<unknown>} send sends an action quietly
 * @returns {FairTable}
 */
export function fairTable(id, token, send) {
  /** What this phone was shown, by label: a commitment or a seal's hash never
   * changes (kept across reloads: a new secret with a matching commitment after
   * a reload is still caught). */
  const seen = shownHashes(id);
  /** @type {Line[]} labels whose hash or commitment the server showed otherwise later */
  const changed = [];
  /** This phone's hash chain: its link for every draw it takes part in. */
  const chain = phoneChain(id, send);
  /** @type {Checked|null} */
  let checked = null;
  let wanted = 0;
  let running = false;
  /** Proof fetches failed in a row (flaky Wi-Fi): retried a few times on a timer. */
  let failures = 0;
  /** @type {Set<() => void>} */
  const listeners = new Set();
  const notify = () => { for (const fn of [...listeners]) fn(); };
  chain.onMissed(notify);

  /** @param {FairView} fair */
  function remember(fair) {
    const shown = [...fair.open.map((s) => [s.scope, s.commitment]), ...fair.sealed.map((s) => [s.seal, s.hash])];
    for (const [label, hash] of shown) {
      const before = seen.get(label);
      if (before === undefined) seen.set(label, hash);
      else if (before !== hash && !changed.some((l) => l.where.scope === label || l.where.seal === label)) {
        const where = fair.open.some((s) => s.scope === label) ? { scope: label } : { seal: label };
        changed.push({ status: 'mismatch', code: 'commitment_changed', where });
      }
    }
  }

  async function check() {
    if (running) return;
    running = true;
    try {
      while (checked === null || checked.checked !== wanted) {
        const target = wanted;
        if (!(await checkReady())) {
          checked = { lines: [], first: null, groups: new Map(), places: new Map(), checked: target, unavailable: true };
          break;
        }
        const proof = await api(`/api/tables/${encodeURIComponent(id)}/proof`, { token: token() });
        checked = await judge(proof, target);
        failures = 0;
        notify();
      }
    } catch {
      // The network or the proof failed: try again shortly (a finished game
      // sends no next snapshot to try on), and with every next snapshot.
      failures += 1;
      if (failures <= 4) setTimeout(() => { check(); }, 2000 * failures);
    } finally {
      running = false;
    }
    notify();
  }

  /**
   * @param {any} proof @param {number} target
   * @returns {Promise<Checked>}
   */
  async function judge(proof, target) {
    /** @type {Line[]} */
    let lines;
    try {
      // With the games' draw schedules and the log's seeds, as the CLI checks.
      lines = (await verifyProof(proof)).lines;
    } catch (e) {
      if (e instanceof CheckUnavailable) throw e;
      lines = [{ status: 'mismatch', code: 'bad_proof', where: {} }];
    }
    /** @type {Map<string, Place>} */
    const places = new Map();
    /** @type {any[]} */
    const scopes = Array.isArray(proof && proof.scopes) ? proof.scopes : [];
    /** @type {any[]} */
    const seals = Array.isArray(proof && proof.sealed) ? proof.sealed : [];
    const version = proof && typeof proof.version === 'number' ? proof.version : null;
    lines.push(...chain.check(scopes, version));
    for (const s of scopes) {
      places.set(s.label, { game: s.game, round: s.round });
      // What the phone was shown before the reveal must be what was revealed.
      if (seen.has(s.label) && seen.get(s.label) !== s.commitment) {
        lines.push({ status: 'mismatch', code: 'commitment_changed', where: { scope: s.label } });
      }
    }
    for (const x of seals) {
      places.set(x.label, { game: x.game, round: x.round, kind: x.kind, seat: x.seat });
      if (seen.has(x.label) && seen.get(x.label) !== x.hash) {
        lines.push({ status: 'mismatch', code: 'commitment_changed', where: { seal: x.label } });
      }
    }
    lines.push(...changed);
    /** @type {Map<string, 'ok'|'bad'|'server'>} */
    const groups = new Map();
    const revealed = new Set([...scopes.filter((s) => s.secret != null).map((s) => s.label),
      ...seals.filter((x) => x.salt != null).map((x) => x.label)]);
    for (const line of lines) {
      const label = line.where.scope || line.where.seal || '';
      const place = places.get(label);
      if (!place || (line.status === 'open' && !revealed.has(label))) continue;
      const key = `${place.game}:${place.round}`;
      // A leg with a draw no phone took part in is never marked checked.
      if (line.status === 'mismatch') groups.set(key, 'bad');
      else if (line.status === 'server_only' && groups.get(key) !== 'bad') groups.set(key, 'server');
      else if (line.status === 'ok' && !groups.has(key)) groups.set(key, 'ok');
    }
    const first = lines.find((l) => l.status === 'mismatch') || null;
    return { lines, first, groups, places, checked: target };
  }

  return {
    update(snap, canSeed, heard = null) {
      const fair = snap.fair;
      if (!fair) return;
      const before = changed.length;
      remember(fair);
      // Before the check below: a draw this phone answered, made by now, is one the proof must count.
      chain.observe(snap);
      // Issue 38: a phone's part of a draw is its chain's next link (fair-chain.js), no seed.
      if (canSeed && !snap.sealed && token()) chain.update(snap, heard);
      else if (!canSeed) chain.offline(snap);
      if ((fair.revealed > 0 || changed.length) && (fair.revealed !== wanted || changed.length !== before || !checked)) {
        wanted = fair.revealed;
        if (changed.length !== before) checked = null;
        check();
      }
    },
    result: () => checked,
    missed: () => chain.missed(),
    leftOut: () => chain.leftOut(),
    exported() {
      // For `python -m tablemate_verify <proof> --phone <this file>` (tablemate_verify/phone.py).
      return { format: 'tablemate-phone/1', table: id, ...chain.exported(), shown: Object.fromEntries(seen) };
    },
    mark(game, round) {
      const state = checked && checked.groups.get(`${game}:${round}`);
      if (!state) return null;
      if (state === 'server') return h('span', { class: 'fair-mark server', t: 'fair.server_only' });
      return state === 'ok'
        ? h('span', { class: 'fair-mark ok', t: 'fair.checked' })
        : h('span', { class: 'fair-mark bad', t: 'fair.mismatch_short' });
    },
    problem(game, name) {
      if (!checked || !checked.first) return null;
      return describe(checked.first, checked.places, game, name);
    },
    onChange(fn) {
      listeners.add(fn);
      return () => { listeners.delete(fn); };
    },
  };
}

/**
 * The first mismatch in words: where (the leg or round) and what (a draw, a
 * seat's sheet or vote, the secret, the words shown earlier).
 * @param {Line} line @param {Map<string, Place>} places @param {string} game
 * @param {(pid: string) => string} name
 */
export function describe(line, places, game, name) {
  const label = line.where.scope || line.where.seal || '';
  const place = places.get(label);
  const round = place ? place.round : 0;
  const own = `${game}.table.round`;
  const where = round > 0 ? t(has(own) ? own : 'table.round', { round }) : t('fair.where_setup');
  let what;
  if (line.code === 'commitment_changed') what = t('fair.what_commitment');
  else if (line.code === 'bad_proof') return t('fair.bad_proof');
  else if (line.where.seal) what = t(place && place.kind === 'vote' ? 'fair.what_vote' : 'fair.what_sheet', { name: name(place && place.seat ? place.seat.split('.')[0] : '') });
  else if (line.code === 'outcome_fixed') what = t('fair.what_fixed', { n: (line.where.index || 0) + 1 });
  else if (line.where.index !== undefined) what = t('fair.what_draw', { n: line.where.index + 1 });
  else if (line.code === 'own_link_missing') what = t('fair.what_own_link');
  else if (line.code === 'seed_mismatch' || line.code === 'seed_unversioned') what = t('fair.what_seeds');
  else if (line.code === 'no_schedule') what = t('fair.what_inputs');
  else what = t('fair.what_secret');
  return t('fair.mismatch', { where, what });
}

/**
 * The game's own word for a fair-dice string where it has one (King Up! and
 * Count Up have cards, votes and sheets, no dice), else the platform's.
 * @param {string} game @param {string} key
 */
export function fairKey(game, key) {
  return game && has(`${game}.${key}`) ? `${game}.${key}` : key;
}

/**
 * The table screen's line: the open scope's 4 words, tap to say what they
 * are for, and the last check's outcome (a loud warning on a mismatch).
 * @param {FairTable} fair
 * @param {() => import('../net.js').Snapshot|null} current
 * @param {(pid: string) => string} name
 */
export function fairLine(fair, current, name) {
  const words = h('span', { class: 'fair-words', lang: getLang() });
  const status = h('span', { class: 'fair-status', role: 'status' });
  const explain = h('p', { class: 'hint fair-explain', hidden: true, t: 'fair.explain' });
  const button = h('button', {
    type: 'button', class: 'fair-button', 'aria-expanded': 'false', 'aria-controls': 'fair-explain',
    onclick: () => {
      explain.hidden = !explain.hidden;
      more.hidden = explain.hidden;
      button.setAttribute('aria-expanded', String(!explain.hidden));
    },
  }, h('span', { class: 'fair-title', t: 'fair.title' }), ' ', words);
  const title = /** @type {HTMLElement} */ (button.firstChild);
  explain.id = 'fair-explain';
  const warning = h('p', { class: 'fair-warning', role: 'alert', hidden: true });
  // What this phone kept, as a file the command-line checker takes (--phone).
  const exporter = h('button', {
    type: 'button', class: 'fair-export link-button', t: 'fair.export',
    onclick: () => {
      const data = fair.exported();
      const blob = new Blob([JSON.stringify(data, null, 1)], { type: 'application/json' });
      const href = URL.createObjectURL(blob);
      h('a', { href, download: `tablemate-${data.table}-${data.seat || 'phone'}.json` }).click();
      setTimeout(() => URL.revokeObjectURL(href), 1000);
    },
  });
  const more = h('p', { class: 'hint fair-more', hidden: true }, exporter);
  const el = h('section', { class: 'fair-line', hidden: true, label: 'fair.title' }, button, status, explain, more, warning);
  let shown = '';

  async function render() {
    const snap = current();
    const game = snap ? snap.game : '';
    // Keyed, so a change of language translates them again (i18n.translateTree).
    title.dataset.i18n = fairKey(game, 'fair.title');
    el.dataset.i18nLabel = title.dataset.i18n;
    explain.dataset.i18n = fairKey(game, 'fair.explain');
    translateElement(title);
    translateElement(el);
    translateElement(explain);
    const open = snap && snap.fair ? snap.fair.open : [];
    el.hidden = !open.length && !fair.result();
    const scope = open.length ? open[open.length - 1] : null;
    const lang = getLang();
    const key = scope ? `${scope.commitment}:${lang}` : '';
    if (key !== shown) {
      shown = key;
      if (!scope) words.textContent = '';
      else {
        try {
          const said = await phrase(scope.commitment, lang);
          if (shown === key) { words.textContent = said.join(' '); words.lang = lang; }
        } catch {
          if (shown === key) words.textContent = scope.commitment.slice(0, 11);
        }
      }
    }
    // Read after the words' await: a check that ended meanwhile drew its
    // result already, and this render must not put the older one back.
    const res = fair.result();
    el.hidden = !open.length && !res;
    const problem = (snap ? fair.problem(snap.game, name) : null)
      || (fair.missed() ? t('fair.not_counted', { n: fair.missed() }) : null)
      || (fair.leftOut() ? t('fair.left_out', { n: fair.leftOut() }) : null);
    warning.hidden = !problem;
    warning.textContent = problem || '';
    const pending = snap && snap.fair ? /** @type {any} */ (snap.fair).pending : null;
    if (pending && pending.waiting.length) {
      // Whom the draw waits for, by name: a phone that never answers is seen.
      el.hidden = false;
      status.textContent = t('fair.waiting', { names: pending.waiting.map(name).join(', ') });
    } else if (!res) status.textContent = '';
    else if (res.unavailable) status.textContent = t('fair.unavailable');
    else if (!problem) status.textContent = res.groups.size ? t('fair.all_ok') : '';
    else status.textContent = '';
    status.className = `fair-status${problem ? ' bad' : ''}`;
  }

  const off = fair.onChange(render);
  return { el, render, destroy: off };
}

/**
 * The result sheet's line: every revealed outcome and sealed choice checked
 * on this phone, or the first that was not.
 * @param {FairTable} fair @param {string} game @param {(pid: string) => string} name
 * @returns {HTMLElement|null}
 */
export function fairSummary(fair, game, name) {
  const res = fair.result();
  if (!res) return null;
  if (res.unavailable) return h('p', { class: 'hint fair-summary', t: 'fair.unavailable' });
  const problem = fair.problem(game, name);
  if (problem) return h('p', { class: 'fair-warning fair-summary', role: 'alert', text: problem });
  const n = res.lines.filter((l) => l.status === 'ok').length;
  const alone = res.lines.filter((l) => l.status === 'server_only').length;
  if (alone) return h('p', { class: 'hint fair-summary server', t: 'fair.summary_server_only', tp: { n, m: alone } });
  return n ? h('p', { class: 'fair-summary ok', t: fairKey(game, 'fair.summary_ok'), tp: { n } }) : null;
}
