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

// The device's voice (speech synthesis, a tick without one) is the platform's:
// Camel Up's dice and King Up!'s reveal speak through it too.
export { Voice } from '../../voice.js';
