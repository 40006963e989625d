// My turn (full table): the five actions, each enabled only when the server's
// `legal` list has it. A choice is tapped, then confirmed, because every action
// ends the turn; the roll (the pyramid ticket) is one tap, at the bottom.

import { h } from '../../ui.js';
import { camelTag, colourName, colourWord } from './common.js';

/**
 * @typedef {import('./common.js').Ctx} Ctx
 * @typedef {{kind: 'bet', camel: string} | {kind: 'tile', space: number|null, side: string|null}
 *   | {kind: 'finish', pile: string, camel: string|null} | {kind: 'partner', with: string|null}} Sel
 * @typedef {{busy: boolean, sel: Sel|null, select: (s: Sel|null) => void,
 *   act: (a: Record<string, unknown>) => Promise<any>}} Ui
 */

/** @param {any[]} legal @param {string} type */
const ofType = (legal, type) => legal.filter((a) => a.type === type);

/**
 * The "whose turn" line and the action choices, without the roll control (the
 * caller keeps that at the bottom, built apart so it never jumps).
 * @param {Ctx} ctx @param {any} snap @param {Ui} ui
 * @returns {HTMLElement[]}
 */
export function actionsBody(ctx, snap, ui) {
  const view = snap.view;
  const legal = snap.legal || [];
  const mine = view.current_player !== null && view.current_player === ctx.me;
  const parts = [h('h2', { id: 'cm-actions-title', class: 'cm-small-title', text: ctx.t('act.title') })];
  if (!mine && view.current_player) parts.push(h('p', { class: 'hint cm-wait', text: ctx.t('act.wait', { name: ctx.name(view.current_player) }) }));
  parts.push(ticketsRow(ctx, snap, ui));
  const bets = ofType(legal, 'leg_bet');
  const sel = ui.sel;
  if (sel && sel.kind === 'bet' && bets.some((a) => a.camel === sel.camel)) {
    const value = view.tickets[sel.camel];
    parts.push(confirmRow(ctx, ui, ctx.t('bet.take', { colour: colourName(ctx, view, sel.camel), value }), 'cm-confirm-bet', { type: 'leg_bet', camel: sel.camel }));
  }
  const tiles = ofType(legal, 'spectator');
  const finishes = ofType(legal, 'finish_bet');
  const partners = ofType(legal, 'partner');
  const me = view.players.find((/** @type {any} */ p) => p.id === ctx.me);
  const tileNow = me && me.tile ? me.tile.space : null;
  const open = sel ? sel.kind : null;
  const toggles = [
    toggle(ctx, ui, 'tile', tileNow ? ctx.t('tile.move', { space: tileNow }) : ctx.t('tile.place'), tiles.length > 0, () => ({ kind: 'tile', space: null, side: null })),
    toggle(ctx, ui, 'finish', ctx.t('finish.open'), finishes.length > 0, () => ({ kind: 'finish', pile: 'winner', camel: null })),
    view.partnerships ? toggle(ctx, ui, 'partner', ctx.t('partner.open'), partners.length > 0, () => ({ kind: 'partner', with: null })) : null,
  ];
  parts.push(h('div', { class: 'cm-toggles' }, ...toggles.filter((x) => x !== null)));
  if (open === 'tile' && tiles.length) parts.push(tilePicker(ctx, view, tiles, ui));
  if (open === 'finish' && finishes.length) parts.push(finishPicker(ctx, view, finishes, ui));
  if (open === 'partner' && partners.length) parts.push(partnerPicker(ctx, partners, ui));
  const copies = ofType(legal, 'copy_choice');
  if (copies.length) parts.push(copyChoice(ctx, view, copies, ui));
  return parts;
}

/**
 * One button per colour with its top ticket; disabled when not legal.
 * @param {Ctx} ctx @param {any} snap @param {Ui} ui
 */
