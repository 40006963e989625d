// The fallback game module: the view as readable key/value text and one
// button per legal action template, so every game is playable before its own
// module exists. It knows no rules; the server's `legal` list is the truth.

import { h } from '../ui.js';

/**
 * "leg_bet camel=red"; a seat id reads as the player's name ("target=Mina").
 * @param {{type: string, [k: string]: unknown}} action
 * @param {(pid: string) => string} [name]
 */
export function actionLabel(action, name = (pid) => pid) {
  const fields = Object.entries(action)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k}=${v !== null && typeof v === 'object' ? JSON.stringify(v) : scalar(v, name)}`);
  return [action.type, ...fields].join(' ');
}

/**
 * Renders any JSON value as nested definition lists (text only).
 * @param {unknown} value
 * @param {(pid: string) => string} name
 * @returns {Node}
 */
function renderValue(value, name) {
  if (value === null || value === undefined) return document.createTextNode('—');
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) return document.createTextNode(value.map((v) => scalar(v, name)).join(', ') || '—');
    return h('ol', { class: 'kv-list' }, ...value.map((v) => h('li', null, renderValue(v, name))));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(/** @type {Record<string, unknown>} */ (value));
    if (!entries.length) return document.createTextNode('—');
    // Keys that are seat ids read better as the players' names.
    return h('dl', { class: 'kv' }, ...entries.flatMap(([k, v]) => [
      h('dt', { text: /^p\d+$/.test(k) ? name(k) : k }),
      h('dd', null, renderValue(v, name)),
    ]));
  }
  return document.createTextNode(scalar(value, name));
}

/**
 * A seat id as a value ("turn": "p2") reads as the player's name.
 * @param {unknown} v
 * @param {(pid: string) => string} name
 */
function scalar(v, name) {
  return typeof v === 'string' && /^p\d+$/.test(v) ? name(v) : String(v);
}

export default /** @satisfies {import('../games-loader.js').GameModule} */ ({
  strings: { ko: {}, en: {} },

  /**
   * @param {HTMLElement} el
   * @param {import('../games-loader.js').GameContext} ctx
   * @returns {import('../games-loader.js').GameInstance}
   */
  mount(el, ctx) {
    const actionsTitle = h('h2', { id: 'generic-actions' });
    const actions = h('div', { class: 'action-grid' });
    const none = h('p', { class: 'hint' });
    const viewTitle = h('h2', { id: 'generic-view' });
    const view = h('div', { class: 'generic-view' });
    const actionsCard = h('section', { class: 'card', 'aria-labelledby': 'generic-actions' }, actionsTitle, none, actions);
    el.append(actionsCard, h('section', { class: 'card', 'aria-labelledby': 'generic-view' }, viewTitle, view));
    /** @type {import('../net.js').Snapshot|null} */
    let snap = null;
    let busy = false;

    function render() {
      actionsTitle.textContent = ctx.t('generic.actions');
      viewTitle.textContent = ctx.t('generic.view');
      none.textContent = ctx.t('generic.none');
      if (!snap) return;
      actionsCard.hidden = ctx.me === null;
      // The platform's own actions (listed by GET /api/games) have their own buttons.
      const legal = ctx.gameLegal(snap);
      none.hidden = legal.length > 0;
      actions.replaceChildren(...legal.map((a) => h('button', {
        type: 'button', text: actionLabel(a, ctx.name), disabled: busy,
        onclick: async () => {
          busy = true;
          render();
          try { await ctx.act(a); } catch { /* shown by the platform */ }
          busy = false;
          render();
        },
      })));
      view.replaceChildren(renderValue(snap.view, ctx.name));
    }

    const offLang = ctx.onLangChange(render);
    render();
    return {
      update(s) {
        snap = s;
        render();
      },
      destroy() {
        offLang();
        el.replaceChildren();
      },
    };
  },
});
