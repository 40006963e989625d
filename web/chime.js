// The reminder's chime: two short rising tones through Web Audio, for a phone
// the table has waited on too long. Browsers let a page sound only after a
// tap on it, so the audio is unlocked by the phone's first tap (`armChime`).

/** @type {AudioContext|null} */
let audio = null;
let armed = false;

/**
 * Whether a page may start its audio now: inside a tap (the browser's
 * transient activation) where the browser says. Creating an AudioContext
 * outside one only logs "The AudioContext was not allowed to start" and
 * gives a context that stays suspended (issue 41 item 15).
 */
export function mayStartAudio() {
  const activation = /** @type {{isActive?: boolean}|undefined} */ (/** @type {any} */ (navigator).userActivation);
  return !activation || activation.isActive !== false;
}

function unlock() {
  if (!audio && !mayStartAudio()) return;
  try {
    const AC = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (AC && !audio) audio = new AC();
    if (audio && audio.state === 'suspended') audio.resume().catch(() => {});
  } catch { audio = null; }
}

/** Unlocks the chime at the page's next tap (once; later calls do nothing). */
export function armChime() {
  if (armed || typeof document === 'undefined') return;
  armed = true;
  // A touch's pointerdown is not yet a tap that may start audio (its pointerup,
  // click or a key is): unlocking there logged a warning and stayed silent.
  const events = ['click', 'keydown'];
  const once = () => {
    if (!mayStartAudio()) return;
    for (const e of events) document.removeEventListener(e, once, true);
    unlock();
  };
  for (const e of events) document.addEventListener(e, once, { capture: true, passive: true });
}

/**
 * One sine tone at `hz` from `t0`: up to `peak` in `rise` s, faded out by `length` s
 * (exponential both ways, so it starts and ends without a click). Throws where
 * Web Audio does; callers catch.
 * @param {AudioContext} ac @param {number} hz @param {number} t0
 * @param {number} peak @param {number} rise @param {number} length
 */
export function tone(ac, hz, t0, peak, rise, length) {
  const osc = ac.createOscillator();
  const gain = ac.createGain();
  osc.frequency.value = hz;
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(peak, t0 + rise);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(gain).connect(ac.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.01);
}

/** Two tones, 660 then 880 Hz, 0.15 s each; nothing where the page may not sound. */
export function chime() {
  if (!audio) unlock();
  const ac = audio;
  if (!ac) return;
  try {
    const start = ac.currentTime;
    [660, 880].forEach((hz, i) => tone(ac, hz, start + i * 0.18, 0.3, 0.02, 0.15));
  } catch { /* no sound: the vibration and the screen remain */ }
}
