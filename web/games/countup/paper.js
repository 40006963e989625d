// Paper sheets: the caller pauses and taps who declared the number just
// called; after the count each player enters the bonus points printed on
// their crossed cells (the host may enter them for anyone).

import { h } from '../../ui.js';
import { actingFor, markTurn, panel } from '../shared.js';

/** @typedef {import('../../games-loader.js').GameContext} Ctx */

/** @param {any} snap @param {(a: any) => boolean} pred */
const legalHas = (snap, pred) => (snap.legal || []).some(pred);

/**
 * A phone table with seats writing on paper: on each number called, one tap
 * says such a seat raised a hand (`paper_declare`, from the screen switched to
 * "Entering for: <seat>", so it goes with `as`). The app then resolves the
 * number with the phone sheets, collisions included. On the caller's own screen
 * a line says which seat may have declared it, and where to enter it.
 * @param {Ctx} ctx
 */
export function paperHandsPanel(ctx) {
  const title = h('h2', { id: 'cu-hands-title' });
  const note = h('p', { class: 'hint' });
  const group = h('div', { class: 'cu-paper-hands', role: 'group', 'aria-labelledby': 'cu-hands-title' });
  const el = h('section', { class: 'card cu-hands', 'aria-labelledby': 'cu-hands-title' }, title, note, group);
  /** @type {any} */
  let snap = null;
  let busy = false;

  /** @param {number} number @param {string|null} as the paper seat, when not entering for it already */
  async function tap(number, as) {
    if (busy) return;
    busy = true;
    render();
    try { await ctx.act({ type: 'paper_declare', number }, as ? { as } : {}); } catch { /* shown by the platform */ }
    busy = false;
    render();
  }

  function render() {
    if (!snap) return;
    const v = snap.view;
    const n = v.count ? v.count.value : 0;
    const counting = v.sheet_mode === 'phone' && v.phase === 'count' && !v.count.end && n > 0;
    const acting = actingFor(snap);
    const asks = (/** @type {any[]} */ l) => l.some((a) => a.type === 'paper_declare' && a.number === n);
    // The caller (or any phone allowed to enter for them) answers for every
    // paper seat right here, one tap each, without switching screens.
    /** @type {Record<string, any[]>} */
    const proxies = snap.proxies || {};
    /** @type {Array<[string, any[]]>} */
    const entries = !counting ? [] : acting ? [[acting, snap.legal || []]]
      : Object.keys(proxies).map((pid) => /** @type {[string, any[]]} */ ([pid, proxies[pid] || []]));
    const open = entries.filter(([, l]) => asks(l));
    const declared = entries.filter(([pid]) => (v.sheets[pid]?.declared || []).includes(n));
    el.hidden = !open.length && !declared.length;
    if (el.hidden) return;
    title.textContent = ctx.t('hands.title', { n });
    note.textContent = ctx.t('hands.help');
    group.replaceChildren(
      ...open.map(([pid]) => h('button', {
        type: 'button', class: 'cu-hand', dataset: { player: pid }, disabled: busy,
        text: ctx.t('hands.declared', { name: ctx.name(pid), n }),
        onclick: () => { tap(n, acting ? null : pid); },
      })),
      ...declared.map(([pid]) => h('p', { class: 'cu-hand-done', dataset: { player: pid }, text: ctx.t('hands.done', { name: ctx.name(pid), n }) })));
  }

  return {
    el,
    /** @param {any} next */
    update(next) {
      snap = next;
      render();
    },
    relabel: render,
  };
}

/**
 * @param {Ctx} ctx
 */
