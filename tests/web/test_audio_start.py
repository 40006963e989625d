"""web/chime.js and web/voice.js start Web Audio only inside a tap (issue 41
item 15: three "AudioContext was not allowed to start" warnings on the host
after a page change). A touch's pointerdown is no such tap; its click is."""

from __future__ import annotations

from conftest import run_node

_SETUP = """
const listeners = {};
globalThis.window = globalThis;
globalThis.document = {
  addEventListener: (type, fn) => { (listeners[type] ||= []).push(fn); },
  removeEventListener: (type, fn) => { listeners[type] = (listeners[type] || []).filter((f) => f !== fn); },
};
const activation = { isActive: false, hasBeenActive: false };
Object.defineProperty(globalThis, 'navigator', { value: { userActivation: activation }, configurable: true });
let made = 0;
globalThis.AudioContext = class {
  constructor() { made += 1; this.state = 'running'; this.currentTime = 0; this.destination = {}; }
  resume() { return Promise.resolve(); }
  close() { return Promise.resolve(); }
  createOscillator() { return { frequency: {}, connect: (g) => g, start() {}, stop() {} }; }
  createGain() { const g = { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (d) => d }; return g; }
};
const fire = (type) => { for (const fn of [...(listeners[type] || [])]) fn(); };
const { armChime, chime } = await import('./web/chime.js');
const { Voice } = await import('./web/voice.js');
"""


def test_no_audio_starts_outside_a_tap() -> None:
    out = run_node(_SETUP + """
armChime();
chime();                       // the reminder, by a timer: no tap
fire('pointerdown');           // a touch begins: not a tap that may sound yet
new Voice().prime();           // a render, not a tap
const before = made;
activation.isActive = true;    // the tap's click
fire('click');
chime();
process.stdout.write(JSON.stringify({before, after: made, left: (listeners.click || []).length}));
""")
    assert out == {"before": 0, "after": 1, "left": 0}


def test_a_tap_lets_the_voice_start_its_sound() -> None:
    out = run_node(_SETUP + """
activation.isActive = true;
const v = new Voice();
v.prime();
process.stdout.write(JSON.stringify({made, has: v.audio !== null}));
""")
    assert out == {"made": 1, "has": True}
