// Camel Up (카멜업, 2nd edition) on the phone: the phone is the pyramid. The
// board mirror, the dice tents, my turn's actions, leg and race results, the
// odds panel and the host's board correction. The server's view says what this
// phone may see and `legal` what it may do; this module only draws and sends.

import { h } from '../ui.js';
import { Voice, voiceSwitch } from '../voice.js';
import { actionsBody } from './camelup/actions.js';
import { boardCard } from './camelup/board.js';
import { dieWords, ensureCss, place } from './camelup/common.js';
import { fixCard } from './camelup/fix.js';
import { legMoment } from './camelup/moment.js';
import { oddsPanel } from './camelup/odds.js';
import { paperCardsCard } from './camelup/paper.js';
import { Shake, rollControl, tentsCard } from './camelup/pyramid.js';
import { legResult, myCards, pilesReveal, playersCard, raceHead, standings } from './camelup/results.js';
import { scorePad } from './camelup/pad.js';
import { STRINGS } from './camelup/strings.js';
import { gameRoot, markTurn, partCache } from './shared.js';

ensureCss();

const FRESH_MS = 2500;
/** Which `legal` type each open choice needs. */
const SEL_TYPE = { bet: 'leg_bet', tile: 'spectator', finish: 'finish_bet', partner: 'partner' };

/**
 * @typedef {import('../games-loader.js').GameModule} GameModule
 * @typedef {import('./camelup/actions.js').Sel} Sel
 * @typedef {{die: string|null, value: number|null, color: string|null}} ManualRoll the physical die being entered
 * @typedef {{open: boolean, space: number, camels: string[], touched: boolean}} FixForm the host's board correction
 */

/**
 * The headline: whose turn, the leg, dice out, my money.
 * @param {import('./camelup/common.js').Ctx} ctx
 * @param {any} snap
 */
function statusBar(ctx, snap) {
  const v = snap.view;
  const full = v.mode !== 'pyramid';
  // The race waits for the host's record of the face-down cards: the host's turn.
  const recording = v.phase === 'paper_cards';
  const mine = full && (recording ? mayRecord(snap) : v.current_player !== null && v.current_player === ctx.me);
  let title;
  if (v.phase === 'over') title = ctx.t('status.race_over');
  else if (recording) title = mine ? ctx.t('status.record_cards') : ctx.t('status.host_records', { name: ctx.name(snap.host) });
  else if (!full) title = v.phase === 'leg_over' ? ctx.t('status.leg_over', { leg: v.leg }) : ctx.t('status.pyramid_mode');
  else if (mine) title = ctx.t('status.your_turn');
  else title = v.current_player ? ctx.t('status.turn', { name: ctx.name(v.current_player) }) : ctx.t('status.watch');
  // Once the race has ended (the face-down cards being recorded, or over), the
  // leg's dice and the pyramid's tickets count nothing any more (item 8).
  const racing = v.phase !== 'over' && !recording;
  const chips = [
    h('span', { class: 'chip cm-chip', text: ctx.t('status.leg', { leg: v.leg }) }),
    racing ? h('span', { class: 'chip cm-chip', text: ctx.t('status.dice_out', { n: (v.tents || []).length }) }) : null,
  ];
  if (full && racing) chips.push(h('span', { class: 'chip cm-chip', text: ctx.t('status.tickets_left', { n: v.pyramid_tickets_left }) }));
  if (full && v.me) chips.push(h('span', { class: 'chip cm-chip me', dataset: { money: String(v.me.money) }, text: ctx.t('status.my_money', { n: v.me.money }) }));
  // Until the first die of a new leg: what the last leg paid, in one line.
  const report = full && v.phase !== 'over' && !(v.tents || []).length ? v.last_leg : null;
  const gains = report && report.players.every((/** @type {any} */ p) => typeof p.new === 'number')
    ? report.players.map((/** @type {any} */ p) => `${ctx.name(p.player)} ${p.new - p.old < 0 ? '−' : '+'}${Math.abs(p.new - p.old)}`).join(' · ')
    : null;
  return h('div', { class: `game-status cm-status ${mine ? 'my-turn' : ''}`, dataset: { phase: v.phase, current: v.current_player || '' } },
    h('h2', { id: 'cm-status-title', class: 'cm-status-title', text: title }),
    h('div', { class: 'chips cm-chips' }, ...chips),
    gains ? h('p', { class: 'cm-leg-gains', text: ctx.t('status.leg_gains', { leg: report.leg, gains }) }) : null);
}

