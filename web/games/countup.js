// Count Up (카운트 업): secret numbers on phones, the count called aloud, every
// round scored. The module draws the server's view and sends what the player
// picks; every rule (validation, the count, scoring) stays on the server.

import { h } from '../ui.js';
import { bonusPanel, declarePanel, paperHandsPanel } from './countup/paper.js';
import { callerPanel, voiceControls } from './countup/caller.js';
import { cardsForm } from './countup/cards.js';
import { cardsInfo, lockedList, markersCard, numberCard } from './countup/board.js';
import { roundMoment } from './countup/moment.js';
import { resultView } from './countup/result.js';
import { mySheet, sheetForm } from './countup/sheet.js';
import { Voice, spokenNumber } from './countup/speech.js';
import { scorePad } from './countup/pad.js';
import strings from './countup/strings.js';
import { actingFor, loadCss, markTurn } from './shared.js';

export default /** @satisfies {import('../games-loader.js').GameModule} */ ({
  strings,
  scorePad,

  /** Never: Count Up has no turns. Every phone writes its sheet (and its
   * bonus) at the same time, and calling is the caller's job; a "your turn"
   * then only told each phone, the host's included, what its screen says. */
  moment: roundMoment,

  yourTurn() {
    return false;
  },

  /**
   * @param {HTMLElement} el
   * @param {import('../games-loader.js').GameContext} ctx
   * @returns {import('../games-loader.js').GameInstance}
   */
  mount(el, ctx) {
    loadCss('countup');
    el.classList.add('game-countup');
    /** @type {import('./countup/caller.js').Prefs} */
    const prefs = { speech: null, style: 'sino', interval: null };
    const voice = new Voice(() => voiceBox.render());
    const hooks = {
      prime: () => voice.prime(),
      hush: () => voice.hush(),
      voiceName: () => { const v = voice.voiceFor(ctx.lang); return v ? v.name : null; },
      onChange: () => render(),
    };

    // Two live regions around the controls; CSS `order` per phase (data-phase)
    // puts the primary control under the thumb without moving focused inputs.
    const top = h('div', { class: 'cu-live cu-top' });
    const bottom = h('div', { class: 'cu-live cu-bottom' });
    const voiceBox = voiceControls(ctx, prefs, hooks);
    const listenTitle = h('h2', { id: 'cu-listen-title' });
    const listen = h('section', { class: 'card cu-listen', 'aria-labelledby': 'cu-listen-title' }, listenTitle);
    const cardsF = cardsForm(ctx);
    const entry = sheetForm(ctx);
    const caller = callerPanel(ctx, prefs, hooks);
    const declare = declarePanel(ctx);
    const hands = paperHandsPanel(ctx);
    const bonus = bonusPanel(ctx);
    const nextBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-next' }));
    const nextWait = h('p', { class: 'waiting' });
    const nextBox = h('div', { class: 'cu-next-box' }, nextWait, nextBtn);
    el.append(top, cardsF.el, entry.el, declare.el, hands.el, caller.el, bonus.el, bottom, listen, nextBox);

    /** @type {any} */
    let snap = null;
    let shownValue = 0;
    let shownRound = 0;
    let busy = false;

    nextBtn.addEventListener('click', async () => {
      if (busy) return;
      busy = true;
      nextBtn.disabled = true;
      try { await ctx.act({ type: 'next_round' }); } catch { /* shown by the platform */ }
      busy = false;
      render();
    });

    /** Speaks and buzzes for a number just called (once per number). */
    function announce() {
      const v = snap.view;
      const value = v.count.value;
      const fresh = v.round === shownRound && value === shownValue + 1;
      if (v.round !== shownRound) {
        shownRound = v.round;
        entry.reset();
      }
      shownValue = value;
      if (!fresh || v.phase !== 'count' && !v.count.end) return;
      if (voiceBox.on()) {
        const ms = prefs.interval || v.interval_ms || 800;
        voice.say(spokenNumber(value, ctx.lang, prefs.style), ctx.lang, Math.max(1, Math.min(2, 900 / ms)));
      }
      if (Array.isArray(v.my_numbers) && v.my_numbers.includes(value)) ctx.vibrate([120, 60, 120]);
    }

    function render() {
      if (!snap) return;
      const v = snap.view;
      if (!v || !v.phase) return;
      const phase = v.phase;
      const isHost = snap.me !== null && snap.me === snap.host;
      const paper = v.sheet_mode === 'paper';
      // Entering for a seat without a phone: this phone's own sheet is not that seat's.
      const ownSheet = actingFor(snap) ? null : v.my_numbers;
      /** @type {Array<Node|null>} */
      const above = [];
      /** @type {Array<Node|null>} */
      const below = [];
      const cards = () => (v.restriction_card || v.danger || !v.restriction_pending ? cardsInfo(ctx, v) : null);
      if (phase === 'cards') {
        if (v.restriction_card || v.danger) above.push(cards());
      } else if (phase === 'entry') {
        above.push(cards());
        if (ownSheet) above.push(mySheet(ctx, v, 'mysheet.waiting'));
        below.push(lockedList(ctx, snap));
      } else if (phase === 'count') {
        const writing = paper && v.count.value === 0;
        if (writing) above.push(h('p', { class: 'notice', text: ctx.t('paper.write') }), cards());
        above.push(numberCard(ctx, snap, prefs));
        if (ownSheet) below.push(mySheet(ctx, v, null));
        below.push(markersCard(ctx, snap));
        if (!writing) below.push(cards());
      } else if (phase === 'bonus') {
        below.push(numberCard(ctx, snap, prefs), markersCard(ctx, snap));
      } else {
        above.push(...resultView(ctx, snap));
      }
      // A new screen (results, a fresh sheet) starts at its top, not where
      // the thumb left the previous one.
      const fresh = el.dataset.phase && el.dataset.phase !== phase && ['scored', 'over', 'entry', 'bonus'].includes(phase);
      el.dataset.phase = phase;
      top.replaceChildren(.../** @type {Node[]} */ (above.filter(Boolean)));
      bottom.replaceChildren(.../** @type {Node[]} */ (below.filter(Boolean)));
      if (fresh && typeof el.scrollIntoView === 'function') el.scrollIntoView({ block: 'start' });

      cardsF.update(snap);
      entry.update({
        check: v.sheet_check,
        digits: v.restricted_digits,
        legal: (snap.legal || []).some((/** @type {any} */ a) => a.type === 'numbers'),
      });
      // A paused or sealed seat's phone sees the table as a spectator: no sheet of its own to write.
      entry.el.hidden = !(phase === 'entry' && snap.me && !v.my_numbers && !actingFor(snap) && !snap.paused && !snap.sealed);
      caller.update(snap);
      // This phone's parts of the round (screens/turn.js): its call; its sheet to
      // write, under the round's cards (the boxes were under the bottom bar on a
      // 390×844 phone, the whole sheet below the screen on a 320×568 one).
      const writing = !entry.el.hidden;
      markTurn(top, phase === 'count' && !v.count.end && caller.isCaller() ? 'call' : writing ? 'sheet' : null);
      markTurn(entry.el, writing ? 'sheet' : null);
      declare.update(snap, caller.running);
      hands.update(snap);
      bonus.update(snap);

      // The voice controls live with the caller's buttons on the calling
      // phone, and in a small card of their own on the other phones.
      const counting = phase === 'count' && !v.count.end;
      const mine = caller.isCaller();
      voiceBox.setDefault(() => caller.isCaller());
      const slot = mine && counting ? caller.voiceSlot : listen;
      if (voiceBox.el.parentNode !== slot) slot.append(voiceBox.el);
      listen.hidden = !counting || mine;
      listenTitle.textContent = ctx.t('listen.title');
      voiceBox.render();

      const canNext = (snap.legal || []).some((/** @type {any} */ a) => a.type === 'next_round');
      nextBox.hidden = phase !== 'scored';
      nextBtn.hidden = !canNext;
      // The host's next round is this phone's turn too: in view as the round is
      // scored, the results above it (it was ~250 px under the bar); a turn of its
      // own after the host's call.
      markTurn(nextBtn, phase === 'scored' && canNext ? 'next' : null);
      nextBtn.disabled = busy;
      nextBtn.textContent = ctx.t('next.button');
      nextWait.hidden = canNext || isHost;
      nextWait.textContent = ctx.t('next.wait');
    }

    function relabel() {
      entry.relabel();
      caller.relabel();
      declare.relabel();
      hands.relabel();
      bonus.relabel();
      render();
    }

    ctx.onLangChange(relabel);
    entry.relabel();

    return {
      update(s) {
        snap = s;
        if (!s.view || !s.view.phase) return;
        announce();
        render();
      },
      destroy() {
        caller.destroy();
        voice.destroy();
        el.classList.remove('game-countup');
        delete el.dataset.phase;
        el.replaceChildren();
      },
    };
  },
});
