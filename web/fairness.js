// Checkable dice and sealed sheets, in the browser (docs/fairness.md): the
// same derivation and checks as the Python package tablemate_verify, with Web
// Crypto. No game rules here: it checks what a table's proof says was drawn,
// from the public inputs the proof lists. tests/verify/test_js.py holds both
// to the same test vectors.

const OUTCOME_TAG = 'tablemate-outcome/1';
// An outcome the phones' hash-chain links went into (docs/fairness.md, "Chains").
const OUTCOME_TAG_2 = 'tablemate-outcome/2';
const SEAL_TAG = 'tablemate-seal/1';
// Issue 38's format (outcomes of chain links); /1, a proof saved before, is read as it was.
export const FORMAT = 'tablemate-proof/2';
const FORMATS = [FORMAT, 'tablemate-proof/1'];
const HEX32 = /^[0-9a-f]{64}$/;
const LABEL = /^[A-Za-z0-9/_.:-]{1,120}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SPAN = 2 ** 32;
const utf8 = new TextEncoder();

/**
 * @typedef {{status: 'ok' | 'open' | 'mismatch' | 'server_only', code: string,
 *   where: {scope?: string, index?: number, draw?: number, seal?: string}}} Line
 * @typedef {{ok: boolean, lines: Line[], firstMismatch: Line | null}} Report
 */

/** A proof that is not in the format: nothing in it can be checked. */
export class ProofError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = 'bad_proof';
  }
}

/**
 * Web Crypto's hashes exist only on a secure page (https, or localhost). On a
 * plain-http LAN address (`make run` at home) the checks use @noble/hashes
 * instead (audited, pinned in package-lock.json, bundled by
 * scripts/build-web.sh into a chunk of its own that only such a page loads,
 * and precached with the app like every bundle): `checkReady()`.
 */
export function canCheck() {
  return typeof crypto !== 'undefined' && typeof crypto.subtle === 'object' && crypto.subtle !== null;
}

/** Thrown by every check where neither Web Crypto nor the bundled fallback is there. */
export class CheckUnavailable extends Error {
  constructor() {
    super('this page is not secure (https) and the bundled SHA-256 did not load');
    this.code = 'no_web_crypto';
  }
}

/**
 * @typedef {{sha256: (bytes: Uint8Array) => Uint8Array,
 *   hmac: (key: Uint8Array, msg: Uint8Array) => Uint8Array}} Fallback
 */
/** @type {Promise<Fallback|null>|null} */
let fallback = null;

/**
 * @noble/hashes, loaded the first time a page without Web Crypto checks; null
 * where it cannot load (web/'s modules served unbundled: a bare specifier).
 * @returns {Promise<Fallback|null>}
 */
function loadFallback() {
  if (fallback === null) {
    fallback = Promise.all([import('@noble/hashes/sha2.js'), import('@noble/hashes/hmac.js')])
      .then(([sha2, mac]) => ({
        sha256: (/** @type {Uint8Array} */ bytes) => sha2.sha256(bytes),
        hmac: (/** @type {Uint8Array} */ key, /** @type {Uint8Array} */ msg) => mac.hmac(sha2.sha256, key, msg),
      }))
      .catch(() => null);
  }
  return fallback;
}

/** Whether this page can check: Web Crypto, or the bundled fallback loaded. */
export async function checkReady() {
  return canCheck() || (await loadFallback()) !== null;
}

/** @returns {Promise<SubtleCrypto|Fallback>} */
async function hashes() {
  if (canCheck()) return crypto.subtle;
  const f = await loadFallback();
  if (f === null) throw new CheckUnavailable();
  return f;
}

/** @param {Uint8Array} bytes */
function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** @param {string} hex */
function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * A phone's own seed for a scope: 32 bytes from the browser's CSPRNG, as hex.
 * Made after the scope's commitment is shown, never reused.
 */
