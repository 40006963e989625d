// Checkable dice in the browser, part two: the proof's checks (docs/fairness.md,
// "The proof"): each scope's commitment and outcomes, the phones' chains, the
// seals. No game rules: what a table's proof says was drawn, from the public
// inputs it lists (the draw schedule is web/rules.js's). This phone's own
// record (its chain, what it was shown) is web/screens/fair-chain.js's and
// fair-kept.js's.

import {
  ProofError, Stream, byCodePoint, checkLabel, commitmentOf, hashes, hex32, linkStep, obj, replayDraw, same, sealHash,
} from './hash.js';

// Issue 38's format (outcomes of chain links); /1, a proof saved before, is read as it was.
export const FORMAT = 'tablemate-proof/2';
const FORMATS = [FORMAT, 'tablemate-proof/1'];

/**
 * @typedef {{status: 'ok' | 'open' | 'mismatch' | 'server_only', code: string,
 *   where: {scope?: string, index?: number, draw?: number, seal?: string}}} Line
 * @typedef {{ok: boolean, lines: Line[], firstMismatch: Line | null}} Report
 */

/** @param {Record<string, any>} d @param {string} key @param {string} what @returns {any[]} */
function list(d, key, what) {
  if (!Array.isArray(d[key])) throw new ProofError(`${what} has no list ${key}`);
  return d[key];
}

