// King Up! (킹업!) on the phone: the castle, my secret card, the secret vote,
// round results and score-only entry. The server's view says what this phone
// may see and `legal` what it may do; this module only draws and sends.

import { h, showError } from '../ui.js';
import { Voice, voiceSwitch } from '../voice.js';
import { missingCards, myCard } from './kingup/card.js';
import { playCastle } from './kingup/castle.js';
import { ensureCss } from './kingup/common.js';
import { roundMoment } from './kingup/moment.js';
import { finalStandings, nextRound, roundResults, rulesSummary, totalsTable } from './kingup/results.js';
import { paperPanel, paperWaiting, proxyHint } from './kingup/paper.js';
import { newEntry, scoreEntry } from './kingup/scoreonly.js';
import { scorePad } from './kingup/pad.js';
import { STRINGS } from './kingup/strings.js';
import { actingFor, gameRoot, markTurn, partCache, place, proxyWaiting } from './shared.js';
import { castVote, keptVotes, openings, sealedVote } from './kingup/sealing.js';
import { revealPanel, revealWords, voteActions, voteCount, voteHead } from './kingup/vote.js';

/** Refusals of a phone's own opening that say nothing about it: sent again shortly. */
const AGAIN = new Set(['rate_limited', 'busy', 'store_unavailable', 'internal', 'network', 'error']);

ensureCss();

/**
 * The headline: the phase, whose turn it is and who holds the crown.
 * @param {import('./kingup/common.js').Ctx} ctx
 * @param {any} snap
 */
function statusBar(ctx, snap) {
  const v = snap.view;
  const mine = v.turn !== null && v.turn === ctx.me;
  let title = ctx.t(`phase.${v.phase}`, { round: v.round });
  let sub = '';
  if (v.phase === 'placement') {
    title = mine ? ctx.t('turn.you_place') : ctx.t('turn.other_place', { name: ctx.name(v.turn) });
    const each = v.placement ? v.placement.each : 0;
    sub = ctx.t('turn.placed', { done: v.placement ? v.placement.placed[v.turn] : 0, each });
  } else if (v.phase === 'movement') {
    title = mine ? ctx.t('turn.you_move') : ctx.t('turn.other_move', { name: ctx.name(v.turn) });
  }
  const chips = [];
  if (v.play_mode === 'full' && v.turn) chips.push(h('span', { class: `chip ku-chip ${mine ? 'me' : ''}`, text: ctx.t('chip.turn', { name: ctx.name(v.turn) }) }));
  if (v.play_mode === 'full' && v.phase !== 'scored' && v.phase !== 'over') {
    chips.push(h('span', { class: 'chip ku-chip crown', text: v.crown ? ctx.t('chip.crown', { name: ctx.name(v.crown) }) : ctx.t('chip.no_crown') }));
  }
  return h('div', { class: `game-status ku-status ${mine ? 'my-turn' : ''}`, dataset: { phase: v.phase } },
    h('h2', { id: 'ku-status-title', class: 'ku-status-title', text: title }),
    sub ? h('p', { class: 'hint', text: sub }) : null,
    chips.length ? h('div', { class: 'chips ku-chips' }, ...chips) : null);
}