function ticketsRow(ctx, snap, ui) {
  const view = snap.view;
  const legal = new Set(ofType(snap.legal || [], 'leg_bet').map((a) => a.camel));
  return h('div', { class: 'cm-tickets', role: 'group', 'aria-label': ctx.t('bet.title') },
    ...view.camels.racing.map((/** @type {string} */ camel) => {
      const value = view.tickets[camel];
      const colour = colourName(ctx, view, camel);
      const chosen = Boolean(ui.sel && ui.sel.kind === 'bet' && ui.sel.camel === camel);
      return h('button', {
        type: 'button',
        class: `cm-ticket cm-c-${colourWord(view, camel)}`,
        'aria-pressed': String(chosen),
        disabled: ui.busy || !legal.has(camel),
        dataset: { camel, value: value === null ? '' : String(value) },
        onclick: () => ui.select(chosen ? null : { kind: 'bet', camel }),
      },
      // The name is the visible text ("5 blue") and the rest for a screen reader:
      // a spoken label that matches what a voice-control user reads aloud.
      h('span', { class: 'cm-ticket-value', text: value === null ? '–' : String(value) }),
      h('span', { class: 'cm-ticket-name', text: colour }),
      h('span', { class: 'sr-only', text: value === null ? ctx.t('bet.none_more') : ctx.t('bet.top_more') }));
    }));
}

/**
 * @param {Ctx} ctx @param {Ui} ui @param {'tile'|'finish'|'partner'} kind
 * @param {string} label @param {boolean} enabled @param {() => Sel} start
 */
function toggle(ctx, ui, kind, label, enabled, start) {
  const open = Boolean(ui.sel && ui.sel.kind === kind);
  return h('button', {
    type: 'button',
    class: `cm-toggle cm-open-${kind}`,
    'aria-expanded': String(open && enabled),
    disabled: ui.busy || !enabled,
    text: label,
    onclick: () => ui.select(open ? null : start()),
  });
}

/**
 * Cancel + the confirm button that sends `action`.
 * @param {Ctx} ctx @param {Ui} ui @param {string} label @param {string} cls
 * @param {Record<string, unknown>|null} action
 */
function confirmRow(ctx, ui, label, cls, action) {
  return h('div', { class: 'row cm-confirm' },
    h('button', { type: 'button', class: 'cm-cancel', text: ctx.t('cancel'), disabled: ui.busy, onclick: () => ui.select(null) }),
    h('button', {
      type: 'button',
      class: `primary ${cls}`,
      disabled: ui.busy || !action,
      text: label,
      onclick: () => { if (action) ui.act(action).then((ok) => { if (ok) ui.select(null); }); },
    }));
}

/**
 * The spaces a tile may go on (view.board.tile_spaces) as buttons (the legal ones enabled; the board highlights them
 * too), then cheering or booing.
 * @param {Ctx} ctx @param {any} view @param {any[]} tiles @param {Ui} ui
 */
