// The caller: on the host's phone (or the seat the host named), start, pause,
// resume, one number at a time, the pace, and "finish now". The server never
// advances the count by itself: this phone sends `call {}` at the chosen pace.

import { confirmButton, h } from '../../ui.js';
import { markTurn } from '../shared.js';

export const PACES = [100, 200, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000];

/**
 * @typedef {import('../../games-loader.js').GameContext} Ctx
 * @typedef {{speech: boolean|null, style: 'sino'|'native', interval: number|null}} Prefs
 */

/**
 * @param {Ctx} ctx
 * @param {Prefs} prefs shared with the module (the pace, speech on/off, numerals)
 * @param {{prime: () => void, hush: () => void, onChange: () => void}} hooks
 */
export function callerPanel(ctx, prefs, hooks) {
  const title = h('h2', { id: 'cu-caller-title', class: 'cu-caller-title' });
  const note = h('p', { class: 'hint cu-caller-note' });
  const mainBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'primary cu-main' }));
  const stepBtn = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-step' }));
  const slower = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'icon cu-slower', text: '−' }));
  const faster = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'icon cu-faster', text: '+' }));
  const paceLabel = h('span', { class: 'cu-pace-label', id: 'cu-pace-label' });
  const paceValue = h('output', { class: 'cu-pace', id: 'cu-pace', 'aria-live': 'polite' });
  const speedRow = h('div', { class: 'cu-speed', role: 'group', 'aria-labelledby': 'cu-pace-label' },
    paceLabel, slower, paceValue, faster);
  const finishBtn = confirmButton({
    t: 'countup.caller.finish', confirm: 'countup.caller.finish_confirm', class: 'cu-finish',
    onConfirm: () => finishNow(),
  });
  // The big button first: it must be on screen under the number, not below the fold.
  const controls = h('div', { class: 'cu-controls' }, mainBtn, h('div', { class: 'row' }, stepBtn, finishBtn), speedRow);
  const whoLabel = h('label', { for: 'cu-who' });
  const who = /** @type {HTMLSelectElement} */ (h('select', { id: 'cu-who' }));
  const whoField = h('div', { class: 'field cu-who' }, whoLabel, who);
  const voiceSlot = h('div', { class: 'cu-voice-slot' });
  const el = h('section', { class: 'card cu-caller', 'aria-labelledby': 'cu-caller-title' },
    title, controls, note, voiceSlot, whoField);

  /** @type {any} */
  let snap = null;
  let running = false;
  let inflight = false;
  let timer = 0;
  let alive = true;
  let whoKey = '';

  const amCaller = () => {
    if (!snap || !snap.me) return false;
    const v = snap.view;
    return v.caller ? v.caller === snap.me : snap.me === snap.host;
  };
  const canCall = () => Boolean(snap && snap.view.phase === 'count' && !snap.view.count.end
    && (snap.legal || []).some((/** @type {any} */ a) => a.type === 'call' && !a.until));
  const interval = () => prefs.interval || (snap ? snap.view.interval_ms : 800) || 800;

  function stop() {
    running = false;
    clearTimeout(timer);
    timer = 0;
    render();
  }

  /** One `call {}`; false when the count should stop. */
  async function callOnce() {
    inflight = true;
    render();
    try {
      const res = await ctx.act({ type: 'call' });
      const events = /** @type {Array<any>} */ ((res && res.events) || []);
      return !events.some((e) => e.type === 'round_ended' || e.type === 'game_over');
    } catch {
      return false; // refused (shown by the platform): stop rather than repeat it
    } finally {
      inflight = false;
    }
  }

  async function loop() {
    if (!running || !alive) return;
    if (!canCall()) { stop(); return; }
    const started = performance.now();
    const more = await callOnce();
    if (!running || !alive) { render(); return; }
    if (!more) { stop(); return; }
    const wait = Math.max(0, interval() - (performance.now() - started));
    timer = window.setTimeout(loop, wait);
    render();
  }

  mainBtn.addEventListener('click', () => {
    if (running) {
      stop();
      hooks.hush();
      return;
    }
    if (!canCall() || inflight) return;
    // iOS speaks only after a gesture: this tap unlocks the voice.
    hooks.prime();
    running = true;
    render();
    loop();
  });
  stepBtn.addEventListener('click', async () => {
    if (running || inflight || !canCall()) return;
    hooks.prime();
    await callOnce();
    render();
  });
  /** @param {number} dir */
  const nudge = (dir) => {
    const now = interval();
    const list = PACES.includes(now) ? PACES : [...PACES, now].sort((a, b) => a - b);
    const i = list.indexOf(now);
    prefs.interval = list[Math.max(0, Math.min(list.length - 1, i + dir))];
    render();
    hooks.onChange();
  };
  slower.addEventListener('click', () => nudge(1));
  faster.addEventListener('click', () => nudge(-1));
  who.addEventListener('change', async () => {
    const seat = who.value || null;
    try { await ctx.act({ type: 'caller', seat }); } catch { /* shown by the platform */ }
    render();
  });

  async function finishNow() {
    stop();
    hooks.hush();
    if (!snap || !(snap.legal || []).some((/** @type {any} */ a) => a.type === 'call' && a.until === 'end')) return;
    try { await ctx.act({ type: 'call', until: 'end' }); } catch { /* shown by the platform */ }
  }

  function render() {
    if (!snap) return;
    const v = snap.view;
    const isHost = snap.me !== null && snap.me === snap.host;
    const mine = amCaller();
    const counting = v.phase === 'count' && !v.count.end;
    if (running && (!mine || !counting)) {
      running = false;
      clearTimeout(timer);
    }
    el.hidden = !(mine || isHost) || !(counting || v.phase === 'entry' || v.phase === 'cards');
    title.textContent = ctx.t(mine ? 'caller.title' : 'caller.title_other');
    const callerName = ctx.name(v.caller || snap.host);
    if (!counting) note.textContent = ctx.t('caller.before', { name: callerName });
    else if (!mine) note.textContent = ctx.t('caller.someone_else', { name: callerName });
    else if (v.sheet_mode === 'paper') note.textContent = ctx.t(running ? 'caller.paper_running' : v.count.value ? 'caller.paper_paused' : 'caller.paper_help');
    else note.textContent = ctx.t(running ? 'caller.running' : v.count.value ? 'caller.paused' : 'caller.help');
    controls.hidden = !(mine && counting);
    // The call is this phone's turn (screens/turn.js): the number and these controls in view.
    markTurn(el, mine && counting ? 'call' : null);
    voiceSlot.hidden = !(mine && counting);
    const ok = canCall();
    mainBtn.textContent = ctx.t(running ? 'caller.pause' : v.count.value ? 'caller.resume' : 'caller.start');
    mainBtn.classList.toggle('running', running);
    mainBtn.disabled = !running && (!ok || inflight);
    stepBtn.textContent = ctx.t('caller.step');
    stepBtn.disabled = running || inflight || !ok;
    finishBtn.disabled = !ok;
    paceLabel.textContent = ctx.t('caller.pace');
    paceValue.textContent = ctx.t('caller.pace_value', { s: (interval() / 1000).toFixed(1) });
    slower.setAttribute('aria-label', ctx.t('caller.slower'));
    faster.setAttribute('aria-label', ctx.t('caller.faster'));
    slower.disabled = interval() >= PACES[PACES.length - 1];
    faster.disabled = interval() <= PACES[0];
    // Only the host names the caller; everyone else just reads who it is.
    const choices = (snap.legal || []).filter((/** @type {any} */ a) => a.type === 'caller');
    whoField.hidden = !isHost || (!choices.length);
    whoLabel.textContent = ctx.t('caller.who');
    const opts = [null, ...v.players.filter((/** @type {string} */ p) => p !== snap.host)];
    const texts = opts.map((p) => (p ? ctx.name(p) : ctx.t('caller.who_host', { name: ctx.name(snap.host) })));
    // Rebuilt only when it changes: an open picker must survive the count's updates.
    const key = JSON.stringify([opts, texts]);
    if (key !== whoKey) {
      whoKey = key;
      who.replaceChildren(...opts.map((p, i) => h('option', { value: p || '', text: texts[i] })));
    }
    who.value = v.caller && v.caller !== snap.host ? v.caller : '';
  }

  return {
    el,
    voiceSlot,
    get running() { return running; },
    isCaller: amCaller,
    /** @param {any} next */
    update(next) {
      snap = next;
      render();
    },
    relabel: render,
    destroy() {
      alive = false;
      running = false;
      clearTimeout(timer);
    },
  };
}

