// Checkable dice in the browser, part one: hashing and derivation
// (docs/fairness.md, "Derive"): SHA-256 and HMAC-SHA256 by Web Crypto or the
// bundled @noble/hashes, canonical JSON, commitments, chain links, seal hashes,
// and an outcome's stream of words with the draws that read it. The same as
// tablemate_verify/derive.py; tests/verify/test_js.py holds both to the same
// vectors. The proof's checks are ./check.js; web/fairness.js re-exports both.

const OUTCOME_TAG = 'tablemate-outcome/1';
// An outcome the phones' hash-chain links went into (docs/fairness.md, "Chains").
const OUTCOME_TAG_2 = 'tablemate-outcome/2';
const SEAL_TAG = 'tablemate-seal/1';
const HEX32 = /^[0-9a-f]{64}$/;
const LABEL = /^[A-Za-z0-9/_.:-]{1,120}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const SPAN = 2 ** 32;
const utf8 = new TextEncoder();

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
export async function hashes() {
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
export function byCodePoint(a, b) {
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
export function same(a, b) {
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
export function hex32(v, what) {
  if (typeof v !== 'string' || !HEX32.test(v)) throw new ProofError(`a ${what} is 64 lowercase hex digits`);
  return v;
}

/** @param {unknown} v */
export function checkLabel(v) {
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
export function obj(v, what) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ProofError(`${what} is an object`);
  return /** @type {Record<string, any>} */ (v);
}