/** @param {unknown} v */
function isWhole(v) {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** @param {string[]} labels @param {string} what */
function unique(labels, what) {
  if (new Set(labels).size !== labels.length) throw new ProofError(`two ${what}s share a label`);
}

/**
 * Checks a table's proof (GET /api/tables/<id>/proof): the same lines, in
 * the same order, with the same codes as Python's tablemate_verify.check.
 * Throws ProofError when it is not a proof at all, CheckUnavailable on a page
 * that is not secure.
 * @param {unknown} proof
 * @returns {Promise<Report>}
 */
export async function checkProof(proof) {
  await hashes();
  const p = obj(proof, 'the proof');
  if (!FORMATS.includes(/** @type {string} */ (p.format))) throw new ProofError(`not a ${FORMAT} (or /1) document`);
  const scopes = list(p, 'scopes', 'the proof').map((s) => obj(s, 'a scope'));
  const sealed = list(p, 'sealed', 'the proof').map((s) => obj(s, 'a seal'));
  /** @type {Line[]} */
  const lines = [];
  unique(scopes.map((s) => checkLabel(s.label)), 'scope');
  for (const scope of scopes) await checkScope(scope, lines);
  await checkChains(scopes, lines);
  unique(sealed.map((s) => checkLabel(s.label)), 'seal');
  for (const seal of sealed) await checkSeal(seal, lines);
  const firstMismatch = lines.find((l) => l.status === 'mismatch') || null;
  return { ok: firstMismatch === null, lines, firstMismatch };
}

/** @param {Record<string, any>} scope @param {Line[]} lines */
async function checkScope(scope, lines) {
  const label = /** @type {string} */ (scope.label);
  const committed = hex32(scope.commitment, 'commitment');
  const entries = list(scope, 'seeds', `scope ${label}`).map((e) => obj(e, 'a seed'));
  const seeds = entries.map((e) => hex32(e.seed, 'seed'));
  const outcomes = list(scope, 'outcomes', `scope ${label}`).map((o) => obj(o, 'an outcome'));
  const inForce = outcomes.map((o) => {
    if (!isWhole(o.index) || o.index < 0 || !isWhole(o.seeds) || o.seeds < 0) throw new ProofError(`scope ${label}: a bad outcome`);
    if (o.seeds > seeds.length) throw new ProofError(`scope ${label}, outcome ${o.index}: more seeds than listed`);
    return /** @type {number} */ (o.seeds);
  });
  if (scope.secret == null) {
    lines.push({ status: 'open', code: 'scope_open', where: { scope: label } });
    return;
  }
  const secret = hex32(scope.secret, 'secret');
  if (await commitmentOf(secret) !== committed) {
    lines.push({ status: 'mismatch', code: 'secret_mismatch', where: { scope: label } });
    return;
  }
  lines.push({ status: 'ok', code: 'secret_ok', where: { scope: label } });
  // Outcomes of links (outcome/2) use no seeds: the seed checks skip them.
  const byIndex = outcomes.map((o, i) => ({ o, k: inForce[i] })).filter((x) => !Object.hasOwn(x.o, 'links'))
    .sort((a, b) => a.o.index - b.o.index);
  for (let i = 1; i < byIndex.length; i += 1) {
    const [prev, cur] = [byIndex[i - 1], byIndex[i]];
    if (cur.k < prev.k || (cur.o.index === prev.o.index && cur.k !== prev.k)) {
      lines.push({ status: 'mismatch', code: 'seeds_went_back', where: { scope: label, index: cur.o.index } });
    }
  }
  // A seed accepted at version v counts for every outcome drawn after v.
  outcomes.forEach((o, i) => {
    if (!isWhole(o.v) || Object.hasOwn(o, 'links')) return;
    const late = entries.findIndex((e, p) => isWhole(e.v) && o.v > e.v && inForce[i] <= p);
    if (late >= 0) lines.push({ status: 'mismatch', code: 'late_seed', where: { scope: label, index: o.index } });
  });
  for (let i = 0; i < outcomes.length; i += 1) await checkOutcome(secret, label, seeds.slice(0, inForce[i]), outcomes[i], lines);
}

/** @param {string} secret @param {string} label @param {string[]} seeds @param {Record<string, any>} o @param {Line[]} lines */
async function checkOutcome(secret, label, seeds, o, lines) {
  const index = /** @type {number} */ (o.index);
  if (o.fixed === true) {
    // A test server's outcome given as it was: nothing derived it, nothing proves it.
    lines.push({ status: 'mismatch', code: 'outcome_fixed', where: { scope: label, index } });
    return;
  }
  const draws = list(o, 'draws', `outcome ${index}`).map((d) => obj(d, 'a draw'));
  const fields = o.fields === undefined ? {} : obj(o.fields, 'fields');
  const links = Object.hasOwn(o, 'links') ? list(o, 'links', `outcome ${index}`) : null;
  const stream = await Stream.open(secret, label, seeds, index, links);
  for (let d = 0; d < draws.length; d += 1) {
    const draw = draws[d];
    const where = { scope: label, index, draw: d };
    if (!Object.hasOwn(draw, 'result')) throw new ProofError(`outcome ${index}, draw ${d}: no result`);
    const expected = await replayDraw(stream, draw);
    if (!same(expected, draw.result)) {
      lines.push({ status: 'mismatch', code: 'draw_mismatch', where });
      return;
    }
    for (const [name, value] of linked(draw.field, expected)) {
      if (!Object.hasOwn(fields, name) || !same(fields[name], value)) {
        lines.push({ status: 'mismatch', code: 'field_mismatch', where });
        return;
      }
    }
  }
  if (!(links === null ? seeds.length : links.length)) {
    // No phone's seed or link went into it: the server drew it alone (replayed, not checked).
    lines.push({ status: 'server_only', code: 'outcome_server_only', where: { scope: label, index } });
    return;
  }
  lines.push({ status: 'ok', code: 'outcome_ok', where: { scope: label, index } });
}

/**
 * The game's fields a draw fills: "field": "die" (its result), or
 * "field": ["color", "value"] (its result's items, in order).
 * @param {unknown} link @param {unknown} result
 * @returns {[string, unknown][]}
 */
function linked(link, result) {
  if (link === undefined || link === null) return [];
  if (typeof link === 'string') return [[link, result]];
  if (Array.isArray(link) && link.every((x) => typeof x === 'string') && Array.isArray(result) && result.length === link.length) {
    return link.map((name, i) => [name, result[i]]);
  }
  throw new ProofError("a draw's field is a name, or as many names as its result has items");
}

/**
 * Every seat's links, over the whole proof in the order the draws were made
 * (version, then scope, then index), step down its chain strictly one each,
 * as tablemate_verify.chain.chain_faults.
 * @param {Record<string, any>[]} scopes @param {Line[]} lines
 */
async function checkChains(scopes, lines) {
  /** @type {Map<string, {anchor: string, length: number}>} */
  const chains = new Map();
  /** @type {{v: number, label: string, index: number, seat: string, link: string, anchor: string}[]} */
  const uses = [];
  for (const scope of scopes) {
    const label = /** @type {string} */ (scope.label);
    for (const c of Array.isArray(scope.chains) ? scope.chains : []) {
      const ch = obj(c, 'a chain');
      if (typeof ch.seat !== 'string' || !isWhole(ch.length) || !isWhole(ch.v)) throw new ProofError(`scope ${label}: a bad chain`);
      chains.set(`${ch.seat} ${hex32(ch.anchor, 'anchor')}`, { anchor: ch.anchor, length: ch.length });
    }
    for (const o of scope.outcomes) {
      if (!Object.hasOwn(o, 'links')) continue;
      if (!isWhole(o.v)) throw new ProofError(`scope ${label}, outcome ${o.index}: an outcome of links has its version`);
      const seen = new Set();
      for (const e of list(o, 'links', `outcome ${o.index}`).map((x) => obj(x, 'a link'))) {
        if (typeof e.seat !== 'string' || seen.has(e.seat)) throw new ProofError(`scope ${label}: a bad link`);
        seen.add(e.seat);
        uses.push({ v: o.v, label, index: o.index, seat: e.seat, link: hex32(e.link, 'link'), anchor: hex32(e.anchor, 'anchor') });
      }
    }
  }
  if (!uses.length) return;
  uses.sort((a, b) => a.v - b.v || byCodePoint(a.label, b.label) || a.index - b.index);
  /** @type {Map<string, {prev: string, k: number, at: string|null}>} */
  const last = new Map();
  let faults = 0;
  for (const u of uses) {
    const key = `${u.seat} ${u.anchor}`;
    const where = { scope: u.label, index: u.index };
    const at = `${u.label} ${u.index}`;
    const chain = chains.get(key);
    const fault = () => { faults += 1; lines.push({ status: 'mismatch', code: 'link_mismatch', where }); };
    if (chain === undefined) { fault(); continue; }
    const { prev, k, at: was } = last.get(key) || { prev: chain.anchor, k: 0, at: null };
    if (u.link === prev && k > 0) {
      if (was !== at) fault();
      continue;
    }
    if (await linkStep(u.link) !== prev || k + 1 > chain.length) { fault(); continue; }
    last.set(key, { prev: u.link, k: k + 1, at });
  }
  if (!faults) lines.push({ status: 'ok', code: 'links_ok', where: {} });
}

/** @param {Record<string, any>} seal @param {Line[]} lines */
async function checkSeal(seal, lines) {
  const where = { seal: /** @type {string} */ (seal.label) };
  const hash = hex32(seal.hash, 'hash');
  if (seal.salt == null) {
    lines.push({ status: 'open', code: 'seal_open', where });
    return;
  }
  const salt = hex32(seal.salt, 'salt');
  if (!Object.hasOwn(seal, 'value')) throw new ProofError(`seal ${where.seal}: a revealed seal has its value`);
  const ok = await sealHash(where.seal, salt, seal.value) === hash;
  lines.push(ok ? { status: 'ok', code: 'seal_ok', where } : { status: 'mismatch', code: 'seal_mismatch', where });
}

/**
 * How many of a scope's outcomes counted this phone's seed (a scope of the
 * proof), or -1 when the seed is not listed at all.
 * @param {Record<string, any>} scope @param {string} seed
 */
export function seedCounted(scope, seed) {
  const seeds = Array.isArray(scope.seeds) ? scope.seeds : [];
  const p = seeds.findIndex((/** @type {any} */ e) => e && e.seed === seed);
  if (p < 0) return -1;
  const outcomes = Array.isArray(scope.outcomes) ? scope.outcomes : [];
  return outcomes.filter((/** @type {any} */ o) => isWhole(o && o.seeds) && o.seeds > p).length;
}
