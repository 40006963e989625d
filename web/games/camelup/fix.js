// The host's "fix the board" (set_stack): when the physical camels were moved
// wrongly, pick a space and tap its camels bottom → top. The server checks the
// correction; this form only collects it.

import { h, toast } from '../../ui.js';
import { camelEl, camelName } from './common.js';

/** @typedef {import('./common.js').Ctx} Ctx */

/**
 * @param {Ctx} ctx @param {any} view
 * @param {{busy: boolean, fix: {open: boolean, space: number, camels: string[]},
 *          setFix: (f: Partial<{open: boolean, space: number, camels: string[]}>) => void,
 *          act: (a: Record<string, unknown>) => Promise<any>}} ui
 */
export function fixCard(ctx, view, ui) {
  const f = ui.fix;
  const summary = h('summary', { text: ctx.t('fix.title') });
  const el = h('details', { class: 'card cm-fix', open: f.open }, summary);
  // Closed, as it nearly always is, its form is not built: it was a fifth of
  // the host's first Camel Up render on a slow phone. Opening builds it: the
  // summary's click comes before the details opens, the toggle event after
  // (an `open` set by script).
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    el.append(...fixForm(ctx, view, ui));
  };
  if (f.open) build();
  summary.addEventListener('click', build);
  // The toggle event comes a task later: a tap inside (above) says "open" at once.
  el.addEventListener('toggle', () => {
    if (!el.isConnected) return;
    ui.fix.open = el.hasAttribute('open');
    if (ui.fix.open) build();
  });
  return el;
}

/**
 * The form inside: the space, its camels bottom → top, clear and apply.
 * @param {Ctx} ctx @param {any} view @param {Parameters<typeof fixCard>[2]} ui
 * @returns {HTMLElement[]}
 */
function fixForm(ctx, view, ui) {
  const f = ui.fix;
  const all = [...view.camels.racing, ...view.camels.crazy];
  const select = /** @type {HTMLSelectElement} */ (h('select', { id: 'cm-fix-space', disabled: ui.busy }));
  for (const { space: s } of view.board.spaces) {
    const o = h('option', { value: String(s), text: ctx.t('board.space', { n: s }) });
    if (s === f.space) /** @type {HTMLOptionElement} */ (o).selected = true;
    select.append(o);
  }
  select.addEventListener('change', () => {
    const space = Number(select.value);
    // Start from what the mirror shows there: most fixes change one camel.
    ui.setFix({ open: true, space, camels: [...view.board.spaces[space - 1].camels] });
  });
  const names = f.camels.map((c) => camelName(ctx, view, c));
  return [
    h('p', { class: 'hint', text: ctx.t('fix.help') }),
    h('div', { class: 'field' }, h('label', { for: 'cm-fix-space', text: ctx.t('fix.space') }), select),
    h('div', { class: 'cm-choice-row cm-fix-camels' }, ...all.map((c) => h('button', {
      type: 'button',
      class: 'cm-fix-camel',
      'aria-pressed': String(f.camels.includes(c)),
      'aria-label': camelName(ctx, view, c),
      disabled: ui.busy,
      dataset: { camel: c },
      onclick: () => ui.setFix({ open: true, camels: f.camels.includes(c) ? f.camels.filter((x) => x !== c) : [...f.camels, c] }),
    }, camelEl(ctx, view, c, { label: false })))),
    h('p', { class: 'cm-fix-order', text: ctx.t('fix.order', { camels: names.length ? names.join(', ') : ctx.t('board.empty') }) }),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'cm-fix-clear', disabled: ui.busy || !f.camels.length, text: ctx.t('fix.clear'), onclick: () => ui.setFix({ open: true, camels: [] }) }),
      h('button', {
        type: 'button',
        class: 'cm-fix-apply',
        disabled: ui.busy,
        text: ctx.t('fix.apply', { space: f.space }),
        onclick: () => {
          const space = f.space;
          ui.act({ type: 'set_stack', space, camels: f.camels }).then((res) => { if (res) toast(ctx.t('fix.done', { space })); });
        },
      }))];
}
