// The caller's voice: numbers as words (Sino-Korean, native Korean, English)
// and the device's speech synthesis, with a short tick where the device has
// no voice for the language. Pure functions first, so they can be tested.

const SINO_DIGITS = ['', '일', '이', '삼', '사', '오', '육', '칠', '팔', '구'];
const SINO_UNITS = [[1000, '천'], [100, '백'], [10, '십']];

/**
 * A whole number 1–9999 in Sino-Korean numerals, as a caller says it:
 * 23 → "이십삼", 10 → "십" (never "일십"), 105 → "백오".
 * @param {number} n
 * @returns {string}
 */
export function sinoKorean(n) {
  if (!Number.isInteger(n) || n < 0 || n > 9999) return String(n);
  if (n === 0) return '영';
  let out = '';
  let rest = n;
  for (const [value, unit] of SINO_UNITS) {
    const d = Math.floor(rest / Number(value));
    rest %= Number(value);
    if (d) out += (d === 1 ? '' : SINO_DIGITS[d]) + unit;
  }
  return out + SINO_DIGITS[rest];
}

const NATIVE_ONES = ['', '하나', '둘', '셋', '넷', '다섯', '여섯', '일곱', '여덟', '아홉'];
const NATIVE_TENS = ['', '열', '스물', '서른', '마흔', '쉰', '예순', '일흔', '여든', '아흔'];

/**
 * Native Korean numerals (하나, 둘, … 스물셋) for 1–99; larger numbers fall
 * back to Sino-Korean, as people count aloud.
 * @param {number} n
 */
export function nativeKorean(n) {
  if (!Number.isInteger(n) || n < 1 || n > 99) return sinoKorean(n);
  return NATIVE_TENS[Math.floor(n / 10)] + NATIVE_ONES[n % 10];
}

const EN_SMALL = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const EN_TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/**
 * English words for 0–999: 23 → "twenty-three", 105 → "one hundred five".
 * @param {number} n
 * @returns {string}
 */
export function englishNumber(n) {
  if (!Number.isInteger(n) || n < 0 || n > 999) return String(n);
  if (n < 20) return EN_SMALL[n];
  if (n < 100) return EN_TENS[Math.floor(n / 10)] + (n % 10 ? `-${EN_SMALL[n % 10]}` : '');
  const rest = n % 100;
  return `${EN_SMALL[Math.floor(n / 100)]} hundred${rest ? ` ${englishNumber(rest)}` : ''}`;
}

/**
 * The words the caller says for `n`.
 * @param {number} n
 * @param {'ko'|'en'} lang
 * @param {'sino'|'native'} [style] Korean numerals: Sino-Korean (default) or native
 */
export function spokenNumber(n, lang, style = 'sino') {
  if (lang === 'ko') return style === 'native' ? nativeKorean(n) : sinoKorean(n);
  return englishNumber(n);
}

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
      if (AC && !this.audio) this.audio = new AC();
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
      const osc = ac.createOscillator();
      const gain = ac.createGain();
      const now = ac.currentTime;
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, now);
      gain.gain.exponentialRampToValueAtTime(0.25, now + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + 0.06);
      osc.connect(gain).connect(ac.destination);
      osc.start(now);
      osc.stop(now + 0.07);
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
