"""Checkable dice and sealed sheets (docs/fairness.md).

One implementation for both sides: the server derives every random outcome
and seals every secret choice with it, and anyone checks a table's proof with
it, standard library only::

    python -m tablemate_verify https://tablemate.example/t/Ab3x
    python -m tablemate_verify proof.json

``web/fairness.js`` does the same checks in the browser.
"""

from tablemate_verify.derive import (
    OutcomeRng,
    Stream,
    commitment,
    new_secret,
    replay,
)
from tablemate_verify.proof import FORMAT, Line, ProofError, Report, check
from tablemate_verify.record import (
    FairError,
    OutcomeRecord,
    ScopeRecord,
    SealRecord,
    SeedEntry,
    add_seed,
    keep,
    open_scope,
    publish,
    rng_for,
    seal_value,
)
from tablemate_verify.seal import check_seal, seal_hash
from tablemate_verify.words import phrase

__all__ = [
    "FORMAT", "FairError", "Line", "OutcomeRecord", "OutcomeRng", "ProofError", "Report",
    "ScopeRecord", "SealRecord", "SeedEntry", "Stream", "add_seed", "check", "check_seal",
    "commitment", "keep", "new_secret", "open_scope", "phrase", "publish", "replay", "rng_for",
    "seal_hash", "seal_value",
]
