// The odds panel (issue 6): closed by default, one tap to open. While open it
// fetches GET /api/tables/<id>/analysis after every new version (with this
// phone's seat token, so the tile spots are mine) and drops answers older than
// the board on screen. The numbers are the server's exact counts; nothing is
// computed here but percentages.

import { api } from '../../net.js';
import { getToken } from '../../tokens.js';
import { h } from '../../ui.js';
import { camelTag, colourName, pct, signed } from './common.js';

/** @typedef {import('./common.js').Ctx} Ctx */

const OPEN_KEY = 'tablemate.camelup.odds';

/**
 * @param {Ctx} ctx
 * @returns {{el: HTMLElement, update: (snap: any) => void, relabel: () => void, destroy: () => void}}
 */
export function oddsPanel(ctx) {
  const summaryEl = h('summary', { class: 'cm-odds-summary' });
  const body = h('div', { class: 'cm-odds-body', 'aria-live': 'polite' });
  const el = h('details', { class: 'card cm-odds' }, summaryEl, body);
  let stored = false;
  try { stored = localStorage.getItem(OPEN_KEY) === '1'; } catch { /* private mode */ }
  /** @type {HTMLDetailsElement} */ (el).open = stored;
  /** @type {any} */
  let snap = null;
  /** the newest version asked for, and the version on screen */
  let asked = -1;
  let shown = -1;
  /** @type {any} */
  let data = null;
  let failed = false;
  let alive = true;

  function relabel() {
    summaryEl.textContent = ctx.t('odds.title');
    draw();
  }

  function fetchNow() {
    if (!snap || !alive) return;
    const version = snap.version;
    if (version <= asked) return;
    asked = version;
    const token = ctx.me !== null ? getToken(snap.table) : null;
    if (shown < 0) draw();
    api(`/api/tables/${encodeURIComponent(snap.table)}/analysis`, { token }).then((res) => {
      // An answer for an older board than the one on screen: a newer fetch is on its way.
      if (!alive || !res || res.version < shown || (snap && res.version < snap.version)) return;
      shown = res.version;
      data = res.analysis;
      failed = false;
      draw();
    }, () => {
      if (!alive || version < asked) return;
      failed = true;
      asked = -1; // the next snapshot (or reopening) tries again
      draw();
    });
  }

  function draw() {
    if (!el.hasAttribute('open')) return;
    if (failed) { body.replaceChildren(h('p', { class: 'hint', text: ctx.t('odds.error') })); return; }
    if (shown < 0) { body.replaceChildren(h('p', { class: 'hint', text: ctx.t('odds.loading') })); return; }
    if (!data || !snap) { body.replaceChildren(h('p', { class: 'hint cm-odds-none', text: ctx.t('odds.none') })); return; }
    body.replaceChildren(...content(ctx, snap, data, shown));
  }

  el.addEventListener('toggle', () => {
    const open = el.hasAttribute('open');
    try {
      if (open) localStorage.setItem(OPEN_KEY, '1');
      else localStorage.removeItem(OPEN_KEY);
    } catch { /* not remembered */ }
    if (open) {
      if (snap && snap.version > shown) fetchNow();
      draw();
    }
  });

  relabel();
  return {
    el,
    update(s) {
      snap = s;
      if (el.hasAttribute('open')) fetchNow();
    },
    relabel,
    destroy() { alive = false; },
  };
}

/**
 * The panel's content for one analysis.
 * @param {Ctx} ctx @param {any} snap @param {any} a the analysis @param {number} version
 */
