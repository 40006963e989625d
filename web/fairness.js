// Checkable dice and sealed sheets, in the browser (docs/fairness.md): the
// same derivation and checks as the Python package tablemate_verify, split by
// job: hashing and derivation (fair/hash.js), the proof's checks
// (fair/check.js). This module is what the screens and the tests import.

/**
 * @typedef {import('./fair/check.js').Line} Line
 * @typedef {import('./fair/check.js').Report} Report
 */

export {
  CheckUnavailable, ProofError, Stream, canCheck, canonical, checkReady, commitmentOf, linkStep, newSeed,
  replayDraw, sealHash,
} from './fair/hash.js';
export { FORMAT, checkProof, seedCounted } from './fair/check.js';