export function declarePanel(ctx) {
  const title = h('h2', { id: 'cu-declare-title' });
  const note = h('p', { class: 'hint' });
  const group = h('div', { class: 'cu-who-declared', role: 'group', 'aria-labelledby': 'cu-declare-title' });
  const record = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-record' }));
  const el = h('section', { class: 'card cu-declare', 'aria-labelledby': 'cu-declare-title' }, title, note, group, record);
  /** @type {Set<string>} */
  const chosen = new Set();
  /** @type {Map<string, HTMLButtonElement>} */
  const buttons = new Map();
  let number = -1;
  let busy = false;
  /** @type {any} */
  let snap = null;
  let hiddenByCaller = false;

  record.addEventListener('click', async () => {
    if (!chosen.size || busy) return;
    busy = true;
    render();
    const players = snap.view.players.filter((/** @type {string} */ p) => chosen.has(p));
    try {
      await ctx.act({ type: 'declare', players });
      chosen.clear();
    } catch { /* shown by the platform */ }
    busy = false;
    render();
  });

  function render() {
    if (!snap) return;
    const v = snap.view;
    const can = v.sheet_mode === 'paper' && v.phase === 'count' && legalHas(snap, (a) => a.type === 'declare');
    el.hidden = !can || hiddenByCaller;
    if (el.hidden) return;
    const n = v.count.value;
    if (n !== number) {
      number = n;
      chosen.clear();
    }
    const d = v.count.restricted_digit;
    const banned = d !== null && d !== undefined;
    title.textContent = ctx.t('declare.title', { n });
    note.textContent = banned ? ctx.t('declare.banned', { n, d }) : ctx.t('declare.help');
    for (const p of v.players) {
      let b = buttons.get(p);
      if (!b) {
        const btn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-toggle', dataset: { player: p } }));
        btn.addEventListener('click', () => {
          if (chosen.has(p)) chosen.delete(p);
          else chosen.add(p);
          render();
        });
        buttons.set(p, btn);
        b = btn;
      }
      b.textContent = ctx.name(p);
      b.setAttribute('aria-pressed', String(chosen.has(p)));
      b.disabled = banned || busy;
    }
    // Every seat got its button in the loop above.
    const order = /** @type {HTMLButtonElement[]} */ (v.players.map((/** @type {string} */ p) => buttons.get(p)));
    if (order.some((b, i) => group.children[i] !== b) || group.children.length !== order.length) group.replaceChildren(...order);
    record.textContent = ctx.t(chosen.size > 1 ? 'declare.record_collision' : 'declare.record', { n, count: chosen.size });
    record.disabled = banned || busy || chosen.size === 0;
  }

  return {
    el,
    /** @param {any} next @param {boolean} running the count is running: hands first, then pause */
    update(next, running) {
      snap = next;
      hiddenByCaller = running;
      render();
    },
    relabel: render,
  };
}

/**
 * @param {Ctx} ctx
 */
