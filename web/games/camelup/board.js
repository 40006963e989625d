// The board mirror: the 16 spaces as a loop of two rows (1→8 on top, 9→16
// back along the bottom), so the finish line sits on the left between 16 and
// 1, as on the real board. Stacks are drawn bottom → top, spectator tiles with
// owner and side, and whatever is past the line.

import { h } from '../../ui.js';
import { camelEl, camelName } from './common.js';

/** @typedef {import('./common.js').Ctx} Ctx */

/**
 * @param {Ctx} ctx
 * @param {any} view
 * @param {{targets?: Set<number>|null, selected?: number|null, onPick?: (space: number) => void}} [pick]
 *        while placing a spectator tile: the legal spaces, the chosen one
 */
export function boardCard(ctx, view, pick = {}) {
  const board = view.board;
  const targets = pick.targets || null;
  const half = board.size / 2;
  const cells = board.spaces.map((/** @type {any} */ s) => {
    const bottomRow = s.space > half;
    // Top row: spaces 1..8 left to right; bottom row: 9..16 right to left
    // (column 1 is the finish line).
    const col = bottomRow ? board.size + 2 - s.space : s.space + 1;
    const row = bottomRow ? 2 : 1;
    const target = Boolean(targets && targets.has(s.space));
    const cls = ['cm-space'];
    if (target) cls.push('target');
    if (pick.selected === s.space) cls.push('selected');
    if (s.tile) cls.push('has-tile');
    const names = s.camels.map((/** @type {string} */ c) => camelName(ctx, view, c));
    let label = ctx.t('board.space_label', {
      n: s.space,
      camels: names.length ? `${names.join(', ')} (${ctx.t('board.bottom_top')})` : ctx.t('board.empty'),
    });
    if (s.tile) label += `; ${ctx.t('tile.label', { name: ctx.name(s.tile.owner), side: ctx.t(`side.${s.tile.side}`) })}`;
    const cell = h('div', {
      class: cls.join(' '),
      role: 'listitem',
      'aria-label': label,
      dataset: { space: String(s.space), camels: s.camels.join(',') },
    },
    h('span', { class: 'cm-space-no', 'aria-hidden': 'true', text: String(s.space) }),
    h('span', { class: 'cm-stack', 'aria-hidden': 'true' }, ...s.camels.map((/** @type {string} */ c) => camelEl(ctx, view, c, { reverse: bottomRow, label: false }))),
    s.tile ? h('span', {
      class: `cm-tile ${s.tile.side}`,
      'aria-hidden': 'true',
      dataset: { owner: s.tile.owner, side: s.tile.side },
    },
    h('span', { class: 'cm-tile-side', text: ctx.t(`side.${s.tile.side}_short`) }),
    h('span', { class: 'cm-tile-owner', text: ctx.name(s.tile.owner) })) : null);
    cell.style.gridColumn = String(col);
    cell.style.gridRow = String(row);
    if (target && pick.onPick) {
      const onPick = pick.onPick;
      cell.addEventListener('click', () => onPick(s.space));
    }
    return cell;
  });
  const finish = h('div', { class: 'cm-finish', 'aria-hidden': 'true' }, h('span', { text: ctx.t('board.finish') }));
  finish.style.gridColumn = '1';
  finish.style.gridRow = '1 / span 2';
  const past = board.past;
  return h('section', { class: 'card cm-board', 'aria-labelledby': 'cm-board-title' },
    h('h2', { id: 'cm-board-title', class: 'cm-small-title', text: ctx.t('board.title') }),
    h('div', { class: 'cm-track', role: 'list', 'aria-labelledby': 'cm-board-title' }, finish, ...cells),
    past ? h('p', { class: `cm-past ${past.direction}`, dataset: { camels: past.camels.join(','), direction: past.direction } },
      h('span', { class: 'cm-past-label', text: ctx.t(past.direction === 'forward' ? 'board.past_forward' : 'board.past_backward') }),
      h('span', { class: 'cm-past-stack' }, ...past.camels.map((/** @type {string} */ c) => camelEl(ctx, view, c)))) : null,
    h('p', { class: 'hint cm-direction', text: ctx.t('board.direction') }));
}
