// King Up!'s columns of the results screen's score pad (screens/results.js):
// one per round (a 0 the rule of 33 raised marked), from the server's result.

/**
 * @param {import('../../screens/results.js').GameResult} res
 * @param {(key: string, params?: Record<string, unknown>) => string} t this game's strings
 * @returns {import('../../screens/results.js').ScorePad}
 */
export function scorePad(res, t) {
  /** @type {import('../../screens/results.js').ScorePad} */
  const pad = { head: [], cols: [], notes: [] };
  for (const r of res.rounds) {
    pad.head.push(t('pad.round', { round: r.round }));
    pad.cols.push((p) => `${r.points[p.id]}${r.rule33.includes(p.id) ? ' (33)' : ''}`);
    if (r.rule33.length) pad.notes.push(t('pad.rule33', { round: r.round }));
  }
  if (res.details.tie_break) pad.notes.push(t('pad.tie_break'));
  return pad;
}
