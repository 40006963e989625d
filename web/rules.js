// The check with the games' draw schedules, as `python -m tablemate_verify`
// runs it (tablemate_verify/schedule.py and rules.py; docs/fairness.md, "The
// draw schedule"): every revealed outcome's draws rebuilt from the game's
// start and the results before it, replayed with those inputs, never the
// proof's own; then each scope's seeds held to the log's seed actions. The
// same lines, in the same order, with the same codes as Python's verify().
// No game logic of the app's: the few rules a draw depends on, restated.

import { ProofError, checkProof } from './fairness.js';

/**
 * @typedef {import('./fairness.js').Line} Line
 * @typedef {import('./fairness.js').Report} Report
 * @typedef {Record<string, any>} Obj
 * @typedef {Map<string, Map<number, unknown[]>>} Earlier scope name → index → results
 * @typedef {(start: Obj, name: string, index: number, results: unknown[], before: Earlier) => Obj[]} Schedule
 */

const CU_RACING = ['blue', 'green', 'yellow', 'red', 'purple'];
const CU_CRAZY = ['white', 'black'];
const CU_DICE = [...CU_RACING, 'grey'];
const CU_FACES = [1, 2, 3];
const CU_ROLLS_PER_LEG = 5;
const KU_DECK = 26;
const CO_BIG_TABLE = 8;
const LABEL = /^t\/([A-Za-z0-9_-]+)\/g([1-9][0-9]*)\/(.+?)(?:\.([2-9]|[1-9][0-9]+))?$/;
const FIELDS = { camelup: ['die', 'color', 'value'], kingup: ['card'], countup: ['restriction', 'danger'] };
const INPUTS = ['op', 'items', 'k', 'start', 'stop', 'step'];

/** An outcome the rules cannot have drawn. */
class ScheduleError extends Error {}

/** @param {unknown} a @param {unknown} b */
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
/** @param {unknown[]} items */
const choice = (items) => ({ op: 'choice', items: [...items] });
/** @param {unknown} v @returns {v is number} */
const whole = (v) => typeof v === 'number' && Number.isInteger(v);

/** @param {number} index @param {Map<number, unknown[]>} drawn @param {string} what */
function contiguous(index, drawn, what) {
  for (let i = 0; i < index; i += 1) {
    if (!drawn.has(i)) throw new ScheduleError(`${what} ${index} has no ${what} ${i} before it`);
  }
}

/** @type {Schedule} */
function camelup(start, name, index, results, before) {
  if (name === 'setup') {
    if (index !== 0) throw new ScheduleError(`the setup is outcome 0, not ${index}`);
    const plan = CU_RACING.map(() => choice(CU_FACES));
    if ((start.options || {}).setupStackOrder === 'random') plan.push({ op: 'shuffle', items: [...CU_RACING] });
    return [...plan, choice(CU_CRAZY), choice(CU_FACES), choice(CU_CRAZY), choice(CU_FACES)];
  }
  const m = /^leg\/([0-9]+)$/.exec(name);
  if (!m || Number(m[1]) < 1) throw new ScheduleError(`Camel Up draws nothing in a scope ${name}`);
  if (index < 0 || index >= CU_ROLLS_PER_LEG) throw new ScheduleError(`a leg has rolls 0 to 4, not ${index}`);
  const rolls = before.get(name) || new Map();
  contiguous(index, rolls, 'roll');
  const out = new Set(Array.from({ length: index }, (_, i) => /** @type {unknown[]} */ (rolls.get(i))[0]));
  const plan = [choice(CU_DICE.filter((d) => !out.has(d)))];
  if (results[0] === 'grey') plan.push(choice(CU_CRAZY));
  plan.push(choice(CU_FACES));
  return plan;
}

/** @type {Schedule} */
function kingup(start, name, index, results, before) {
  if (!/^round\/[0-9]+\/goals$/.test(name)) throw new ScheduleError(`King Up draws nothing in a scope ${name}`);
  /** @type {Map<number, unknown[]>} */
  const dealt = new Map();
  for (const [scope, outcomes] of before) {
    if (scope.endsWith('/goals')) for (const [i, r] of outcomes) dealt.set(i, r);
  }
  if (index < 0 || index >= KU_DECK) throw new ScheduleError(`the deck has ${KU_DECK} cards, so no card ${index}`);
  contiguous(index, dealt, 'card');
  const used = new Set(Array.from({ length: index }, (_, i) => /** @type {unknown[]} */ (dealt.get(i))[0]));
  return [choice([...Array(KU_DECK).keys()].filter((k) => !used.has(k)))];
}

/** @param {unknown[][]} deck @param {number[]} used */
function remaining(deck, used) {
  const left = deck.filter((_, i) => !used.includes(i));
  return (left.length ? left : deck).map((c) => [...c]);
}

