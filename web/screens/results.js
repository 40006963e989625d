// The results sheet of a finished game: standings, the round-by-round score
// pad, BG Stats (the app's import link on phones, a copyable link elsewhere),
// a share card image and a plain-text summary, and the host's "play again".
// Every figure comes from GET /api/tables/<id>/result; nothing is recomputed.

import { LANGS, getLang, onLangChange, t, tIn } from '../i18n.js';
import { loadGame } from '../games-loader.js';
import { api } from '../net.js';
import { copyText, h, showError, toast } from '../ui.js';
import { fairSummary } from './fair.js';

/**
 * @typedef {{id: string, name: string, score: number|null, rank: number|null,
 *   winner: boolean, start_player: boolean, stars?: number}} ResultPlayer
 * @typedef {{game: string, version: number, started_at: string, finished_at: string,
 *   duration_min: number, players: ResultPlayer[], rounds: Array<Record<string, any>>,
 *   details: Record<string, any>, bgstats: string, bgstats_web: string, evening?: Evening}} GameResult
 * @typedef {{score: number|null, rank: number|null, winner: boolean}} EveningFigure
 * @typedef {{games: Array<{n: number, players: Record<string, EveningFigure>}>,
 *   totals: Record<string, {score: number|null, wins: number}>}} Evening
 * @typedef {{head: string[], cols: Array<(p: ResultPlayer) => string>, notes: string[]}} ScorePad
 *   a game's columns of the score pad (web/games/<game>/pad.js), and its notes
 */

/** BG Stats is an iOS/Android app: its link only works on a phone or tablet. */
export function onPhone() {
  return /Android|iPhone|iPad|iPod/i.test(navigator.userAgent)
    || (navigator.maxTouchPoints > 1 && /Macintosh/.test(navigator.userAgent));
}