function tilePicker(ctx, view, tiles, ui) {
  const sel = /** @type {{kind: 'tile', space: number|null, side: string|null}} */ (ui.sel);
  const spaces = new Set(tiles.map((a) => a.space));
  const sides = new Set(tiles.filter((a) => a.space === sel.space).map((a) => a.side));
  const grid = [];
  for (const s of view.board.tile_spaces) {
    grid.push(h('button', {
      type: 'button',
      class: 'cm-space-pick',
      'aria-pressed': String(sel.space === s),
      'aria-label': ctx.t('tile.space_button', { n: s }),
      disabled: ui.busy || !spaces.has(s),
      dataset: { space: String(s) },
      text: String(s),
      onclick: () => ui.select({ kind: 'tile', space: s, side: sel.side && tiles.some((a) => a.space === s && a.side === sel.side) ? sel.side : null }),
    }));
  }
  const ready = sel.space !== null && sel.side !== null && sides.has(sel.side);
  return h('div', { class: 'cm-picker cm-tile-picker', role: 'group', 'aria-labelledby': 'cm-tile-title' },
    h('h3', { id: 'cm-tile-title', text: ctx.t('tile.title') }),
    h('p', { class: 'hint', text: ctx.t('tile.pick') }),
    h('div', { class: 'cm-space-grid' }, ...grid),
    h('div', { class: 'cm-choice-row cm-sides' }, ...['cheer', 'boo'].map((side) => h('button', {
      type: 'button',
      class: `cm-side ${side}`,
      'aria-pressed': String(sel.side === side),
      disabled: ui.busy || (sel.space !== null && !sides.has(side)),
      dataset: { side },
      text: ctx.t(`side.${side}`),
      onclick: () => ui.select({ kind: 'tile', space: sel.space, side }),
    }))),
    confirmRow(ctx, ui,
      ready ? ctx.t('tile.confirm', { space: sel.space, side: ctx.t(`side.${sel.side}`) }) : ctx.t('tile.place'),
      'cm-confirm-tile', ready ? { type: 'spectator', space: sel.space, side: sel.side } : null));
}

/**
 * Winner or loser pile, then one of my own colours (the legal templates are
 * built from my hand only). Only this phone sees the colour.
 * @param {Ctx} ctx @param {any} view @param {any[]} finishes @param {Ui} ui
 */
function finishPicker(ctx, view, finishes, ui) {
  const sel = /** @type {{kind: 'finish', pile: string, camel: string|null}} */ (ui.sel);
  // A seat without a phone (entered for it): its card is physical and face
  // down, so the templates name no camel and only the pile is sent.
  if (finishes.every((a) => !a.camel)) return faceDownPicker(ctx, finishes, ui, sel);
  const colours = finishes.filter((a) => a.pile === sel.pile).map((a) => a.camel);
  const ready = sel.camel !== null && colours.includes(sel.camel);
  return h('div', { class: 'cm-picker cm-finish-picker', role: 'group', 'aria-labelledby': 'cm-finish-title' },
    h('h3', { id: 'cm-finish-title', text: ctx.t('finish.title') }),
    h('p', { class: 'hint', text: ctx.t('finish.secret') }),
    pileRow(ctx, ui, sel, sel.camel),
    colours.length ? h('div', { class: 'cm-choice-row cm-hand' }, ...colours.map((camel) => h('button', {
      type: 'button',
      class: `cm-card-pick cm-c-${colourWord(view, camel)}`,
      'aria-pressed': String(sel.camel === camel),
      disabled: ui.busy,
      dataset: { camel },
      text: colourName(ctx, view, camel),
      onclick: () => ui.select({ kind: 'finish', pile: sel.pile, camel }),
    }))) : h('p', { class: 'hint', text: ctx.t('finish.none') }),
    confirmRow(ctx, ui,
      ready ? ctx.t('finish.confirm', { colour: colourName(ctx, view, /** @type {string} */ (sel.camel)), pile: ctx.t(`finish.pile.${sel.pile}`) }) : ctx.t('finish.open'),
      'cm-confirm-finish', ready ? { type: 'finish_bet', pile: sel.pile, camel: sel.camel } : null));
}

/**
 * The winner/loser pile buttons of a finish bet; picking a pile keeps `camel`.
 * @param {Ctx} ctx @param {Ui} ui
 * @param {{kind: 'finish', pile: string, camel: string|null}} sel @param {string|null} camel
 */
function pileRow(ctx, ui, sel, camel) {
  return h('div', { class: 'cm-choice-row cm-piles' }, ...['winner', 'loser'].map((pile) => h('button', {
    type: 'button',
    class: `cm-pile ${pile}`,
    'aria-pressed': String(sel.pile === pile),
    disabled: ui.busy,
    dataset: { pile },
    text: ctx.t(`finish.pile.${pile}`),
    onclick: () => ui.select({ kind: 'finish', pile, camel }),
  })));
}