export function bonusPanel(ctx) {
  const title = h('h2', { id: 'cu-bonus-title' });
  const intro = h('p', { class: 'hint' });
  const list = h('ul', { class: 'cu-bonus-list' });
  const el = h('section', { class: 'card cu-bonus', 'aria-labelledby': 'cu-bonus-title' }, title, intro, list);
  /** @type {Map<string, {li: HTMLElement, input: HTMLInputElement, send: HTMLButtonElement, label: HTMLElement,
   *   name: HTMLElement, state: HTMLElement, cells: HTMLElement, form: HTMLElement, filled: boolean}>} */
  const rows = new Map();
  /** @type {any} */
  let snap = null;
  let round = -1;

  /** @param {string} p */
  function row(p) {
    let r = rows.get(p);
    if (r) return r;
    const id = `cu-bonus-${p}`;
    const input = /** @type {HTMLInputElement} */ (h('input', {
      id, type: 'text', inputmode: 'numeric', pattern: '[0-9]*', maxlength: 3, autocomplete: 'off', class: 'cu-bonus-input',
    }));
    const label = h('label', { for: id });
    const send = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-bonus-send' }));
    const state = h('span', { class: 'cu-bonus-state' });
    const cells = h('p', { class: 'hint cu-bonus-cells' });
    const form = h('div', { class: 'cu-bonus-form' }, label, h('div', { class: 'row' }, input, send));
    const name = h('span', { class: 'cu-name' });
    const li = h('li', { class: 'cu-bonus-row', dataset: { player: p } },
      h('div', { class: 'cu-bonus-head' }, name, state), cells, form);
    send.addEventListener('click', async () => {
      const text = input.value.trim();
      if (!/^\d{1,3}$/.test(text)) {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return;
      }
      input.removeAttribute('aria-invalid');
      send.disabled = true;
      const points = Number(text);
      const way = how(p);
      try {
        // Entering for a seat without a phone, its own entry goes with `as`.
        await ctx.act(way === 'seat' ? { type: 'bonus', points, seat: p } : { type: 'bonus', points });
      } catch { /* shown by the platform */ }
      send.disabled = false;
    });
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); send.click(); } });
    r = { li, input, send, label, name, state, cells, form, filled: false };
    rows.set(p, r);
    return r;
  }

  /**
   * How this phone may enter `p`'s bonus: as its own (also a seat it enters
   * for, whose `me` it then is), for another seat (`seat`, the host), or not.
   * @param {string} p
   * @returns {'own'|'seat'|null}
   */
  function how(p) {
    const legal = snap.legal || [];
    if (p === snap.me && legal.some((/** @type {any} */ a) => a.type === 'bonus' && !a.seat)) return 'own';
    if (legal.some((/** @type {any} */ a) => a.type === 'bonus' && a.seat === p)) return 'seat';
    return null;
  }

  function render() {
    if (!snap) return;
    const v = snap.view;
    el.hidden = v.phase !== 'bonus' || !v.bonus;
    // This phone's own bonus still to enter is its part of the round
    // (screens/turn.js): in view as the count ends (it was scrolled off above,
    // where the phone had followed the count down).
    const own = !el.hidden && snap.me !== null && how(snap.me) === 'own' && Boolean(v.bonus[snap.me]?.pending);
    markTurn(el, own ? 'bonus' : null);
    if (el.hidden) return;
    if (v.round !== round) {
      round = v.round;
      for (const r of rows.values()) { r.input.value = ''; r.filled = false; }
    }
    title.textContent = ctx.t('bonus.title');
    intro.textContent = ctx.t('bonus.intro');
    // Me first: the row a player came for. At a phone table only the sheets on
    // paper have a bonus to enter (the app reads the phone sheets).
    const onPaper = v.sheet_mode === 'paper' ? v.players : (v.paper_sheets || []);
    const order = [...onPaper].sort((a, b) => Number(b === snap.me) - Number(a === snap.me));
    for (const p of order) {
      const r = row(p);
      const b = v.bonus[p];
      const xs = /** @type {Array<{number: number, voided: boolean}>} */ (v.sheets[p].x_cells);
      const mayEnter = how(p) !== null;
      r.cells.textContent = xs.length
        ? ctx.t('bonus.cells', { cells: xs.map((x) => (x.voided ? ctx.t('bonus.cell_voided', { n: x.number }) : `X ${x.number}`)).join(', ') })
        : ctx.t('bonus.no_cells');
      const scoring = xs.some((x) => !x.voided);
      r.name.textContent = ctx.name(p);
      r.state.textContent = !scoring ? '' : b.pending ? ctx.t('bonus.pending') : ctx.t('bonus.entered', { points: b.points });
      r.state.className = `cu-bonus-state ${b.pending ? 'waiting' : 'done'}`;
      r.form.hidden = !mayEnter;
      r.label.textContent = ctx.t(p === snap.me && !actingFor(snap) ? 'bonus.mine' : 'bonus.for', { name: ctx.name(p) });
      r.send.textContent = ctx.t(b.pending ? 'bonus.send' : 'bonus.fix');
      if (!r.filled && mayEnter) {
        // The app's guess when every cell of the round is worth the same.
        const guess = b.points !== null ? b.points : b.hint;
        if (guess !== null && guess !== undefined) r.input.value = String(guess);
        r.filled = true;
      }
    }
    const items = order.map((p) => rows.get(p)?.li);
    if (items.some((li, i) => list.children[i] !== li) || list.children.length !== items.length) {
      list.replaceChildren(.../** @type {HTMLElement[]} */ (items));
    }
  }

  return panel(el, (next) => { snap = next; }, render);
}
