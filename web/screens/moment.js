// The scoring moment (issue 41): at each leg or round end, every phone shows
// who gained what and why ("지훈 +5: 초록 5 티켓 (1등) +5 · ..."), above the
// game, until a tap puts it away. The game module says what the latest
// scoring was, in words, from the figures of the server's view (its `moment`):
// no rules here. The host's phone says it aloud once, unless the game's voice
// is off on it (Count Up's: the caller's). The history keeps the scoring's
// lines (the engines' own).
// What this phone put away, and said, it remembers per table: a reload does
// not bring a moment back.

import { getLang } from '../i18n.js';
import { h } from '../ui.js';
import { Voice, voiceOff } from '../voice.js';

/** @typedef {import('../games-loader.js').Moment} Moment */

/** @param {number} n */
const plus = (n) => (n < 0 ? `−${-n}` : `+${n}`);

/**
 * @param {string} table the table's id
 * @param {(pid: string) => string} name a seat's name
 */
export function momentCard(table, name) {
  // Not a heading: the game's own result (a heading of the same words) stays the one to find.
  const title = h('p', { id: 'moment-title', class: 'moment-title' });
  const list = h('ul', { class: 'moment-lines' });
  const ok = h('button', { type: 'button', class: 'primary moment-ok', t: 'moment.ok' });
  const el = h('section', { class: 'card moment', role: 'status', 'aria-labelledby': 'moment-title', hidden: true },
    title, list, ok);
  const storeKey = `tablemate.moment.${table}`;
  /** @type {Moment|null} */
  let shown = null;
  /** @type {Voice|null} */
  let voice = null;

  /** @returns {{put?: string, said?: string}} */
  const seen = () => {
    try { return JSON.parse(localStorage.getItem(storeKey) || '{}') || {}; } catch { return {}; }
  };
  /** @param {'put'|'said'} what @param {string} key */
  const remember = (what, key) => {
    try { localStorage.setItem(storeKey, JSON.stringify({ ...seen(), [what]: key })); } catch { /* this page only */ }
  };
  // One tap anywhere on the card puts it away.
  el.addEventListener('click', () => {
    if (!shown) return;
    remember('put', shown.key);
    el.hidden = true;
  });

  /** @param {Moment} m */
  function draw(m) {
    title.textContent = m.title;
    list.replaceChildren(...m.lines.map((l) => h('li', { class: 'moment-line', dataset: { player: l.player, gain: String(l.gain) } },
      h('span', { class: 'moment-name', text: name(l.player) }), ' ',
      h('strong', { class: `moment-gain${l.gain > 0 ? ' gain' : l.gain < 0 ? ' loss' : ''}`, text: plus(l.gain) }),
      l.why.length ? h('span', { class: 'moment-why', text: `: ${l.why.join(' · ')}` }) : null)));
  }

  /** @param {Moment} m */
  function speak(m) {
    if (!voice) voice = new Voice();
    const words = m.lines.map((l) => `${name(l.player)} ${plus(l.gain).replace('−', '-')}`).join(', ');
    voice.say(`${m.title}. ${words}`, getLang());
  }

  return {
    el,
    /**
     * @param {Moment|null} m the game's latest scoring while it is the news
     * @param {{speaks: boolean, game: string}} opts whether this phone is the one that speaks
     */
    update(m, opts) {
      shown = m;
      const seenNow = seen();
      el.hidden = !m || seenNow.put === m.key;
      if (!m || el.hidden) return;
      draw(m);
      if (opts.speaks && !voiceOff(opts.game) && seenNow.said !== m.key) {
        remember('said', m.key);
        speak(m);
      }
    },
    destroy() {
      if (voice) voice.destroy();
      voice = null;
    },
  };
}
