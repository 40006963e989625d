// Phone sheets: writing the 5 numbers with live validation in words, and the
// locked sheet (5 cells, ascending, with the round's bonus row and what
// happened to each number during the count).

import { h } from '../../ui.js';

/**
 * @typedef {{code: string, params: Record<string, unknown>, slots: number[]}} Problem
 * @typedef {{size: number, distinct: boolean, range: [number, number], refused: Record<string, number>}} SheetCheck
 *   the engine's sheet checks as data (view.sheet_check): how many numbers, their
 *   range, and each number in range refused this round with its restricted last digit
 */

/**
 * Why a sheet would be refused, in the order a player should fix it, read from
 * the view's `sheet_check` (the server still has the final word).
 * @param {string[]} raw what is typed in the boxes
 * @param {SheetCheck} check
 * @param {number[]} digits this round's restricted digits, for the words
 * @returns {Problem[]}
 */
export function sheetProblems(raw, check, digits) {
  /** @type {Problem[]} */
  const out = [];
  /** @type {Array<[number, number]>} slot, number */
  const nums = [];
  const [low, top] = check.range;
  raw.forEach((text, slot) => {
    const s = String(text || '').trim();
    if (!s) return;
    if (!/^\d+$/.test(s)) {
      out.push({ code: 'bad_number', params: { text: s }, slots: [slot] });
      return;
    }
    nums.push([slot, Number(s)]);
  });
  for (const [slot, n] of nums) {
    const d = check.refused[String(n)];
    if (n < low || n > top) out.push({ code: 'out_of_range', params: { n, top }, slots: [slot] });
    else if (d !== undefined) {
      out.push({ code: 'restricted_digit', params: { n, d, digits: digits.join(', ') }, slots: [slot] });
    }
  }
  if (check.distinct) {
    /** @type {Map<number, number[]>} */
    const seen = new Map();
    for (const [slot, n] of nums) seen.set(n, [...(seen.get(n) || []), slot]);
    for (const [n, slots] of seen) {
      if (slots.length > 1) out.push({ code: 'duplicate', params: { n }, slots });
    }
  }
  const filled = raw.filter((s) => String(s || '').trim()).length;
  if (filled !== check.size) out.push({ code: 'not_five', params: { count: filled }, slots: [] });
  return out;
}

/**
 * The entry form: 5 boxes, the problems in words, and the lock button.
 * @param {import('../../games-loader.js').GameContext} ctx
 */
export function sheetForm(ctx) {
  const title = h('h2', { id: 'cu-entry-title' });
  const intro = h('p', { class: 'hint' });
  /** @type {HTMLInputElement[]} */
  const inputs = [];
  /** @type {HTMLElement[]} */
  const labels = [];
  const boxes = h('div', { class: 'cu-entry-boxes' });
  /** One box per number of the sheet, built when the view says how many. @param {number} size */
  function build(size) {
    for (let i = inputs.length; i < size; i++) {
      const id = `cu-num-${i + 1}`;
      const input = /** @type {HTMLInputElement} */ (h('input', {
        id, type: 'text', inputmode: 'numeric', pattern: '[0-9]*', maxlength: 3, autocomplete: 'off',
        class: 'cu-num-input', 'aria-describedby': 'cu-problems',
      }));
      const label = h('label', { for: id, class: 'cu-num-label', text: ctx.t('entry.slot', { n: i + 1 }) });
      input.addEventListener('input', () => {
        // Moving on after two digits keeps one thumb on the keypad.
        if (input.value.length >= 2 && i < inputs.length - 1 && !inputs[i + 1].value) inputs[i + 1].focus();
        check();
      });
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          if (i < inputs.length - 1) inputs[i + 1].focus();
          else if (!lockBtn.disabled) lockBtn.click();
        }
      });
      inputs.push(input);
      labels.push(label);
      boxes.append(h('div', { class: 'cu-num-field' }, label, input));
    }
  }
  const problemsEl = h('ul', { id: 'cu-problems', class: 'cu-problems', 'aria-live': 'polite' });
  const serverEl = h('p', { class: 'cu-refused', role: 'alert', hidden: true });
  const lockBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-lock' }));
  // Who sees the sheet before the round's end (docs/fairness.md, "Seals made on
  // the phone": the server must, to refuse a wrong sheet and to run the count).
  const seesEl = h('p', { class: 'hint cu-server-sees' });
  const el = h('section', { class: 'card cu-entry', 'aria-labelledby': 'cu-entry-title' },
    title, intro, boxes, problemsEl, serverEl, lockBtn, seesEl);

  /** @typedef {{check: SheetCheck, digits: number[], legal: boolean}} Rules */
  /** @type {Rules} */
  let rules = { check: { size: 0, distinct: true, range: [1, 49], refused: {} }, digits: [], legal: false };
  const top = () => rules.check.range[1];
  let busy = false;

  function check() {
    const problems = sheetProblems(inputs.map((x) => x.value), rules.check, rules.digits);
    const bad = new Set(problems.flatMap((p) => p.slots));
    inputs.forEach((x, i) => {
      x.classList.toggle('invalid', bad.has(i));
      if (bad.has(i)) x.setAttribute('aria-invalid', 'true');
      else x.removeAttribute('aria-invalid');
    });
    // "Not 5 yet" is a state, not a mistake: show it only when nothing else is wrong.
    const shown = problems.filter((p) => p.code !== 'not_five' || problems.length === 1);
    // The same number typed twice and restricted reads as one line, not two.
    const lines = new Map(shown.map((p) => [ctx.t(`check.${p.code}`, p.params), p.code]));
    problemsEl.replaceChildren(...[...lines].map(([text, code]) => h('li', {
      class: code === 'not_five' ? 'cu-todo' : 'cu-bad', text,
    })));
    if (!problems.length) problemsEl.replaceChildren(h('li', { class: 'cu-ok', text: ctx.t('check.ok') }));
    lockBtn.disabled = busy || !rules.legal || problems.length > 0;
    serverEl.hidden = true;
    return problems;
  }

  lockBtn.addEventListener('click', async () => {
    if (check().length || busy) return;
    busy = true;
    lockBtn.disabled = true;
    const numbers = inputs.map((x) => Number(x.value.trim()));
    try {
      await ctx.act({ type: 'numbers', numbers });
    } catch (e) {
      // Translated by the platform too; repeated here, next to the boxes.
      const err = /** @type {any} */ (e)?.error || {};
      const key = `error.${err.code}`;
      const text = ctx.t(key);
      serverEl.textContent = text !== key ? text : (err.message || ctx.t('error.generic'));
      busy = false;
      check();
      serverEl.hidden = false;
      return;
    }
    busy = false;
  });

  return {
    el,
    /** @param {Rules} next */
    update(next) {
      const topChanged = next.check.range[1] !== top();
      rules = next;
      build(rules.check.size);
      if (topChanged) intro.textContent = ctx.t('entry.intro', { top: top() });
      check();
    },
    /** New round: empty boxes. */
    reset() {
      for (const x of inputs) x.value = '';
      serverEl.hidden = true;
      check();
    },
    relabel() {
      title.textContent = ctx.t('entry.title');
      intro.textContent = ctx.t('entry.intro', { top: top() });
      labels.forEach((l, i) => { l.textContent = ctx.t('entry.slot', { n: i + 1 }); });
      lockBtn.textContent = ctx.t('entry.lock');
      seesEl.textContent = ctx.t('mysheet.server_sees');
      check();
    },
  };
}