/** @param {unknown[][]} deck @param {number[]} used @param {unknown} card */
function take(deck, used, card) {
  let left = deck.map((_, i) => i).filter((i) => !used.includes(i));
  if (!left.length) left = deck.map((_, i) => i);
  const from = left.length === deck.length ? [] : used;
  for (const i of left) if (same(deck[i], card)) return [...from, i];
  throw new ScheduleError(`the card ${JSON.stringify(card)} was not left in its deck`);
}

/** @type {Schedule} */
function countup(start, name, index, results, before) {
  const options = start.options || {};
  const n = whole(start.players) ? start.players : (start.players || []).length;
  const digits = (options.restrictedDigitsByPlayers || {})[String(n)] || 0;
  const restriction = n < CO_BIG_TABLE && digits > 0;
  const danger = Boolean(options.dangerZoneEnabled);
  const rDeck = options.restrictionDeck || [];
  const dDeck = options.dangerZones || [];
  if (index !== 0) throw new ScheduleError(`a round's cards are outcome 0, not ${index}`);
  /** @type {number[]} */
  let rUsed = [];
  /** @type {number[]} */
  let dUsed = [];
  if (name !== 'setup') {
    const m = /^round\/([0-9]+)$/.exec(name);
    if (!m || Number(m[1]) < 2) throw new ScheduleError(`Count Up draws nothing in a scope ${name}`);
    const shown = [[options.firstRestrictionCard, options.firstDangerCard]];
    for (let k = 2; k < Number(m[1]); k += 1) {
      const drawn = (before.get(`round/${k}`) || new Map()).get(0);
      if (drawn === undefined) throw new ScheduleError(`round ${m[1]}'s cards, but round ${k}'s are not in the proof`);
      shown.push([restriction ? drawn[0] : null, danger ? drawn[drawn.length - 1] : null]);
    }
    for (const [card, zone] of shown) {
      if (restriction) rUsed = take(rDeck, rUsed, card);
      if (danger) dUsed = take(dDeck, dUsed, zone);
    }
  }
  const plan = [];
  if (restriction) plan.push(choice(remaining(rDeck, rUsed)));
  if (danger) plan.push(choice(remaining(dDeck, dUsed)));
  return plan;
}

/** @type {Record<string, Schedule>} */
const SCHEDULES = { camelup, kingup, countup };

/**
 * The full check (Python's tablemate_verify.rules.verify): checkProof's lines
 * for the proof with the schedule's inputs, then the schedule's, then the seeds'.
 * @param {unknown} proof
 * @returns {Promise<Report>}
 */
export async function verifyProof(proof) {
  /** @type {Line[]} */
  const rules = [];
  const rebuilt = rebuild(proof, rules);
  const report = await checkProof(rebuilt);
  const lines = [...report.lines, ...rules];
  seeds(rebuilt, lines);
  const firstMismatch = lines.find((l) => l.status === 'mismatch') || null;
  return { ok: firstMismatch === null, lines, firstMismatch };
}

/** @param {Obj} o @param {string} game */
function resultsOf(o, game) {
  if (o.fixed === true) {
    const fields = o.fields && typeof o.fields === 'object' ? o.fields : {};
    return (FIELDS[/** @type {keyof FIELDS} */ (game)] || []).filter((k) => Object.hasOwn(fields, k)).map((k) => fields[k]);
  }
  return (Array.isArray(o.draws) ? o.draws : []).filter(isObj).map((d) => (Object.hasOwn(d, 'result') ? d.result : null));
}

/** @param {unknown} v @returns {v is Obj} */
const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** @param {Obj} s @returns {Obj[]} */
const outcomesOf = (s) => (Array.isArray(s.outcomes) ? s.outcomes.filter(isObj) : []);

/** @param {unknown} proof @param {Line[]} lines @returns {unknown} */
function rebuild(proof, lines) {
  if (!isObj(proof) || !Array.isArray(proof.scopes)) return proof;
  const out = JSON.parse(JSON.stringify(proof));
  const game = out.game;
  const schedule = typeof game === 'string' && Object.hasOwn(SCHEDULES, game) ? SCHEDULES[game] : null;
  const starts = startsOf(out);
  /** @type {[Obj, [number, string] | null][]} */
  const named = out.scopes.filter(isObj).map((/** @type {Obj} */ s) => [s, nameOf(out, s)]);
  /** @type {Map<number, Earlier>} */
  const earlier = new Map();
  for (const [s, parsed] of named) {
    if (parsed === null || s.secret == null) continue;
    const [g, base] = parsed;
    if (!earlier.has(g)) earlier.set(g, new Map());
    const byGame = /** @type {Earlier} */ (earlier.get(g));
    if (!byGame.has(base)) byGame.set(base, new Map());
    const by = /** @type {Map<number, unknown[]>} */ (byGame.get(base));
    for (const o of outcomesOf(s)) if (whole(o.index) && !by.has(o.index)) by.set(o.index, resultsOf(o, String(game)));
  }
  for (const [s, parsed] of named) {
    if (s.secret == null) continue;
    const at = { scope: s.label };
    if (schedule === null || parsed === null || !starts.has(parsed[0])) {
      lines.push({ status: 'mismatch', code: 'no_schedule', where: at });
      continue;
    }
    const [g, base] = parsed;
    const before = /** @type {Earlier} */ (earlier.get(g) || new Map());
    let all = true;
    for (const o of outcomesOf(s)) {
      if (!outcome(String(game), schedule, /** @type {Obj} */ (starts.get(g)), base, s, o, before, lines)) all = false;
    }
    if (all) lines.push({ status: 'ok', code: 'inputs_ok', where: at });
  }
  return out;
}