/**
 * Speech on/off, Korean numerals, and which voice (or the tick) this phone uses.
 * @param {Ctx} ctx
 * @param {Prefs} prefs
 * @param {{prime: () => void, hush: () => void, voiceName: () => string|null, onChange: () => void}} hooks
 */
export function voiceControls(ctx, prefs, hooks) {
  const toggle = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'cu-speech' }));
  const styleLabel = h('label', { for: 'cu-style' });
  const style = /** @type {HTMLSelectElement} */ (h('select', { id: 'cu-style' },
    h('option', { value: 'sino' }), h('option', { value: 'native' })));
  const styleField = h('div', { class: 'field cu-style' }, styleLabel, style);
  const status = h('p', { class: 'hint cu-voice-status' });
  const el = h('div', { class: 'cu-voice' }, toggle, styleField, status);
  /** @type {() => boolean} */
  let defaultOn = () => false;

  const on = () => (prefs.speech === null ? defaultOn() : prefs.speech);
  toggle.addEventListener('click', () => {
    prefs.speech = !on();
    if (prefs.speech) hooks.prime();
    else hooks.hush();
    render();
    hooks.onChange();
  });
  style.addEventListener('change', () => {
    prefs.style = style.value === 'native' ? 'native' : 'sino';
    hooks.onChange();
  });

  function render() {
    const speaking = on();
    toggle.setAttribute('aria-pressed', String(speaking));
    toggle.textContent = ctx.t(speaking ? 'voice.on' : 'voice.off');
    styleField.hidden = ctx.lang !== 'ko';
    styleLabel.textContent = ctx.t('voice.style');
    style.options[0].textContent = ctx.t('voice.sino');
    style.options[1].textContent = ctx.t('voice.native');
    style.value = prefs.style;
    const name = hooks.voiceName();
    status.textContent = !speaking ? ctx.t('voice.muted')
      : name ? ctx.t('voice.using', { name }) : ctx.t('voice.tick');
  }

  return {
    el,
    on,
    /** @param {() => boolean} fn whether speech is on until the user decides */
    setDefault(fn) { defaultOn = fn; render(); },
    render,
  };
}