/**
 * A sheet row: 5 cells with the bonus printed under each, marked with what
 * happened (declared, X, X with the bonus voided by the danger zone).
 * @param {import('../../games-loader.js').GameContext} ctx
 * @param {{numbers: number[]|null, declared?: number[], x_cells?: Array<{number: number, voided: boolean}>,
 *   bonusRow: number[], called?: number}} sheet
 */
export function sheetRow(ctx, sheet) {
  const declared = new Set(sheet.declared || []);
  const xs = new Map((sheet.x_cells || []).map((x) => [x.number, x]));
  const cells = [];
  // One cell per printed bonus: the row is as long as the sheet.
  for (let i = 0; i < sheet.bonusRow.length; i++) {
    const n = sheet.numbers ? sheet.numbers[i] : null;
    const x = n !== null ? xs.get(n) : undefined;
    let state = '';
    let mark = '';
    if (x) {
      state = x.voided ? 'cu-x cu-voided' : 'cu-x';
      mark = x.voided ? ctx.t('cell.voided') : ctx.t('cell.x');
    } else if (n !== null && declared.has(n)) {
      state = 'cu-declared';
      mark = ctx.t('cell.declared');
    } else if (n !== null && sheet.called !== undefined && n <= sheet.called) {
      state = 'cu-passed';
    }
    const bonus = sheet.bonusRow[i];
    cells.push(h('li', { class: `cu-cell ${state}` },
      h('span', { class: 'cu-cell-num', text: n === null ? '·' : n }),
      h('span', { class: 'cu-cell-bonus', text: `+${bonus}` }),
      mark ? h('span', { class: 'cu-cell-mark', text: mark }) : null));
  }
  return h('ol', { class: 'cu-sheet', 'aria-label': ctx.t('sheet.label') }, ...cells);
}

/**
 * The player's own locked sheet, as it stands in the count.
 * @param {import('../../games-loader.js').GameContext} ctx
 * @param {any} v the view
 * @param {string|null} hintKey a line under the sheet
 */
export function mySheet(ctx, v, hintKey) {
  const mine = v.sheets[v.me] || {};
  return h('section', { class: 'card cu-mysheet', 'aria-labelledby': 'cu-mysheet-title' },
    h('h2', { id: 'cu-mysheet-title', text: ctx.t('mysheet.title') }),
    sheetRow(ctx, {
      numbers: v.my_numbers,
      declared: mine.declared,
      x_cells: mine.x_cells,
      bonusRow: v.bonus_row,
      called: v.count.value,
    }),
    hintKey ? h('p', { class: 'hint', text: ctx.t(hintKey) }) : null);
}
