// The turn in view (issue 41 item 6: Camel Up's roll was ~1,330 px down the
// page). A game marks the parts of this phone's turn (`data-turn-view`):
// Camel Up's board, last die and actions, which end at the roll
// (`data-turn-end`); King Up!'s secret card to record, its vote or the castle
// it places on, the host's next round once a round is scored; Count Up's sheet
// to write with the round's cards, its number and call, a paper sheet's own
// bonus, the host's next round. None of them need be a "your turn". When such
// a turn begins, the scores and the "enter for" bar fold away behind one
// button (style.css: `.table.my-turn`) and the screen scrolls the turn between
// the top and the bottom bar; where it does not all fit, from its start, unless
// the game marked where its buttons end (`data-turn-end`: Camel Up's roll,
// under the bar on a 320×568 phone): that end just above the bar, the board a
// short scroll up. A mark's value names its turn, where one turn of this phone
// follows another with no other between (the host's call, then its next round:
// `data-turn-view="next"`; games/shared.js's markTurn): a new name is a new
// turn, brought into view.

import { h } from '../ui.js';

/**
 * @param {HTMLElement} area the game's area, where the marks are
 * @returns {{button: HTMLElement, update: () => void}} the button goes in the
 *   table screen, whose classes fold the scores
 */
export function turnFold(area) {
  /** The table screen, the button's own. */
  const screenOf = () => /** @type {HTMLElement} */ (button.closest('.table') || button);
  const button = h('button', {
    type: 'button', class: 'turn-fold', t: 'table.show_scores', 'aria-expanded': 'false', 'aria-controls': 'scoreboard',
    onclick: () => {
      const screen = screenOf();
      const show = !screen.classList.contains('show-scores');
      screen.classList.toggle('show-scores', show);
      button.setAttribute('aria-expanded', String(show));
    },
  });
  /** The names of the turn the game showed last time (its marks' values), null for none. */
  let shown = /** @type {string|null} */ (null);

  /** @param {HTMLElement} screen */
  function intoView(screen) {
    const marked = /** @type {HTMLElement[]} */ ([...area.querySelectorAll('[data-turn-view]')])
      .filter((el) => el.getClientRects().length > 0);
    if (!marked.length) return;
    const bar = /** @type {HTMLElement|null} */ (screen.querySelector('.bottom-bar'));
    const bottom = window.innerHeight - (bar ? bar.getBoundingClientRect().height : 0);
    const top = marked[0].getBoundingClientRect().top;
    // Where the turn's last part ends early (a setting below it), its mark says so.
    const last = marked[marked.length - 1];
    const endMark = last.querySelector('[data-turn-end]');
    const end = (endMark || last).getBoundingClientRect().bottom;
    if (top >= 0 && end <= bottom) return;
    const margin = 8;
    const fits = end - top <= bottom - margin;
    // All of it when it fits; else its marked end just above the bar, or its start.
    const by = fits ? Math.max(end - bottom + margin, Math.min(top - margin, 0)) : endMark ? end - bottom + margin : top - margin;
    window.scrollBy({ top: by, behavior: 'instant' });
  }

  return {
    button,
    /** After each draw of the game: fold and bring the turn into view as it begins. */
    update() {
      const screen = screenOf();
      const marks = area.isConnected ? [...area.querySelectorAll('[data-turn-view]')] : [];
      // By names, not by count: a part redrawn or added within a turn is no new turn.
      const turn = marks.length ? [...new Set(marks.map((el) => el.getAttribute('data-turn-view')))].sort().join('|') : null;
      screen.classList.toggle('my-turn', turn !== null);
      if (turn !== null && turn !== shown) {
        screen.classList.remove('show-scores');
        button.setAttribute('aria-expanded', 'false');
        intoView(screen);
      }
      shown = turn;
    },
  };
}