/**
 * A face-down card of a seat without a phone: the pile, nothing else.
 * @param {Ctx} ctx @param {any[]} finishes @param {Ui} ui
 * @param {{kind: 'finish', pile: string, camel: string|null}} sel
 */
function faceDownPicker(ctx, finishes, ui, sel) {
  const ready = finishes.some((a) => a.pile === sel.pile);
  return h('div', { class: 'cm-picker cm-finish-picker', role: 'group', 'aria-labelledby': 'cm-finish-title' },
    h('h3', { id: 'cm-finish-title', text: ctx.t('finish.title') }),
    h('p', { class: 'hint', text: ctx.t('finish.face_down_hint', { name: ctx.name(ctx.me || '') }) }),
    pileRow(ctx, ui, sel, null),
    confirmRow(ctx, ui, ctx.t('finish.face_down_confirm', { pile: ctx.t(`finish.pile.${sel.pile}`) }),
      'cm-confirm-finish', ready ? { type: 'finish_bet', pile: sel.pile } : null));
}

/**
 * The players free to partner with (6+ players).
 * @param {Ctx} ctx @param {any[]} partners @param {Ui} ui
 */
function partnerPicker(ctx, partners, ui) {
  const sel = /** @type {{kind: 'partner', with: string|null}} */ (ui.sel);
  const ready = sel.with !== null && partners.some((a) => a.with === sel.with);
  return h('div', { class: 'cm-picker cm-partner-picker', role: 'group', 'aria-labelledby': 'cm-partner-title' },
    h('h3', { id: 'cm-partner-title', text: ctx.t('partner.title') }),
    h('div', { class: 'cm-choice-row cm-partners' }, ...partners.map((a) => h('button', {
      type: 'button',
      class: 'cm-partner',
      'aria-pressed': String(sel.with === a.with),
      disabled: ui.busy,
      dataset: { player: a.with },
      text: ctx.name(a.with),
      onclick: () => ui.select({ kind: 'partner', with: a.with }),
    }))),
    confirmRow(ctx, ui,
      ready ? ctx.t('partner.confirm', { name: ctx.name(/** @type {string} */ (sel.with)) }) : ctx.t('partner.open'),
      'cm-confirm-partner', ready ? { type: 'partner', with: sel.with } : null));
}

/**
 * partnershipCopy = ask: which of my partner's tickets I copy at leg scoring
 * (any time during the leg, no turn used).
 * @param {Ctx} ctx @param {any} view @param {any[]} copies @param {Ui} ui
 */
function copyChoice(ctx, view, copies, ui) {
  const me = view.players.find((/** @type {any} */ p) => p.id === ctx.me);
  const label = (/** @type {any} */ a) => (a.choice === 'bet'
    ? ctx.t('copy.bet', { colour: colourName(ctx, view, a.camel), value: a.value })
    : ctx.t(`copy.${a.choice}`));
  const current = me && me.copy ? label(me.copy) : null;
  return h('div', { class: 'cm-picker cm-copy', role: 'group', 'aria-labelledby': 'cm-copy-title' },
    h('h3', { id: 'cm-copy-title', text: ctx.t('copy.title') }),
    current ? h('p', { class: 'hint', text: ctx.t('copy.current', { what: current }) }) : null,
    h('div', { class: 'cm-choice-row' }, ...copies.map((a) => h('button', {
      type: 'button',
      class: 'cm-copy-choice',
      'aria-pressed': String(Boolean(me && me.copy && me.copy.choice === a.choice
        && (a.choice !== 'bet' || (me.copy.camel === a.camel && me.copy.value === a.value)))),
      disabled: ui.busy,
      dataset: { choice: a.choice, camel: a.camel || '' },
      onclick: () => { const { player: _p, host: _h, ...action } = a; ui.act(action); },
    }, a.camel ? camelTag(ctx, view, a.camel, String(a.value)) : label(a)))));
}