export default /** @satisfies {import('../games-loader.js').GameModule} */ ({
  strings: STRINGS,
  scorePad,

  /** My turn: a character to place or move, or my vote is awaited. */
  moment: roundMoment,

  yourTurn(snap) {
    return (snap.legal || []).some((a) => ['place', 'move', 'vote'].includes(a.type));
  },

  /**
   * @param {HTMLElement} el
   * @param {import('../games-loader.js').GameContext} ctx
   * @returns {import('../games-loader.js').GameInstance}
   */
  mount(el, ctx) {
    const root = gameRoot(el, 'kingup');
    /** @type {any} */
    let snap = null;
    let alive = true;
    let round = 0;
    let revealKey = '';
    let revealFresh = false;
    /** @type {number|undefined} */
    let freshTimer;
    // The reveal said aloud: by the host's phone unless it is muted (every phone
    // at once would be a chorus); any other phone may turn its voice on.
    const voice = new Voice();
    const speaker = voiceSwitch(ctx, 'kingup', { voice, defaultOn: () => Boolean(snap && snap.me !== null && snap.me === snap.host) });

    /** This phone's sealed votes (value and salt) until the reveal: made on the first snapshot. */
    /** @type {ReturnType<typeof keptVotes>|null} */
    let kept = null;
    /**
     * Openings sent, by salt: the version of the snapshot that asked (or, once
     * accepted, the version it made) and whether it is still on its way.
     * @type {Map<string, {version: number, pending: boolean}>}
     */
    const opened = new Map();
    const ui = {
      busy: false,
      /** @type {'yes'|'no'|null} what this phone sealed for the seat shown (its own vote) */
      sealed: /** @type {'yes'|'no'|null} */ (null),
      /** @type {string|null} */
      selected: null,
      /** @type {'yes'|'no'|null} */
      choice: null,
      /** The characters tapped on my goal-card picker (kept across snapshots). */
      pick: /** @type {Set<string>} */ (new Set()),
      /** What this phone tapped for each seat without a phone (its card, its vote). */
      paperPick: /** @type {Map<string, Set<string>>} */ (new Map()),
      paperVote: /** @type {Map<string, 'yes'|'no'>} */ (new Map()),
      entry: newEntry(0),
      rerender: render,
      /** @param {string|null} ch */
      select(ch) { ui.selected = ch; render(); },
      /** @param {'yes'|'no'|null} v */
      choose(v) { ui.choice = v; render(); },
      /**
       * Casts `v` for the seat shown (mine, or the paper seat entered for),
       * sealed on this phone (sealing.js). A phone that cannot seal sends
       * nothing and says so (seal_required: "reload the app").
       * @param {'yes'|'no'} v
       * @returns {Promise<boolean>}
       */
      vote(v) {
        const seat = actingFor(snap) || snap.me;
        if (!seat) return ui.act({ type: 'vote', vote: v });
        return castVote(snap, kept, seat, v).then((a) => {
          if (a) return ui.act(a);
          showError({ code: 'seal_required' }, 'kingup');
          return false;
        });
      },
      /**
       * Sends an action; resolves true when it was accepted. A refusal has already
       * been shown by the platform, so it never rejects.
       * @param {Record<string, unknown>} action
       * @returns {Promise<boolean>}
       */
      act(action) {
        if (ui.busy) return Promise.resolve(false);
        // A tap: the gesture iOS needs before the reveal may be said aloud.
        if (speaker.on()) voice.prime();
        ui.busy = true;
        render();
        return ctx.act(/** @type {{type: string}} */ (action)).then(() => true, () => false).then((ok) => {
          ui.busy = false;
          ui.selected = null;
          if (alive) render();
          return ok;
        });
      },
    };

    /** @param {any} s */
    function noteSnapshot(s) {
      const v = s.view || {};
      if (v.round !== round) {
        // A new round: nothing tapped for the last one carries over.
        round = v.round;
        ui.pick.clear();
        ui.paperPick.clear();
        ui.paperVote.clear();
        ui.selected = null;
        ui.choice = null;
        ui.entry = newEntry(round);
      }
      if (!v.election) { ui.choice = null; ui.paperVote.clear(); }
      if (!kept && s.table) kept = keptVotes(s.table);
      if (kept) {
        if (v.phase && v.phase !== 'vote') kept.clear(s.version);
        ui.sealed = sealedVote(s, kept, actingFor(s) ? null : s.me);
        // Every vote is in: each seal this phone made is opened, by itself.
        for (const o of openings(s, kept)) {
          const key = /** @type {string} */ (o.action.salt);
          const sent = opened.get(key);
          // One opening on its way at a time: every phone opens at the same moment,
          // and the snapshots of the others' openings, landing before this one,
          // still show this seal shut. Sent again, it came back refused
          // (`not_sealed`, or `wrong_phase` after the reveal) as an error at the reveal.
          if (sent && (sent.pending || sent.version >= s.version)) continue;
          const entry = { version: s.version, pending: true };
          opened.set(key, entry);
          ctx.act(/** @type {{type: string}} */ (o.action), { as: o.seat, quiet: true }).then((res) => {
            entry.pending = false;
            entry.version = Math.max(entry.version, res.version);
          }, (/** @type {any} */ env) => {
            // Tried again on the next version the seal shows shut.
            entry.pending = false;
            const err = env && env.error;
            const code = err ? err.code : '';
            // Opened already (by another tab of this seat): nothing went wrong.
            if (!alive || code === 'not_sealed' || code === 'wrong_phase') return;
            if (AGAIN.has(code)) {
              // Not about the opening: tried again soon, the same version too. If it
              // was the last one missing, no new version would come to try it.
              entry.version = -1;
              window.setTimeout(() => { if (alive && snap) noteSnapshot(snap); }, 2000);
              return;
            }
            if (err) showError(err, 'kingup');
          });
        }
      }
      // A reveal this phone has not shown yet (not the one found on opening the table).
      const key = v.last_election ? `${v.round}:${JSON.stringify(v.last_election)}` : '';
      if (snap && key && key !== revealKey) {
        fresh();
        speaker.say(revealWords(ctx, v));
      }
      revealKey = key;
    }

    function fresh() {
      revealFresh = true;
      ctx.vibrate([120, 60, 120, 60, 240]);
      clearTimeout(freshTimer);
      freshTimer = window.setTimeout(() => { revealFresh = false; }, 1500);
    }

    const part = partCache();

    function render() {
      if (!snap || !snap.view || !snap.view.phase) return;
      const v = snap.view;
      const legal = snap.legal || [];
      const me = v.me || null;
      const full = v.play_mode === 'full';
      const done = v.phase === 'scored' || v.phase === 'over';
      const entering = v.phase === 'score_entry';
      // Entering for a seat without a phone: `legal` is that seat's, not mine.
      const acting = actingFor(snap);
      const myGoalMissing = Boolean(me && !me.goal) && !acting;
      const base = [ctx.lang, ctx.me, snap.players.map((/** @type {any} */ p) => p.name), v.character_names, ui.busy];
      const results = part('results', [base, v.round_results, v.phase], () => roundResults(ctx, snap));
      // Once a round is over its result is the headline.
      const latest = done ? results.slice(0, 1) : [];
      // In score-only entry the form takes my printed card too: one picker is enough.
      // Once the round is scored, the result shows my card with everybody else's.
      const wantCard = !done && !acting && (full || !entering || !myGoalMissing || v.goal_card_mode === 'deal');
      const card = wantCard ? part('card', [base, me, legal.map((/** @type {any} */ a) => a.type), v.positions, v.phase, v.goal_deck, [...ui.pick]], () => myCard(ctx, snap, ui)) : null;
      const reveal = v.last_election && v.phase !== 'vote'
        ? part('reveal', [base, v.last_election, v.phase, v.turn, me && me.goal, revealFresh], () => revealPanel(ctx, v, revealFresh))
        : null;
      /** @type {Array<HTMLElement|null>} */
      let board = [];
      if (entering) {
        const e = ui.entry;
        board = part('entry', [base, v, legal, [...e.board], e.selected, [...e.goals].map(([p, g]) => [p, [...g]]), [...ui.pick]], () => scoreEntry(ctx, snap, ui));
      } else if (full) {
        board = [part('castle', [base, v.castle, v.positions, v.phase, legal, ui.selected, me && me.goal], () => playCastle(ctx, snap, ui))];
      }
      const paper = acting
        ? [part('paper', [base, acting, legal, v.phase, v.character_names, [...(ui.paperPick.get(acting) || [])], ui.paperVote.get(acting) || null],
          () => paperPanel(ctx, snap, ui, acting, legal))]
        : [part('paper-hint', [base, proxyWaiting(snap)], () => proxyHint(ctx, proxyWaiting(snap)))];
      const waitingPaper = part('paper-waiting', [base, v.phase, v.paper_waiting], () => paperWaiting(ctx, v));
      const totals = part('totals', [base, snap.players, (v.round_results || []).length], () => totalsTable(ctx, snap));

      // Game over: the platform's banner and the standings say it already.
      const parts = [v.phase === 'over' ? null : part('status', [base, v.phase, v.turn, v.crown, v.placement, v.round, v.play_mode], () => statusBar(ctx, snap))];
      // Votes are played only in full mode: the switch of the reveal's voice.
      speaker.render();
      if (full && v.phase !== 'over' && snap.me !== null) parts.push(speaker.el);
      if (done) {
        const next = part('next', [base, v.phase, v.round, legal, snap.host], () => nextRound(ctx, snap, ui));
        // The host's next round is this phone's turn (screens/turn.js): in view
        // as the round is scored, its results just above (it was under the bar).
        if (next) markTurn(next, next.tagName === 'BUTTON' ? 'next' : null);
        parts.push(
          part('final', [base, v.result], () => finalStandings(ctx, snap)),
          ...latest, next, totals, reveal, ...board);
      } else {
        if (v.phase === 'vote' && v.election) parts.push(voteBox(v, acting ? [] : legal, me));
        // This phone's turn (screens/table.js: turnView): its vote, or the castle it places or moves on.
        const may = (/** @type {string} */ type) => !acting && legal.some((/** @type {any} */ a) => a.type === type);
        const voteEl = parts[parts.length - 1];
        // Named apart: a move that reaches the throne, then the vote it opens, are two turns.
        if (v.phase === 'vote' && voteEl) markTurn(voteEl, may('vote') ? 'vote' : null);
        for (const b of board) if (b) markTurn(b, !entering && (may('place') || may('move')) ? 'castle' : null);
        // A secret card still to record holds the round up: this phone's part of it
        // (the picker's last row and its button were under the bar of a 390×844 phone).
        if (card) markTurn(card, myGoalMissing && may('goal') ? 'goal' : null);
        parts.push(waitingPaper, ...paper, reveal);
        if (v.phase === 'awaiting_goals') parts.push(part('missing', [base, v.players, v.goal_cards_in], () => missingCards(ctx, v)));
        // A missing card holds the round up: ask for it before the castle.
        if (myGoalMissing) parts.push(card);
        parts.push(...board);
        if (!myGoalMissing) parts.push(card);
        parts.push(totals);
      }
      parts.push(...results.slice(latest.length), part('rules', [base, v.rules, v.goal_deck, v.play_mode], () => rulesSummary(ctx, v)));
      place(root, /** @type {Node[]} */ (parts.filter(Boolean)));
    }

    /**
     * The election, in three parts that change at different times: the candidate,
     * my buttons (only on my taps) and the count (on everybody's votes).
     * @param {any} v @param {any[]} legal @param {any} me
     */
    function voteBox(v, legal, me) {
      const e = v.election;
      const base = [ctx.lang, ctx.me, snap.players.map((/** @type {any} */ p) => p.name), v.character_names, ui.busy];
      const box = part('vote', [v.round, e.candidate], () => h('section', { class: 'card ku-vote-card', 'aria-labelledby': 'ku-vote-title' }));
      place(box, [
        ...part('vote-head', [base, e.candidate, e.nominator, me && me.goal], () => voteHead(ctx, v)),
        part('vote-act', [base, e.candidate, legal.filter((a) => a.type === 'vote'), ui.choice, me && me.vote, me && me.no_left, ui.sealed], () => voteActions(ctx, { ...snap, legal }, ui)),
        ...part('vote-count', [base, e.voted, e.votes_cast, v.players, e.opening], () => voteCount(ctx, v)),
      ]);
      return box;
    }

    const offLang = ctx.onLangChange(render);
    return {
      update(s) {
        noteSnapshot(s);
        snap = s;
        render();
      },
      destroy() {
        alive = false;
        voice.destroy();
        clearTimeout(freshTimer);
        offLang();
        el.replaceChildren();
      },
    };
  },
});
