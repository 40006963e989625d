// The host's undo: a button in the table's bar and, above it, a sheet that asks
// first and says what undo would take back: the game action the server names
// (`snap.undo.target`), or why there is none (a reveal sealed the game so far).

import { errorText, t, translateElement } from '../i18n.js';
import { lineText } from '../history.js';
import { fetchHistory } from './history.js';
import { h, toast } from '../ui.js';

/**
 * @param {import('./session.js').Session} session
 * @param {() => import('../net.js').Snapshot|null} current the snapshot shown now
 */
export function undoSheet(session, current) {
  const what = h('p', { class: 'undo-what' });
  const yes = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'danger-fill', t: 'table.undo_confirm' }));
  const no = h('button', { type: 'button', t: 'common.cancel' });
  const title = h('h2', { id: 'undo-title', t: 'table.undo_title' });
  const sheet = h('div', { class: 'undo-sheet', id: 'undo-sheet', role: 'group', 'aria-labelledby': 'undo-title', hidden: true },
    title, what, h('div', { class: 'row' }, no, yes));
  const button = h('button', { type: 'button', class: 'danger', t: 'table.undo', 'aria-expanded': 'false', 'aria-controls': 'undo-sheet' });
  /** @param {HTMLElement} node @param {string} key keyed, so a change of language translates it again */
  const say = (node, key) => { node.dataset.i18n = key; translateElement(node); };
  /** @type {number|null|undefined} the version the open sheet names */
  let shown;

  const close = () => {
    sheet.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  };
  /** @param {import('../net.js').Snapshot|null} snap @returns {{target: number|null, sealed: boolean}|undefined} */
  const infoOf = (snap) => (snap ? /** @type {any} */ (snap).undo : undefined);

  /** The sheet for what undo would take back now; none: why not, and no confirm. */
  async function fill() {
    const snap = current();
    const info = infoOf(snap);
    const target = info ? info.target : undefined;
    shown = target;
    // No target named (a server without `undo` in its snapshot): nothing to confirm.
    const none = typeof target !== 'number';
    yes.hidden = none;
    // Until the sheet names the action it would take back: a tap must not undo
    // one the host has not read (the table moved while the sheet was open).
    yes.disabled = true;
    // Nothing to take back: the sheet says so, and asks nothing (issue 41
    // item 14: "Undo the last action?" above "there is nothing to undo").
    say(title, none ? 'table.undo_none_title' : 'table.undo_title');
    say(no, none ? 'common.close' : 'common.cancel');
    if (none) {
      // A reveal (votes, scores, piles) sealed the game so far: the game says what it was.
      what.textContent = info && info.sealed ? errorText({ code: 'undo_sealed' }, snap ? snap.game : '') : t('error.nothing_to_undo');
      no.focus();
      return;
    }
    what.textContent = t('common.loading');
    no.focus();
    const line = await actionLine(target);
    if (shown !== target) return;
    what.textContent = line ? t('table.undo_what', { what: line }) : t('table.undo_last');
    yes.disabled = false;
    yes.focus();
  }

  /**
   * The history line of the action at version `target` (none: the newest not
   * undone yet), in the screen's language.
   * @param {number} [target]
   */
  async function actionLine(target) {
    try {
      // That entry alone: on a longer page it may fold into a stretch of
      // calls ("4–10 counted by …") while undo takes back only its last number.
      const data = await fetchHistory(session.id, session.token, { limit: 1, before: target === undefined ? null : target + 1 });
      const entries = (data.rounds || []).flatMap((r) => r.entries || []).filter((e) => !e.undone);
      // One action may make several lines (a die that ends a leg): all of them.
      const newest = Math.max(...entries.map((e) => e.version));
      return entries.filter((e) => e.version === newest).map((e) => lineText(e, data.names || {})).join(' ');
    } catch {
      return '';
    }
  }

  button.addEventListener('click', () => {
    if (!sheet.hidden) { close(); return; }
    sheet.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    fill();
  });
  no.addEventListener('click', () => { close(); button.focus(); });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    // The action this sheet named, and no other (`undo_moved` if another came since).
    const target = shown;
    if (typeof target !== 'number') { close(); return; }
    try {
      await session.act({ type: 'undo', target });
      toast(t('table.undone_toast'));
    } catch { /* shown already */ }
    close();
  });

  return {
    button,
    sheet,
    /**
     * @param {import('../net.js').Snapshot} snap
     * @param {boolean} isHost
     */
    update(snap, isHost) {
      button.hidden = !isHost;
      if (!isHost) close();
      // The table moved on while the sheet was open: it names what undo takes back now.
      else if (!sheet.hidden && infoOf(snap) && infoOf(snap)?.target !== shown) fill();
    },
  };
}