export function newSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** @param {string} a @param {string} b */
function byCodePoint(a, b) {
  const x = Array.from(a, (c) => /** @type {number} */ (c.codePointAt(0)));
  const y = Array.from(b, (c) => /** @type {number} */ (c.codePointAt(0)));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/**
 * Canonical JSON, byte for byte what Python's tablemate_verify.canon writes:
 * keys sorted by code point, no whitespace; whole numbers only.
 * @param {unknown} v
 * @returns {string}
 */
export function canonical(v) {
  if (v === null || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new ProofError(`${v} has no canonical form (whole numbers only)`);
    return String(v);
  }
  if (typeof v === 'string') {
    if (LONE_SURROGATE.test(v)) throw new ProofError('a string with a lone surrogate has no UTF-8 form');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object') {
    const o = /** @type {Record<string, unknown>} */ (v);
    const keys = Object.keys(o).sort(byCodePoint);
    return `{${keys.map((k) => `${canonical(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  throw new ProofError(`${typeof v} is not JSON`);
}

/** @param {unknown} a @param {unknown} b */
function same(a, b) {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function sha256Hex(bytes) {
  const h = await hashes();
  if ('digest' in h) return toHex(new Uint8Array(await h.digest('SHA-256', bytes)));
  return toHex(h.sha256(bytes));
}

/**
 * The SHA-256 a scope published before its first outcome.
 * @param {string} secret 64 hex digits
 */
export function commitmentOf(secret) {
  return sha256Hex(fromHex(hex32(secret, 'secret')));
}

/**
 * The link before `link` in a hash chain: SHA-256 of its 32 bytes, as hex.
 * @param {string} link 64 hex digits
 */
export function linkStep(link) {
  return sha256Hex(fromHex(hex32(link, 'link')));
}

/**
 * An outcome's links as the derivation takes them: [[seat, link], ...] by seat.
 * @param {unknown[]} links
 * @returns {string[][]}
 */
function mixLinks(links) {
  const pairs = links.map((e) => {
    const x = /** @type {unknown[]} */ (Array.isArray(e) ? e : [obj(e, 'a link').seat, obj(e, 'a link').link]);
    if (typeof x[0] !== 'string') throw new ProofError('a link names its seat');
    return [x[0], hex32(x[1], 'link')];
  });
  pairs.sort((a, b) => byCodePoint(a[0], b[0]));
  if (new Set(pairs.map((p) => p[0])).size !== pairs.length) throw new ProofError('two links of one seat');
  return pairs;
}

/**
 * The hash of a sealed value (a locked sheet, a cast vote).
 * @param {string} label @param {string} salt @param {unknown} value
 */
export function sealHash(label, salt, value) {
  return sha256Hex(utf8.encode(canonical([SEAL_TAG, checkLabel(label), hex32(salt, 'salt'), value])));
}

/** @param {unknown} v @param {string} what */
function hex32(v, what) {
  if (typeof v !== 'string' || !HEX32.test(v)) throw new ProofError(`a ${what} is 64 lowercase hex digits`);
  return v;
}

/** @param {unknown} v */
function checkLabel(v) {
  if (typeof v !== 'string' || !LABEL.test(v)) throw new ProofError(`${JSON.stringify(v)} is not a label`);
  return v;
}

/** The 32-bit words of one outcome: HMAC-SHA256 blocks of (label, seeds, index, block). */
export class Stream {
  /**
   * @param {(msg: Uint8Array<ArrayBuffer>) => Promise<ArrayBuffer|Uint8Array>} mac HMAC-SHA256 under the secret
   * @param {string} label @param {string[]} seeds @param {number} index
   * @param {string[][]|null} [links] [[seat, link], ...] by seat (outcome/2), or null (the seeds)
   */
  constructor(mac, label, seeds, index, links = null) {
    this.mac = mac;
    this.label = label;
    this.seeds = seeds;
    /** [[seat, link], ...] by seat (outcome/2), or null (the seeds, outcome/1). @type {string[][]|null} */
    this.links = links;
    this.index = index;
    this.block = 0;
    /** @type {number[]} */
    this.buffer = [];
    /** Words read so far. */
    this.used = 0;
  }

  /**
   * @param {string} secret @param {string} label @param {string[]} seeds @param {number} index
   * @param {unknown[]|null} [links] the phones' links ({seat, link} or [seat, link]): outcome/2
   */
  static async open(secret, label, seeds, index, links = null) {
    const raw = fromHex(hex32(secret, 'secret'));
    const h = await hashes();
    /** @type {(msg: Uint8Array<ArrayBuffer>) => Promise<ArrayBuffer|Uint8Array>} */
    let mac;
    if ('sign' in h) {
      const key = await h.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      mac = (msg) => h.sign('HMAC', key, msg);
    } else {
      mac = async (msg) => h.hmac(raw, msg);
    }
    if (!Number.isSafeInteger(index) || index < 0) throw new ProofError(`${index} is not an outcome index`);
    return new Stream(mac, checkLabel(label), seeds.map((s) => hex32(s, 'seed')), index,
      links === null ? null : mixLinks(links));
  }

  async word() {
    if (this.buffer.length === 0) {
      const msg = utf8.encode(canonical(this.links === null
        ? [OUTCOME_TAG, this.label, this.seeds, this.index, this.block]
        : [OUTCOME_TAG_2, this.label, this.links, this.index, this.block]));
      const out = await this.mac(msg);
      const mac = out instanceof Uint8Array ? new DataView(out.buffer, out.byteOffset, out.byteLength) : new DataView(out);
      for (let i = 0; i < 32; i += 4) this.buffer.push(mac.getUint32(i, false));
      this.block += 1;
    }
    this.used += 1;
    return /** @type {number} */ (this.buffer.shift());
  }

  /** A uniform whole number in [0, n): words at or past the last multiple of n are rejected. @param {number} n */
  async below(n) {
    if (!Number.isSafeInteger(n) || n < 1 || n > SPAN) throw new ProofError(`below(${n}) needs 1 <= n <= 2**32`);
    const limit = SPAN - (SPAN % n);
    for (;;) {
      const w = await this.word();
      if (w < limit) return w % n;
    }
  }
}

/**
 * @template T
 * @param {Stream} stream @param {T[]} items @param {number} k
 */
async function deal(stream, items, k) {
  const pool = [...items];
  if (!Number.isSafeInteger(k) || k < 0 || k > pool.length) throw new ProofError(`cannot deal ${k} of ${pool.length}`);
  for (let i = 0; i < k; i += 1) {
    const j = i + await stream.below(pool.length - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, k);
}

/** @template T @param {Stream} stream @param {T[]} items */
async function shuffled(stream, items) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** @param {Record<string, unknown>} draw @param {string} key */
function whole(draw, key) {
  const v = draw[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ProofError(`a draw's ${key} is a whole number`);
  return v;
}

/**
 * What a recorded draw must have given, from its public inputs: the draws of
 * one outcome are replayed in order on one stream.
 * @param {Stream} stream @param {Record<string, unknown>} draw
 * @returns {Promise<unknown>}
 */
export async function replayDraw(stream, draw) {
  if (draw.op === 'range') {
    const [start, stop, step] = [whole(draw, 'start'), whole(draw, 'stop'), whole(draw, 'step')];
    if (step === 0) throw new ProofError("randrange's step must not be 0");
    const count = Math.floor((stop - start + step - (step > 0 ? 1 : -1)) / step);
    if (count <= 0) throw new ProofError('an empty range');
    return start + step * await stream.below(count);
  }
  const items = draw.items;
  if (!Array.isArray(items)) throw new ProofError(`a ${String(draw.op)} draw lists its items`);
  if (draw.op === 'choice') {
    if (items.length === 0) throw new ProofError('a choice from no items');
    return items[await stream.below(items.length)];
  }
  if (draw.op === 'shuffle') return shuffled(stream, items);
  if (draw.op === 'sample') return deal(stream, items, whole(draw, 'k'));
  throw new ProofError(`unknown draw op ${String(draw.op)}`);
}

/** @param {unknown} v @param {string} what @returns {Record<string, any>} */
function obj(v, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ProofError(`${what} is an object`);
  return /** @type {Record<string, any>} */ (v);
}

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
