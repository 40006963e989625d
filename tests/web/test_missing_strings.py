"""web/i18n.js reports every string a screen asks for that its language lacks
(e2e/conftest.py fails any phone that logs one), and the seats' figures show
no platform field as a game figure (issue 41 item 2: "paused ✓" on a Korean
King Up! screen)."""

from __future__ import annotations

from conftest import run_node

_SETUP = """
import { readFileSync } from 'node:fs';
globalThis.window = globalThis;
globalThis.localStorage = { getItem: () => 'ko', setItem() {} };
globalThis.navigator = { languages: ['ko'] };
globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => new Response(readFileSync(new URL(url).pathname));
const warned = [];
console.warn = (m) => warned.push(m);
const i18n = await import('./web/i18n.js');
await i18n.initI18n();
const { STRINGS } = await import('./web/games/kingup/strings.js');
i18n.addStrings('kingup', STRINGS);
const { figureChips } = await import('./web/screens/figures.js');
"""


def test_a_paused_seat_shows_its_game_figures_only() -> None:
    out = run_node(_SETUP + """
const chips = figureChips('kingup', {id: 'p2', name: 'Bora', host: false, phone: false, paused: true,
                                     total: 11, round_scores: [11]});
process.stdout.write(JSON.stringify({chips, warned}));
""")
    assert out == {"chips": ["합계 11점", "라운드별 11"], "warned": []}


def test_a_figure_or_a_key_without_a_translation_is_reported_once() -> None:
    out = run_node(_SETUP + """
const chips = figureChips('kingup', {id: 'p2', name: 'Bora', host: false, mystery: 3});
const shown = [i18n.t('no.such.key'), i18n.t('no.such.key')];
i18n.addStrings('kingup', {en: {'only.english': 'English only'}});
shown.push(i18n.t('kingup.only.english'));
shown.push(i18n.t('table.your_turn'));
process.stdout.write(JSON.stringify({chips, shown, warned}));
""")
    assert out["chips"] == ["mystery 3"]
    assert out["shown"] == ["no.such.key", "no.such.key", "English only", "내 차례예요"]
    assert out["warned"] == [
        'Tablemate: no translation for "kingup.figure.mystery" (ko)',
        'Tablemate: no translation for "no.such.key" (ko)',
        'Tablemate: no translation for "kingup.only.english" (ko)',
    ]