/** Whether this phone is to record the face-down cards (the host's `legal` holds it). @param {any} snap */
function mayRecord(snap) {
  return (snap.legal || []).some((/** @type {any} */ a) => a.type === 'paper_cards');
}

export default /** @satisfies {GameModule} */ ({
  strings: STRINGS,
  scorePad,

  /** My turn: the view names me as the current player (full mode only; the
   * host's board correction and a partner's copy choice are not turns), or
   * the race waits for my record of the face-down cards. */
  moment: legMoment,

  yourTurn(snap) {
    if (snap.view && snap.view.phase === 'paper_cards') return mayRecord(snap);
    return Boolean(snap.view && snap.view.current_player && snap.view.current_player === snap.me);
  },

  /**
   * @param {HTMLElement} el
   * @param {import('../games-loader.js').GameContext} ctx
   * @returns {import('../games-loader.js').GameInstance}
   */
  mount(el, ctx) {
    const root = gameRoot(el, 'camelup');
    /** @type {any} */
    let snap = null;
    let alive = true;
    /** The die shown as "just rolled": from the tents, my own roll's events, or the history. */
    const last = {
      /** @type {import('./camelup/common.js').Tent|null} */ tent: null,
      /** @type {string|null} */ text: null,
      fresh: false,
      /** version it belongs to */ version: -1,
    };
    let legOpen = false;
    /** @type {number|undefined} */
    let freshTimer;
    // The phone that rolls a die says it aloud ("파랑 3"), unless muted.
    const voice = new Voice();
    const speaker = voiceSwitch(ctx, 'camelup', { voice });

    const ui = {
      busy: false,
      /** @type {Sel|null} */
      sel: null,
      /** @type {ManualRoll} */
      manual: { die: null, value: null, color: null },
      /** @type {FixForm} */
      fix: { open: false, space: 1, camels: [], touched: false },
      shake: /** @type {Shake} */ (/** @type {unknown} */ (null)),
      /** @type {import('./camelup/paper.js').Picks} the host's record of face-down cards */
      paper: { winner: [], loser: [] },
      /** @param {Sel|null} s */
      select(s) {
        ui.sel = s;
        render();
        // The confirm that just appeared may sit under the fixed bottom bar: bring
        // it up (the page's scroll padding keeps it clear of the bar).
        const confirm = s ? el.querySelector('.cm-confirm') : null;
        if (confirm) confirm.scrollIntoView({ block: 'nearest' });
      },
      /** @param {Partial<ManualRoll>} m */
      setManual(m) { Object.assign(ui.manual, m); render(); },
      /** @param {Partial<FixForm>} f */
      setFix(f) { Object.assign(ui.fix, f, { touched: true }); render(); },
      /**
       * Sends an action; resolves with the server's answer, or null when it was
       * refused (the platform has shown why) or another one is on its way.
       * @param {Record<string, unknown>} action
       * @returns {Promise<any>}
       */
      act(action) {
        if (ui.busy) return Promise.resolve(null);
        ui.busy = true;
        render();
        return ctx.act(/** @type {{type: string}} */ (action)).then((res) => res || {}, () => null).then((res) => {
          ui.busy = false;
          if (alive) render();
          return res;
        });
      },
      roll() {
        if (!snap || !(snap.legal || []).some((/** @type {any} */ a) => a.type === 'pyramid')) return;
        const before = snap.version;
        const view = snap.view;
        // Inside the tap: iOS lets a page speak only after a gesture.
        if (speaker.on()) voice.prime();
        ui.act({ type: 'pyramid' }).then((res) => {
          if (!res || !Array.isArray(res.events)) return;
          const rolled = res.events.find((/** @type {any} */ e) => e && e.type === 'die_rolled');
          if (rolled && alive) speaker.say(dieWords(ctx, view, rolled));
          ownRoll(res, before);
        });
      },
    };
    ui.shake = new Shake(() => ui.roll(), () => render());

    /**
     * My own roll's events carry the die even when it ended the leg (the next
     * leg's view has empty tents): show it from there.
     * @param {{version: number, events: any[]}} res @param {number} before
     */
    function ownRoll(res, before) {
      const rolled = res.events.find((e) => e && e.type === 'die_rolled');
      const ended = res.events.some((e) => e && e.type === 'leg_started');
      if (!rolled || !ended || res.version < last.version || res.version <= before) return;
      showDie({ die: rolled.die, value: rolled.value, color: rolled.color, camel: rolled.camel }, null, res.version, true);
    }

    /**
     * @param {import('./camelup/common.js').Tent|null} tent
     * @param {string|null} text
     * @param {number} version
     * @param {boolean} fresh
     */
    function showDie(tent, text, version, fresh) {
      last.tent = tent;
      last.text = text;
      last.version = version;
      last.fresh = fresh;
      clearTimeout(freshTimer);
      if (fresh) {
        ctx.vibrate([60, 40, 160]);
        freshTimer = window.setTimeout(() => { last.fresh = false; if (alive) render(); }, FRESH_MS);
      }
      if (alive) render();
    }

    /** @param {any} s */
    function noteSnapshot(s) {
      const v = s.view || {};
      const prev = snap && snap.view && snap.view.phase ? snap.view : null;
      const tents = v.tents || [];
      if (!prev) {
        if (tents.length) showDie(tents[tents.length - 1], null, s.version, false);
      } else if (v.leg === prev.leg && tents.length > (prev.tents || []).length) {
        showDie(tents[tents.length - 1], null, s.version, true);
      } else if (v.leg === prev.leg + 1 && v.mode !== 'pyramid' && tents.length === 0) {
        // The roll that ended a leg: the tents are cleared, `last_roll` keeps it.
        legOpen = true;
        if (last.version < s.version && v.last_roll) showDie(v.last_roll, null, s.version, true);
      } else if (v.leg !== prev.leg || tents.length < (prev.tents || []).length) {
        // Next leg (pyramid mode) or an undo: no die to celebrate.
        if (tents.length) showDie(tents[tents.length - 1], null, s.version, false);
        else { last.tent = null; last.text = null; last.fresh = false; }
      }
      if (v.phase === 'over' && prev && prev.phase !== 'over') legOpen = true;
      // A choice that is no longer possible (the turn moved on) is dropped.
      const legal = s.legal || [];
      const sel = ui.sel;
      if (sel && !legal.some((/** @type {any} */ a) => a.type === SEL_TYPE[sel.kind])) ui.sel = null;
      if (!legal.some((/** @type {any} */ a) => a.type === 'pyramid_manual')) ui.manual = { die: null, value: null, color: null };
      if (!ui.fix.touched && v.board) ui.fix.camels = [...v.board.spaces[ui.fix.space - 1].camels];
    }

    const odds = oddsPanel(ctx);

    const part = partCache();

    function render() {
      if (!snap || !snap.view || !snap.view.phase) return;
      const v = snap.view;
      const legal = snap.legal || [];
      const full = v.mode !== 'pyramid';
      const over = v.phase === 'over';
      const names = snap.players.map((/** @type {any} */ p) => p.name);
      const base = [ctx.lang, ctx.me, names];
      const busy = [...base, ui.busy];
      const tiles = ui.sel && ui.sel.kind === 'tile' ? legal.filter((/** @type {any} */ a) => a.type === 'spectator').map((/** @type {any} */ a) => a.space) : null;
      const tileSel = ui.sel && ui.sel.kind === 'tile' ? ui.sel.space : null;
      const lastKey = [last.tent, last.text, last.fresh];

      const status = part('status', [base, v.phase, v.mode, snap.host, mayRecord(snap), v.current_player, v.leg, (v.tents || []).length, v.pyramid_tickets_left, v.me && v.me.money, v.last_leg], () => statusBar(ctx, snap));
      const board = part('board', [base, v.board, v.colours, tiles, tileSel], () => boardCard(ctx, v, {
        targets: tiles ? new Set(tiles) : null,
        selected: tileSel,
        onPick: (space) => {
          const sel = /** @type {any} */ (ui.sel);
          const keep = sel && sel.side && legal.some((/** @type {any} */ a) => a.type === 'spectator' && a.space === space && a.side === sel.side);
          ui.select({ kind: 'tile', space, side: keep ? sel.side : null });
        },
      }));
      const tentsEl = part('tents', [base, v.tents, v.pyramid, v.colours, lastKey], () => tentsCard(ctx, v, last));
      const rollLegal = legal.filter((/** @type {any} */ a) => ['pyramid', 'pyramid_manual', 'next_leg'].includes(a.type));
      const roll = over ? null : part('roll', [busy, rollLegal, v.phase, v.mode, v.colours, ui.shake.state, ui.manual, snap.me, Boolean(ui.sel)], () => rollControl(ctx, snap, ui));
      const host = snap.me !== null && snap.me === snap.host;
      const fix = !over && host && legal.some((/** @type {any} */ a) => a.type === 'set_stack')
        ? part('fix', [busy, v.board, v.colours, ui.fix.space, ui.fix.camels], () => fixCard(ctx, v, ui))
        : null;

      /** @type {Array<Node|null>} */
      const parts = [];
      if (!full) {
        parts.push(over ? part('race', [base, v.result, v.colours], () => raceHead(ctx, v)) : status, board, tentsEl);
        if (roll) parts.push(part('roll-card', [], () => h('section', { class: 'card cm-roll-card' })));
      } else if (over) {
        parts.push(
          part('race', [base, v.result, v.colours], () => raceHead(ctx, v)),
          part('final-leg', [base, v.last_leg, v.colours], () => legResult(ctx, v, { final: true })),
          part('piles', [base, v.result, v.colours], () => pilesReveal(ctx, v)),
          part('standings', [base, v.result], () => standings(ctx, snap)),
          board, tentsEl);
      } else {
        const leg = part('leg', [base, v.last_leg, v.colours, legOpen], () => {
          const d = legResult(ctx, v, { open: legOpen });
          if (d) d.addEventListener('toggle', () => { if (d.isConnected) legOpen = d.hasAttribute('open'); });
          return d;
        });
        const mine = v.current_player !== null && v.current_player === ctx.me;
        const card = part('actions-card', [], () => h('section', { class: 'card cm-actions', 'aria-labelledby': 'cm-actions-title' }));
        card.classList.toggle('my-turn', mine);
        const body = part('actions', [busy, legal, ui.sel, v.tickets, v.players, v.current_player, v.partnerships, v.colours], () => actionsBody(ctx, snap, ui));
        place(card, /** @type {Node[]} */ ([...body, roll, roll && snap.me !== null ? speaker.el : null].filter(Boolean)));
        // The leg result under the actions: the roll stays where the thumb is.
        // The big screen (no seat) only watches: no actions at all.
        // The race is over but face-down cards wait for the host's record.
        const paper = v.phase === 'paper_cards'
          ? part('paper', [busy, legal, v.paper_cards, v.colours, JSON.stringify(ui.paper)], () => paperCardsCard(ctx, snap, ui.paper, ui, render))
          : null;
        // This phone's turn: the board, the last die and the actions come into
        // view together (screens/table.js: turnInView).
        // (The roll ends it: the shake and voice switches below it are settings.)
        for (const el of [board, tentsEl, card]) markTurn(el, mine && !paper ? 'turn' : null);
        if (roll) roll.toggleAttribute('data-turn-end', mine && !paper);
        parts.push(status, paper, board, tentsEl, snap.me === null || paper ? null : card, leg);
      }
      if (!full && roll) {
        const card = part('roll-card', [], () => h('section', { class: 'card cm-roll-card' }));
        place(card, /** @type {Node[]} */ ([roll, snap.me !== null ? speaker.el : null].filter(Boolean)));
      }
      speaker.render();
      if (!over) parts.push(odds.el);
      if (full) {
        parts.push(
          part('players', [base, v.players, snap.players.map((/** @type {any} */ p) => p.money), v.current_player, v.finish_piles, v.colours], () => playersCard(ctx, snap)),
          part('mine', [base, v.me, v.colours], () => myCards(ctx, v)));
      }
      parts.push(fix);
      place(root, /** @type {Node[]} */ (parts.filter(Boolean)));
      // Which snapshot is on screen (for the big screen and tests to wait on).
      root.dataset.version = String(snap.version);
    }

    const offLang = ctx.onLangChange(() => { odds.relabel(); render(); });
    return {
      update(s) {
        noteSnapshot(s);
        snap = s;
        render();
        odds.update(s);
      },
      destroy() {
        alive = false;
        voice.destroy();
        clearTimeout(freshTimer);
        ui.shake.stop();
        odds.destroy();
        offLang();
        el.replaceChildren();
      },
    };
  },
});
