// Votes sealed on this phone (issue 38; docs/fairness.md, "Seals made on the
// phone"). The phone draws the salt, sends only the hash under the label the
// snapshot offers (`fair.to_seal`), and keeps value and salt in localStorage
// (a reload keeps them) until every vote of the election is in; then it sends
// its opening by itself. The server, and whoever reads its store, never holds
// a vote before that. A forced Yes (no No card left) is sealed like any vote,
// so nothing tells the seat's No count (KU-9).

import { newSeed, sealHash } from '../../fairness.js';

/** @typedef {{seat: string, vote: 'yes'|'no', salt: string, v?: number}} KeptVote
 *  `v`: the version of the snapshot the vote was sealed on */

/**
 * This phone's sealed votes at table `id`, by label. Read afresh each time:
 * the seat may be open in another tab of this browser that sealed a vote
 * (this one must open it if that tab sleeps or was closed). localStorage
 * full: the tab's sessionStorage keeps the votes (a reload of this tab, iOS
 * discarding it, still opens them; without either, only this page could, and
 * the election would wait on it).
 * @param {string} id
 */
export function keptVotes(id) {
  const key = `tablemate.votes.${id}`;
  /** @type {Record<string, KeptVote>} */
  let kept = {};
  // Each storage is reached inside a try: where it is blocked (a sandboxed
  // frame, a browser's setting) even naming it throws.
  /** @param {() => Storage} where @returns {Record<string, KeptVote>|null} null: nothing kept there */
  const read = (where) => {
    try {
      const raw = where().getItem(key);
      return raw === null ? null : JSON.parse(raw) || {};
    } catch { return null; }
  };
  /** @type {Record<string, KeptVote>|null} what neither storage would take: this page's only */
  let pageOnly = null;
  const load = () => {
    const local = read(() => localStorage);
    const tab = read(() => sessionStorage);
    // Neither keeps any (storage blocked, or nothing sealed yet): this page's copy stands.
    if (local || tab) kept = { ...tab, ...local, ...(pageOnly || {}) };
  };
  load();
  /** @param {() => Storage} where */
  const write = (where) => {
    try { where().setItem(key, JSON.stringify(kept)); return true; } catch { return false; }
  };
  const save = () => {
    if (write(() => localStorage)) {
      pageOnly = null;
      try { sessionStorage.removeItem(key); } catch { /* none kept there */ }
      return;
    }
    if (write(() => sessionStorage)) {
      // The tab holds the whole set: localStorage's older copy (full, it could not
      // take this one) must not come back over it. A removal needs no room.
      pageOnly = null;
      try { localStorage.removeItem(key); } catch { /* storage blocked */ }
      return;
    }
    pageOnly = { ...kept };
  };
  return {
    /** @param {string} label @param {KeptVote} entry */
    keep(label, entry) { load(); kept[label] = entry; save(); },
    /** @param {string} label */
    get(label) { load(); return kept[label] || null; },
    /**
     * Forgets the votes sealed before `version`, a snapshot that shows no
     * election under way (all revealed); not one another tab sealed on a
     * snapshot newer than this page's.
     * @param {number} version
     */
    clear(version) {
      load();
      const left = Object.entries(kept).filter(([, e]) => (e.v || 0) >= version);
      if (left.length !== Object.keys(kept).length) {
        kept = Object.fromEntries(left);
        save();
        // Neither storage took the shorter set: the copies they hold would bring
        // the forgotten votes back; this page holds what is left.
        if (pageOnly) for (const s of [() => localStorage, () => sessionStorage]) { try { s().removeItem(key); } catch { /* blocked */ } }
      }
    },
  };
}

/**
 * The vote action for `seat` (this phone's, or a paper seat's it enters):
 * sealed, its value and salt kept first, or as it is where the snapshot
 * offers no label (a table from before the fair records keeps no seals).
 * @param {any} snap
 * @param {ReturnType<typeof keptVotes>} kept
 * @param {string} seat
 * @param {'yes'|'no'} vote
 * @returns {Promise<Record<string, unknown>>}
 */
export async function voteAction(snap, kept, seat, vote) {
  const label = snap.fair && snap.fair.to_seal ? snap.fair.to_seal[seat] : undefined;
  if (!label) return { type: 'vote', vote };
  const salt = newSeed();
  const hash = await sealHash(label, salt, { vote });
  // Kept before it is sent: an answer lost on the way must not lose the opening.
  kept.keep(label, { seat, vote, salt, v: typeof snap.version === 'number' ? snap.version : 0 });
  return { type: 'vote', vote: 'sealed', hash, label };
}

/**
 * The vote action to send for `seat`, or null when it must not go at all: the
 * snapshot offers a label (the rules keep this vote on the phone until its
 * reveal) but this phone cannot seal it (no storage for the opening, or no
 * hashing). Sent as it is, the vote would reach the server in the open before
 * the reveal, refused or not.
 * @param {any} snap
 * @param {ReturnType<typeof keptVotes>|null} kept
 * @param {string} seat
 * @param {'yes'|'no'} vote
 * @returns {Promise<Record<string, unknown>|null>}
 */
export async function castVote(snap, kept, seat, vote) {
  const label = snap.fair && snap.fair.to_seal ? snap.fair.to_seal[seat] : undefined;
  if (!label) return { type: 'vote', vote };
  if (!kept) return null;
  try {
    return await voteAction(snap, kept, seat, vote);
  } catch {
    return null;
  }
}

/**
 * The openings this phone owes now: every vote is in, and a seal it made (for
 * itself, or for a paper seat it may enter for) is still shut.
 * @param {any} snap the table's snapshot (not the "entering for" one)
 * @param {ReturnType<typeof keptVotes>} kept
 * @returns {Array<{seat: string, action: Record<string, unknown>}>}
 */
export function openings(snap, kept) {
  const e = snap.view && snap.view.election;
  if (!e || !Array.isArray(e.opening) || !e.opening.length || !snap.fair) return [];
  const out = [];
  for (const s of snap.fair.sealed || []) {
    const mine = kept.get(s.seal);
    if (!mine || !e.opening.includes(mine.seat)) continue;
    if (mine.seat !== snap.me && !(snap.proxies && snap.proxies[mine.seat])) continue;
    out.push({ seat: mine.seat, action: { type: 'open_vote', vote: mine.vote, salt: mine.salt } });
  }
  return out;
}

/**
 * What `seat` sealed on this phone in the election under way, or null.
 * @param {any} snap
 * @param {ReturnType<typeof keptVotes>} kept
 * @param {string|null} seat
 * @returns {'yes'|'no'|null}
 */
export function sealedVote(snap, kept, seat) {
  if (!seat || !snap.fair) return null;
  for (const s of snap.fair.sealed || []) {
    const mine = kept.get(s.seal);
    if (mine && mine.seat === seat) return mine.vote;
  }
  return null;
}
