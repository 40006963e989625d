// The phone's voice: speech synthesis, with a short tick where the device has
// no voice for the language (Count Up's caller, Camel Up's dice, King Up!'s
// reveal), and the switch that mutes it, remembered per game on this phone.

import { mayStartAudio, tone } from './chime.js';
import { h } from './ui.js';

const BCP47 = { ko: 'ko', en: 'en' };

/**
 * Speech synthesis plus a WebAudio tick. `prime()` must run inside a tap:
 * iOS only lets a page speak (or play audio) after a user gesture.
 */
export class Voice {
  /** @param {() => void} [onVoices] called when the device's voice list changes */
  constructor(onVoices) {
    /** @type {SpeechSynthesis|null} */
    this.synth = typeof window !== 'undefined' && 'speechSynthesis' in window ? window.speechSynthesis : null;
    /** @type {AudioContext|null} */
    this.audio = null;
    this.onVoices = () => { if (onVoices) onVoices(); };
    if (this.synth && typeof this.synth.addEventListener === 'function') {
      this.synth.addEventListener('voiceschanged', this.onVoices);
    }
  }

  /**
   * The device's voice for a language, or null.
   * @param {'ko'|'en'} lang
   * @returns {SpeechSynthesisVoice|null}
   */
  voiceFor(lang) {
    if (!this.synth) return null;
    /** @type {SpeechSynthesisVoice[]} */
    let voices = [];
    try { voices = this.synth.getVoices() || []; } catch { voices = []; }
    const want = BCP47[lang] || lang;
    const fits = voices.filter((v) => String(v.lang || '').toLowerCase().replace('_', '-').startsWith(want));
    return fits.find((v) => v.localService) || fits[0] || null;
  }

  /** Unlocks speech and sound; call from the tap that starts the count. */
  prime() {
    if (this.synth) {
      try {
        const u = new SpeechSynthesisUtterance(' ');
        u.volume = 0;
        this.synth.speak(u);
      } catch { /* no speech: the tick remains */ }
    }
    try {
      const AC = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
      // Outside a tap a new context only warns and stays suspended (chime.js).
      if (AC && !this.audio && mayStartAudio()) this.audio = new AC();
      if (this.audio && this.audio.state === 'suspended') this.audio.resume().catch(() => {});
    } catch { this.audio = null; }
  }

  /**
   * Says `text` in `lang`; a tick when no voice speaks that language.
   * @param {string} text
   * @param {'ko'|'en'} lang
   * @param {number} rate 1 = normal speed
   * @returns {'voice'|'tick'}
   */
  say(text, lang, rate = 1) {
    const voice = this.voiceFor(lang);
    if (this.synth && voice) {
      try {
        // A slow voice must not fall behind the count: the newest number wins.
        // (Only when needed: cancel() right before speak() drops the new
        // utterance on some Chrome builds.)
        if (this.synth.speaking || this.synth.pending) this.synth.cancel();
        const u = new SpeechSynthesisUtterance(text);
        u.voice = voice;
        u.lang = voice.lang;
        u.rate = Math.max(0.5, Math.min(2, rate));
        this.synth.speak(u);
        return 'voice';
      } catch { /* fall through to the tick */ }
    }
    this.tick();
    return 'tick';
  }

  /** A short click: 60 ms of a 880 Hz tone. */
  tick() {
    const ac = this.audio;
    if (!ac) return;
    try {
      tone(ac, 880, ac.currentTime, 0.25, 0.01, 0.06);
    } catch { /* sound unavailable: the big number still shows */ }
  }

  /** Stops speaking (pause, end of round). */
  hush() {
    if (this.synth) {
      try { this.synth.cancel(); } catch { /* nothing to stop */ }
    }
  }

  destroy() {
    this.hush();
    if (this.synth && typeof this.synth.removeEventListener === 'function') {
      this.synth.removeEventListener('voiceschanged', this.onVoices);
    }
    if (this.audio) this.audio.close().catch(() => {});
    this.audio = null;
  }
}

const STORE = 'tablemate.voice.';

/**
 * Whether the player switched this game's voice off on this phone: its other
 * sounds (the reminder's chime) stay quiet too; the vibration remains.
 * @param {string} game
 */
export function voiceOff(game) {
  try {
    return localStorage.getItem(STORE + game) === 'off';
  } catch { return false; }
}

/**
 * A mute switch for a game's voice: a toggle button (aria-pressed) whose
 * choice this phone remembers for the game. Until the player decides,
 * `defaultOn()` says whether it speaks (Count Up's caller, King Up!'s host).
 * @param {{t: (key: string, params?: Record<string, unknown>) => string, lang: 'ko'|'en'}} ctx
 * @param {string} game
 * @param {{voice: Voice, defaultOn?: () => boolean}} opts
 */
export function voiceSwitch(ctx, game, opts) {
  const key = STORE + game;
  /** @returns {boolean|null} */
  const saved = () => {
    try {
      const v = localStorage.getItem(key);
      return v === 'on' ? true : v === 'off' ? false : null;
    } catch { return null; }
  };
  const on = () => {
    const s = saved();
    return s === null ? (opts.defaultOn ? opts.defaultOn() : true) : s;
  };
  const button = /** @type {HTMLButtonElement} */ (h('button', { type: 'button', class: 'voice-switch' }));
  const render = () => {
    const speaking = on();
    button.setAttribute('aria-pressed', String(speaking));
    button.textContent = ctx.t(speaking ? 'voice.on' : 'voice.off');
  };
  button.addEventListener('click', () => {
    const next = !on();
    try { localStorage.setItem(key, next ? 'on' : 'off'); } catch { /* this page only */ }
    // The tap that turns it on is the gesture iOS needs before a page may speak.
    if (next) opts.voice.prime();
    else opts.voice.hush();
    render();
  });
  render();
  return {
    el: button,
    on,
    render,
    /**
     * Says `text` when the switch is on.
     * @param {string} text
     */
    say(text) {
      if (on()) opts.voice.say(text, ctx.lang);
    },
  };
}