/**
 * @param {string} game @param {Schedule} schedule @param {Obj} start @param {string} base
 * @param {Obj} scope @param {Obj} o @param {Earlier} before @param {Line[]} lines
 */
function outcome(game, schedule, start, base, scope, o, before, lines) {
  const index = o.index;
  if (!whole(index) || o.fixed === true || !Array.isArray(o.draws)) return true;
  const where = { scope: scope.label, index };
  const mine = resultsOf(o, game);
  const drawn = (before.get(base) || new Map()).get(index);
  if (drawn !== undefined && !same(drawn, mine)) {
    lines.push({ status: 'mismatch', code: 'index_mismatch', where });
    return false;
  }
  let plan;
  try {
    plan = schedule(start, base, index, mine, before);
  } catch (e) {
    if (!(e instanceof ScheduleError)) throw e;
    lines.push({ status: 'mismatch', code: 'index_mismatch', where });
    return false;
  }
  /** @type {unknown[]} */
  const draws = o.draws;
  let ok = true;
  if (draws.length !== plan.length) {
    lines.push({ status: 'mismatch', code: 'inputs_mismatch', where });
    ok = false;
  }
  for (let d = 0; d < Math.min(draws.length, plan.length); d += 1) {
    const draw = draws[d];
    if (!isObj(draw)) continue;
    const want = plan[d];
    const given = INPUTS.filter((k) => Object.hasOwn(draw, k));
    const wrong = given.some((k) => !Object.hasOwn(want, k) || !same(draw[k], want[k]));
    if (ok && wrong) {
      lines.push({ status: 'mismatch', code: 'inputs_mismatch', where: { ...where, draw: d } });
      ok = false;
    }
    for (const k of INPUTS) delete draw[k];
    Object.assign(draw, want);
  }
  o.draws = draws.slice(0, plan.length);
  return ok;
}

/** @param {Obj} proof @param {Obj} scope @returns {[number, string] | null} */
function nameOf(proof, scope) {
  const m = typeof scope.label === 'string' ? LABEL.exec(scope.label) : null;
  if (m === null || m[1] !== proof.table) return null;
  return [Number(m[2]), m[3]];
}

/** @param {Obj} proof @returns {Map<number, Obj>} */
function startsOf(proof) {
  const starts = proof.starts === undefined ? [] : proof.starts;
  if (!Array.isArray(starts)) throw new ProofError("the proof's 'starts' is a list");
  /** @type {Map<number, Obj>} */
  const out = new Map();
  for (const s of starts) {
    if (!isObj(s) || !whole(s.game) || !isObj(s.options)) {
      throw new ProofError("a start is an object with 'game' (a number) and 'options' (an object)");
    }
    out.set(s.game, s);
  }
  return out;
}

/**
 * Each scope's seeds against the log's seed actions (Python's rules.seeds).
 * @param {unknown} proof @param {Line[]} lines
 */
function seeds(proof, lines) {
  if (!isObj(proof) || !Array.isArray(proof.scopes)) return;
  const logged = proof.seeded;
  if (!Array.isArray(logged)) {
    lines.push({ status: 'mismatch', code: 'seed_mismatch', where: {} });
    return;
  }
  for (const scope of proof.scopes) {
    if (!isObj(scope) || !Array.isArray(scope.seeds)) continue;
    const at = { scope: scope.label };
    const unversioned = scope.seeds.some((/** @type {unknown} */ e) => !isObj(e) || !whole(e.v))
      || outcomesOf(scope).some((o) => !whole(o.v));
    if (unversioned) {
      lines.push({ status: 'mismatch', code: 'seed_unversioned', where: at });
      continue;
    }
    /** @param {Obj} e */
    const key = (e) => [e.seat ?? null, e.seed ?? null, e.v ?? null];
    const want = logged.filter((e) => isObj(e) && e.scope === scope.label).map(key);
    const got = scope.seeds.map(key);
    lines.push(same(got, want) ? { status: 'ok', code: 'seeds_ok', where: at }
      : { status: 'mismatch', code: 'seed_mismatch', where: at });
  }
}