function content(ctx, snap, a, version) {
  const view = snap.view;
  const leg = a.leg;
  const den = leg.denominator;
  // Counts as the screen's language writes numbers.
  const locale = ctx.lang === 'ko' ? 'ko-KR' : 'en-US';
  const racing = (view.camels && view.camels.racing) || Object.keys(leg.ranks);
  const out = [];
  out.push(h('h3', { text: ctx.t('odds.leg') }));
  out.push(h('div', { class: 'cm-odds-head', 'aria-hidden': 'true' },
    h('span', null), ...['first', 'second', 'last'].map((k) => h('span', { text: ctx.t(`odds.${k}`) }))));
  out.push(h('ul', { class: 'cm-odds-legs', dataset: { version: String(version), denominator: String(den) } },
    ...racing.map((/** @type {string} */ c) => {
      const ranks = leg.ranks[c];
      const cells = [[0, 'first'], [1, 'second'], [ranks.length - 1, 'last']].map(([i, k]) => {
        const p = ranks[/** @type {number} */ (i)] / den;
        const bar = h('span', { class: 'cm-bar-fill' });
        bar.style.width = `${Math.max(0, Math.min(100, p * 100)).toFixed(1)}%`;
        return h('span', {
          class: `cm-bar ${k}`,
          title: `${ranks[/** @type {number} */ (i)].toLocaleString(locale)} / ${den.toLocaleString(locale)}`,
          'aria-label': `${ctx.t(`odds.${k}`)} ${pct(p)}`,
          dataset: { place: String(k), count: String(ranks[/** @type {number} */ (i)]) },
        }, bar, h('span', { class: 'cm-bar-text', text: pct(p) }));
      });
      return h('li', { class: 'cm-odds-row', dataset: { camel: c } }, camelTag(ctx, view, c), ...cells);
    })));
  if (leg.raceEnds > 0) out.push(h('p', { class: 'hint cm-race-end', text: ctx.t('odds.race_end', { p: pct(leg.raceEndProbability) }) }));

  if (view.mode !== 'pyramid') {
    const tickets = leg.tickets || {};
    const pyramidEv = leg.pyramidTicket ? leg.pyramidTicket.ev : 1;
    const values = Object.values(tickets).map((/** @type {any} */ t) => t.ev);
    const best = Math.max(pyramidEv, ...values);
    const pyramidBest = pyramidEv >= best && !values.some((v) => v >= best);
    out.push(h('h3', { text: ctx.t('odds.tickets') }));
    out.push(h('ul', { class: 'cm-odds-tickets' },
      ...racing.map((/** @type {string} */ c) => {
        const t = tickets[c];
        if (!t) return h('li', { class: 'cm-odds-ticket none', dataset: { camel: c } }, h('span', { class: 'hint', text: ctx.t('odds.none_left', { colour: colourName(ctx, view, c) }) }));
        const isBest = t.ev >= best;
        return h('li', { class: `cm-odds-ticket ${isBest ? 'best' : ''}`, dataset: { camel: c, value: String(t.value), ev: String(t.ev) } },
          camelTag(ctx, view, c, String(t.value)),
          isBest ? h('span', { class: 'badge cm-best', text: ctx.t('odds.best') }) : null,
          h('span', { class: 'cm-ev', text: signed(t.ev) }));
      }),
      h('li', { class: `cm-odds-ticket pyramid ${pyramidBest ? 'best' : ''}`, dataset: { camel: 'pyramid', ev: String(pyramidEv) } },
        h('span', { text: ctx.t('odds.pyramid') }),
        pyramidBest ? h('span', { class: 'badge cm-best', text: ctx.t('odds.best') }) : null,
        h('span', { class: 'cm-ev', text: signed(pyramidEv) }))));
    const mine = ctx.me !== null && leg.tileIncome ? leg.tileIncome[ctx.me] : null;
    if (mine) out.push(h('p', { class: 'cm-my-tile', text: ctx.t('odds.my_tile', { ev: signed(mine.ev) }) }));
    const spots = (a.tileSpots || []).slice(0, 3);
    if (spots.length) {
      out.push(h('h3', { text: ctx.t(ctx.me !== null ? 'odds.tiles_me' : 'odds.tiles_any') }));
      out.push(h('ol', { class: 'cm-odds-spots' }, ...spots.map((/** @type {any} */ s) => h('li', { dataset: { space: String(s.space), side: s.side, ev: String(s.ev) } },
        h('span', { text: ctx.t('odds.tile_spot', { space: s.space, side: ctx.t(`side.${s.side}`) }) }),
        h('span', { class: 'cm-ev', text: signed(s.ev) })))));
    }
  }

  const race = a.race;
  if (race) {
    const err = (/** @type {number} */ e) => (race.exact ? '' : ` ±${(e * 100).toFixed(1)}`);
    out.push(h('h3', { text: ctx.t('odds.race') }));
    out.push(h('div', { class: 'cm-odds-race-head', 'aria-hidden': 'true' },
      h('span', null), h('span', { text: ctx.t('odds.winner') }), h('span', { text: ctx.t('odds.loser') })));
    out.push(h('ul', { class: 'cm-odds-race', dataset: { exact: String(race.exact) } }, ...racing.map((/** @type {string} */ c) => h('li', { dataset: { camel: c } },
      camelTag(ctx, view, c),
      h('span', {
        class: 'cm-race-p winner',
        'aria-label': `${ctx.t('odds.winner')} ${pct(race.winner[c])}${err(race.winnerError[c])}`,
        dataset: { p: String(race.winner[c]), error: String(race.winnerError[c]) },
        text: `${pct(race.winner[c])}${err(race.winnerError[c])}`,
      }),
      h('span', {
        class: 'cm-race-p loser',
        'aria-label': `${ctx.t('odds.loser')} ${pct(race.loser[c])}${err(race.loserError[c])}`,
        dataset: { p: String(race.loser[c]), error: String(race.loserError[c]) },
        text: `${pct(race.loser[c])}${err(race.loserError[c])}`,
      })))));
    out.push(h('p', { class: 'hint cm-race-note', text: race.exact ? ctx.t('odds.exact') : ctx.t('odds.estimate', { races: race.races.toLocaleString(ctx.lang === 'ko' ? 'ko-KR' : 'en-US') }) }));
  }
  return out;
}