/** @param {string} iso @returns {string} the local date and time */
function when(iso) {
  return new Date(iso).toLocaleString(getLang() === 'ko' ? 'ko-KR' : 'en-GB',
    { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** @param {ResultPlayer} p */
function scoreText(p) {
  return p.score === null ? '—' : String(p.score);
}

/**
 * The score pad: one row per player, the game's columns (its module's
 * ``scorePad``: one per leg or round) and notes, then the total.
 * @param {GameResult} res
 * @param {ScorePad} [game] the game's columns; none for a game without a module
 * @returns {{head: string[], rows: Array<{player: ResultPlayer, cells: string[]}>, notes: string[]}}
 */
export function sheet(res, game = { head: [], cols: [], notes: [] }) {
  const head = [...game.head, t('results.total')];
  const notes = [...game.notes];
  // The mark the rows carry (▶) says what it is.
  if (res.players.some((p) => p.start_player)) notes.unshift(t('results.start_player'));
  return {
    head,
    rows: res.players.map((p) => ({ player: p, cells: [...game.cols.map((c) => c(p)), scoreText(p)] })),
    notes,
  };
}

/**
 * The evening's games at this table (BG Stats' sessions): one row per seat,
 * one column per game, then the wins and the total; most wins first, then
 * the highest total. Every figure is the server's (``evening`` of the result).
 * @param {Evening} ev
 * @param {(id: string) => string} name a seat's name
 * @returns {{head: string[], rows: Array<{id: string, name: string, cells: string[]}>}}
 */
export function eveningSheet(ev, name) {
  const ids = Object.keys(ev.totals);
  ids.sort((a, b) => (ev.totals[b].wins - ev.totals[a].wins)
    || ((ev.totals[b].score ?? 0) - (ev.totals[a].score ?? 0)));
  const cell = (/** @type {EveningFigure|undefined} */ f) =>
    (f === undefined ? '' : `${f.score ?? (f.rank ?? '–')}${f.winner ? ' 🏆' : ''}`);
  return {
    head: [...ev.games.map((g) => t('results.evening_game', { n: g.n })), t('results.evening_wins'), t('results.total')],
    rows: ids.map((id) => ({
      id,
      name: name(id),
      cells: [...ev.games.map((g) => cell(g.players[id])), String(ev.totals[id].wins),
        ev.totals[id].score === null ? '—' : String(ev.totals[id].score)],
    })),
  };
}

/**
 * The plain-text summary for chat apps.
 * @param {GameResult} res @param {string} title
 */
export function summaryText(res, title) {
  const lines = [`${title} · ${when(res.started_at)} · ${t('results.minutes', { n: res.duration_min })}`];
  for (const p of res.players) {
    lines.push(`${p.rank ?? '–'}. ${p.name} ${scoreText(p)}${p.winner ? ` 🏆 ${t('results.winner')}` : ''}`);
  }
  return lines.join('\n');
}

/**
 * What the share card says, in both languages: a card goes to a group chat
 * where not everyone reads the sharer's language.
 * @param {GameResult} res
 * @param {Record<import('../i18n.js').Lang, string>} titles the game's title per language
 * @returns {{title: string, sub: string, rows: Array<{rank: string, name: string, score: string, winner: boolean}>, foot: string}}
 */
export function cardText(res, titles) {
  const both = (/** @type {(l: import('../i18n.js').Lang) => string} */ f) =>
    [...new Set(LANGS.map(f))].join(' · ');
  // Digits only: the same date reads right in both languages.
  const d = new Date(res.started_at);
  const pad2 = (/** @type {number} */ n) => String(n).padStart(2, '0');
  const date = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
  return {
    title: both((l) => titles[l]),
    sub: `${date} · ${both((l) => tIn(l, 'results.minutes', { n: res.duration_min }))}`,
    rows: res.players.map((p) => ({ rank: String(p.rank ?? '–'), name: p.name, score: scoreText(p), winner: p.winner })),
    foot: `🏆 ${both((l) => tIn(l, 'results.winner'))} · Tablemate`,
  };
}

/**
 * Draws the share card (game, date, standings, winners highlighted, both
 * languages) and returns it as a PNG.
 * @param {GameResult} res
 * @param {Record<import('../i18n.js').Lang, string>} titles
 * @returns {Promise<Blob>}
 */
export function shareCard(res, titles) {
  const text = cardText(res, titles);
  const W = 1080;
  const rowH = 96;
  const H = 360 + res.players.length * rowH + 80;
  const canvas = document.createElement('canvas');
  canvas.width = W;
  canvas.height = H;
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const font = (/** @type {number} */ px, bold = false) =>
    `${bold ? '700 ' : ''}${px}px system-ui, -apple-system, "Apple SD Gothic Neo", "Noto Sans KR", sans-serif`;
  g.fillStyle = '#1d2433';
  g.fillRect(0, 0, W, H);
  g.fillStyle = '#ffffff';
  g.font = font(64, true);
  g.fillText(text.title, 64, 140, W - 128);
  g.font = font(36);
  g.fillStyle = '#c9d1e0';
  g.fillText(text.sub, 64, 210, W - 128);
  text.rows.forEach((p, i) => {
    const y = 300 + i * rowH;
    if (p.winner) {
      g.fillStyle = '#f4c542';
      g.fillRect(40, y - 8, W - 80, rowH - 12);
    }
    g.fillStyle = p.winner ? '#1d2433' : '#ffffff';
    g.font = font(48, p.winner);
    g.fillText(p.rank, 72, y + 56);
    g.fillText(`${p.winner ? '🏆 ' : ''}${p.name}`, 170, y + 56, W - 480);
    g.textAlign = 'right';
    g.fillText(p.score, W - 72, y + 56);
    g.textAlign = 'left';
  });
  g.font = font(28);
  g.fillStyle = '#8a94a8';
  g.fillText(text.foot, 64, H - 40);
  return new Promise((resolve, reject) => canvas.toBlob(
    (b) => (b ? resolve(b) : reject(new Error('canvas'))), 'image/png'));
}

/**
 * Shares the card through the Web Share API with files where the phone can,
 * else downloads it.
 * @param {Blob} png @param {string} text
 */
async function sharePng(png, text) {
  const file = new File([png], 'tablemate-result.png', { type: 'image/png' });
  const nav = /** @type {any} */ (navigator);
  if (nav.canShare && nav.canShare({ files: [file] })) {
    try {
      await nav.share({ files: [file], text });
      return;
    } catch (e) {
      if (/** @type {any} */ (e).name === 'AbortError') return;
    }
  }
  const url = URL.createObjectURL(png);
  const a = h('a', { href: url, download: 'tablemate-result.png', hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The results card of the table screen; shows itself once the game is over.
 * @param {import('./session.js').Session} session
 * @returns {{el: HTMLElement, update: (snap: import('../net.js').Snapshot) => void, destroy: () => void}}
 */
export function resultsCard(session) {
  const el = h('section', { class: 'card panel results', id: 'results', hidden: true, 'aria-labelledby': 'results-title' });
  /** @type {GameResult|null} */
  let res = null;
  /** @type {import('../games-loader.js').GameModule|null} */
  let mod = null;
  let loadedFor = -1;
  let canPlayAgain = false;

  async function load(/** @type {number} */ version) {
    loadedFor = version;
    try {
      const tz = -new Date().getTimezoneOffset();
      const got = await api(`/api/tables/${encodeURIComponent(session.id)}/result?tz=${tz}`, { token: session.token });
      // The game's module (loaded already by the table screen) draws its columns.
      mod = await loadGame(got.game);
      res = got;
      render();
    } catch (e) {
      loadedFor = -1;
      showError(/** @type {any} */ (e));
    }
  }

  const titles = () => ({ ko: session.title('ko'), en: session.title('en') });

  function render() {
    if (!res) return;
    const result = res;
    const title = session.title();
    const game = mod && mod.scorePad
      ? mod.scorePad(result, (key, params) => t(`${result.game}.${key}`, params)) : undefined;
    const pad = sheet(result, game);
    const table = h('table', { class: 'score-pad' },
      h('thead', null, h('tr', null, h('th', { scope: 'col', t: 'results.player' }),
        ...pad.head.map((x) => h('th', { scope: 'col', text: x })))),
      h('tbody', null, ...pad.rows.map((r) => h('tr', { class: r.player.winner ? 'winner' : '' },
        h('th', { scope: 'row', text: `${r.player.rank ?? '–'}. ${r.player.name}${r.player.start_player ? ' ▶' : ''}` }),
        ...r.cells.map((c) => h('td', { text: c }))))));
    const bg = onPhone()
      ? h('a', { class: 'button primary', href: result.bgstats, id: 'bgstats-link', t: 'results.bgstats_save' })
      : h('div', { class: 'bgstats-copy' },
        h('label', { for: 'bgstats-url', t: 'results.bgstats_copy_label' }),
        h('input', { id: 'bgstats-url', readonly: true, value: result.bgstats_web }),
        h('button', {
          type: 'button', t: 'results.copy_link',
          onclick: async () => toast(t(await copyText(result.bgstats_web) ? 'results.copied' : 'results.copy_failed')),
        }));
    const seatName = (/** @type {string} */ id) => result.players.find((p) => p.id === id)?.name
      || session.store.get().snapshot?.players.find((p) => p.id === id)?.name || id;
    const ev = result.evening ? eveningSheet(result.evening, seatName) : null;
    const evening = ev
      ? h('div', { class: 'evening', id: 'evening' },
        h('h3', { id: 'evening-title', t: 'results.evening_title' }),
        h('div', { class: 'table-scroll', tabindex: 0, role: 'region', label: 'results.evening_title' },
          h('table', { class: 'score-pad evening-pad' },
            h('thead', null, h('tr', null, h('th', { scope: 'col', t: 'results.player' }),
              ...ev.head.map((x) => h('th', { scope: 'col', text: x })))),
            h('tbody', null, ...ev.rows.map((r) => h('tr', null, h('th', { scope: 'row', text: r.name }),
              ...r.cells.map((c) => h('td', { text: c }))))))))
      : null;
    const playAgain = canPlayAgain
      ? h('button', {
        type: 'button', class: 'primary', id: 'play-again', t: 'results.play_again',
        onclick: async () => {
          try { await session.act({ type: 'play_again' }); } catch { /* shown already */ }
        },
      })
      : null;
    el.replaceChildren(
      h('h2', { id: 'results-title', t: 'results.title' }),
      h('p', { class: 'hint', text: `${when(result.started_at)} · ${t('results.minutes', { n: result.duration_min })}` }),
      ...(playAgain ? [playAgain] : []),
      // The rank is written out, not the list's own count: a tie is "3." twice
      // (as the score pad says), where a list would number on to 4.
      h('ol', { class: 'standings' }, ...result.players.map((p) => h('li', { class: p.winner ? 'winner' : '' },
        h('span', { class: 'rank', text: `${p.rank ?? '–'}.` }), ' ',
        h('span', { class: 'seat-name', text: p.name }), ' ',
        h('strong', { text: scoreText(p) }),
        p.winner ? h('span', { class: 'badge', t: 'results.winner' }) : null))),
      // Focusable: a keyboard (or switch) user can scroll a wide score pad too.
      h('div', { class: 'table-scroll', tabindex: 0, role: 'region', label: 'results.pad' }, table),
      h('ul', { class: 'notes', hidden: !pad.notes.length }, ...pad.notes.map((n) => h('li', { text: n }))),
      // The evening so far, from the second game on: this game's sheet above is this game's alone.
      ...(evening ? [evening] : []),
      // Every revealed roll, card and sealed choice, as this phone checked them.
      fairSummary(session.fair, result.game, (pid) => result.players.find((p) => p.id === pid)?.name || pid) || '',
      h('div', { class: 'row' },
        h('button', {
          type: 'button', id: 'share-card', t: 'results.share_card',
          onclick: async () => {
            try { await sharePng(await shareCard(result, titles()), summaryText(result, title)); } catch (e) {
              showError({ code: 'error', message: String(e) });
            }
          },
        }),
        h('button', {
          type: 'button', id: 'copy-summary', t: 'results.copy_summary',
          onclick: async () => toast(t(await copyText(summaryText(result, title)) ? 'results.copied' : 'results.copy_failed')),
        })),
      bg,
      // Secondary: everyone would have to scan a new code; play again keeps the seats.
      h('p', { class: 'new-table' }, h('a', { href: '/', 'data-link': true, id: 'new-table', t: 'table.new_table' })));
  }

  const offLang = onLangChange(render);
  const offFair = session.fair.onChange(render);
  const off = () => { offLang(); offFair(); };
  return {
    el,
    update(snap) {
      el.hidden = snap.status !== 'over';
      const could = canPlayAgain;
      canPlayAgain = (snap.legal || []).some((a) => a.type === 'play_again');
      if (snap.status !== 'over') { res = null; loadedFor = -1; return; }
      if (loadedFor !== snap.version) load(snap.version);
      else if (could !== canPlayAgain) render();
    },
    destroy: off,
  };
}
