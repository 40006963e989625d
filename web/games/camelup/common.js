// Shared pieces of the Camel Up screens: the stylesheet link, camels and dice
// drawn in their colours, names of colours and money. No rules live here: the
// board, what is legal and every payout come from the server's view.

import { loadCss } from '../shared.js';
import { h } from '../../ui.js';

/**
 * @typedef {{
 *   t: (key: string, params?: Record<string, unknown>) => string,
 *   readonly lang: 'ko'|'en', me: string|null, name: (pid: string) => string,
 *   act: (action: {type: string, [k: string]: unknown}, opts?: {as?: string}) => Promise<{version: number, events: unknown[]}>,
 *   vibrate: (pattern: number|number[]) => void,
 *   title: () => string,
 * }} Ctx
 * @typedef {{die: string, value: number, color: string|null, camel: string}} Tent
 */

export const RACING = ['blue', 'green', 'yellow', 'red', 'purple'];
export const CRAZY = ['white', 'black'];
export const GREY = 'grey';

/** Loads camelup.css once; see shared.js. */
export const ensureCss = () => loadCss('camelup');

/**
 * The colour word a camel is drawn in: racing camels follow the table's
 * racingColours (CU-17), crazy camels are white and black.
 * @param {any} view
 * @param {string} camel
 */
export function colourWord(view, camel) {
  if (RACING.includes(camel)) return (view && view.colours && view.colours[camel]) || camel;
  return camel;
}

/** @param {string} camel */
export const isCrazy = (camel) => CRAZY.includes(camel);

/**
 * "blue" / "파랑" for a camel or a die.
 * @param {Ctx} ctx @param {any} view @param {string} camel
 */
export function colourName(ctx, view, camel) {
  return ctx.t(`colour.${colourWord(view, camel)}`);
}

/**
 * "blue camel" / "white crazy camel".
 * @param {Ctx} ctx @param {any} view @param {string} camel
 */
export function camelName(ctx, view, camel) {
  return ctx.t(isCrazy(camel) ? 'camel.crazy' : 'camel.racing', { colour: colourName(ctx, view, camel) });
}

/** @param {Ctx} ctx @param {number} n */
export function money(ctx, n) {
  return ctx.t('money', { n });
}

/**
 * One camel in its colour, with a head on the side it faces. Racing camels
 * face their running direction (`reverse` on the bottom row of the loop),
 * crazy camels the other way.
 * @param {Ctx} ctx @param {any} view @param {string} camel
 * @param {{reverse?: boolean, label?: boolean}} [opts]
 */
export function camelEl(ctx, view, camel, opts = {}) {
  const word = colourWord(view, camel);
  const right = isCrazy(camel) === Boolean(opts.reverse);
  return h('span', {
    class: `cm-camel cm-c-${word} ${isCrazy(camel) ? 'crazy' : 'racing'} ${right ? 'face-r' : 'face-l'}`,
    role: opts.label === false ? null : 'img',
    'aria-label': opts.label === false ? null : camelName(ctx, view, camel),
    'aria-hidden': opts.label === false ? 'true' : null,
    dataset: { camel },
  }, h('span', { class: 'cm-camel-letter', 'aria-hidden': 'true', text: ctx.t(`letter.${word}`) }));
}

/**
 * A small colour dot with the colour's name next to it ("● blue").
 * @param {Ctx} ctx @param {any} view @param {string} camel
 * @param {string} [extra] text after the name
 */
export function camelTag(ctx, view, camel, extra) {
  return h('span', { class: 'cm-tag', dataset: { camel } },
    h('span', { class: `cm-dot cm-c-${colourWord(view, camel)}`, 'aria-hidden': 'true' }),
    h('span', { text: extra === undefined ? colourName(ctx, view, camel) : `${colourName(ctx, view, camel)} ${extra}` }));
}

/**
 * "W2" / "B3" (Korean "흰2" / "검3"): a grey die's face, its ink's letter and value.
 * @param {Ctx} ctx @param {{color?: string|null, value: number}} face
 */
export function greyFace(ctx, face) {
  return `${ctx.t(face.color === 'black' ? 'face.black' : 'face.white')}${face.value}`;
}

/**
 * What a die out of the pyramid says, in words.
 * @param {Ctx} ctx @param {any} view @param {Tent} tent
 */
export function dieText(ctx, view, tent) {
  if (tent.die === GREY) return ctx.t('die.grey', { face: greyFace(ctx, tent), camel: camelName(ctx, view, tent.camel) });
  return ctx.t('die.racing', { colour: colourName(ctx, view, tent.die), value: tent.value });
}

/**
 * What the phone that rolled a die says aloud: "파랑 3" / "blue 3"; the grey
 * die names the crazy camel it moves ("흰색 미친 낙타 2").
 * @param {Ctx} ctx @param {any} view @param {Tent} tent
 */
export function dieWords(ctx, view, tent) {
  if (tent.die === GREY) return ctx.t('say.grey', { camel: camelName(ctx, view, tent.camel), value: tent.value });
  return ctx.t('say.racing', { colour: colourName(ctx, view, tent.die), value: tent.value });
}

/**
 * A die face: the die's colour, its camel's letter in the corner (as the
 * camels carry it: a colour alone is hard to tell for some eyes) and its
 * value (the grey die shows its number in the crazy camel's colour it rolled).
 * @param {Ctx} ctx @param {any} view @param {Tent} tent
 * @param {{big?: boolean, fresh?: boolean}} [opts]
 */
export function dieEl(ctx, view, tent, opts = {}) {
  const grey = tent.die === GREY;
  const cls = ['cm-die', grey ? `cm-die-grey ink-${tent.color}` : `cm-c-${colourWord(view, tent.die)}`];
  if (opts.big) cls.push('big');
  if (opts.fresh) cls.push('fresh');
  return h('span', {
    class: cls.join(' '),
    role: 'img',
    'aria-label': dieText(ctx, view, tent),
    dataset: { die: tent.die, value: String(tent.value), color: tent.color || '', camel: tent.camel },
  },
  grey ? null : h('span', { class: 'cm-die-letter', 'aria-hidden': 'true', text: ctx.t(`letter.${colourWord(view, tent.die)}`) }),
  h('span', { class: 'cm-die-value', 'aria-hidden': 'true', text: grey ? greyFace(ctx, tent) : String(tent.value) }));
}

/**
 * A percentage for the odds panel: "28.3%".
 * @param {number} p probability 0..1
 * @param {number} [digits]
 */
export function pct(p, digits = 1) {
  return `${(p * 100).toFixed(digits)}%`;
}

/**
 * A signed value: "+1.07", "−0.21"; "0.00" for what rounds to nothing
 * (never "−0.00").
 * @param {number} x
 */
export function signed(x) {
  const s = Math.abs(x).toFixed(2);
  if (Number(s) === 0) return s;
  return x < 0 ? `−${s}` : `+${s}`;
}

export { place } from '../shared.js';
