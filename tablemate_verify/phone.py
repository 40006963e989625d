"""A phone's own record against a table's proof (``python -m tablemate_verify
proof.json --phone export.json``; docs/fairness.md, "Phone export").

A phone keeps what it was shown and what it gave (``web/screens/fair-chain.js``,
``fair-kept.js``) and exports it as JSON::

    {"format": "tablemate-phone/1", "table": "Ab3x", "seat": "p2",
     "chains": [{"anchor": hex, "length": 256, "links": [c_1, c_2, ...]}],
     "missed": [<draw ids it answered too late>],
     "shown": {"<label>": "<commitment or seal hash>"}}

``links`` are only the links the phone revealed (never the rest of its chain:
those would let whoever holds the export foresee its next parts). The proof
must agree: every commitment and seal hash it shows is the one the phone was
shown before its reveal (a swapped secret with a commitment to match fails
here), every chain the proof gives this seat is one the phone made, and every
link the phone revealed is in the proof, counted (unless the phone knows it
came too late).
"""

from __future__ import annotations

from typing import Any

from tablemate_verify.derive import check_hex32
from tablemate_verify.proof import ProofError, Report

FORMAT = "tablemate-phone/1"


def check_phone(proof: dict[str, Any], export: Any, report: Report) -> None:
    """Adds the phone record's lines to ``report``: ``phone_ok``, or
    ``commitment_changed``, ``other_anchor``, ``own_link_missing`` (mismatches)."""
    if not isinstance(export, dict) or export.get("format") != FORMAT:
        raise ProofError(f"the phone's record is not a {FORMAT} document")
    if export.get("table") != proof.get("table"):
        raise ProofError(f"the phone's record is of table {export.get('table')!r}, the proof of {proof.get('table')!r}")
    seat = export.get("seat")
    shown = export.get("shown", {})
    chains = export.get("chains", [])
    if not isinstance(seat, str) or not isinstance(shown, dict) or not isinstance(chains, list):
        raise ProofError("the phone's record has its seat, 'shown' and 'chains'")
    before = len(report.lines)
    published = {s.get("label"): s.get("commitment") for s in proof.get("scopes", ()) if isinstance(s, dict)}
    published.update({x.get("label"): x.get("hash") for x in proof.get("sealed", ()) if isinstance(x, dict)})
    for label, hash_ in shown.items():
        if label in published and published[label] != hash_:
            report.add("mismatch", "commitment_changed", {"scope": label},
                       f"{label}: the phone was shown {str(hash_)[:16]}…, the proof says "
                       f"{str(published[label])[:16]}…: the secret or seal was swapped")
    mine: dict[str, list[str]] = {}
    for c in chains:
        try:
            mine[check_hex32(c.get("anchor"), "anchor")] = [check_hex32(x, "link") for x in c.get("links", [])]
        except (AttributeError, ValueError) as e:
            raise ProofError(f"the phone's record: a chain is its anchor and links ({e})") from e
    used: set[str] = set()
    for scope in proof.get("scopes", ()):
        label = scope.get("label")
        for c in scope.get("chains", ()):
            if c.get("seat") == seat and c.get("anchor") not in mine:
                report.add("mismatch", "other_anchor", {"scope": label},
                           f"scope {label}: the proof gives {seat} a chain this phone never made")
        for o in scope.get("outcomes", ()):
            for link in o.get("links", ()):
                if link.get("seat") == seat:
                    used.add(link.get("link"))
    missed = len(export.get("missed", []) or [])
    revealed = [link for links in mine.values() for link in links]
    absent = [link for link in revealed if link not in used]
    if len(absent) > missed:
        report.add("mismatch", "own_link_missing", {},
                   f"{len(absent)} of the links this phone revealed are not in the proof "
                   f"({missed} it knows came too late): its part was not counted")
    if len(report.lines) == before:
        report.add("ok", "phone_ok", {}, f"the phone's record of {seat} agrees: {len(shown)} commitments "
                   f"and hashes it was shown, {len(revealed)} links it revealed")
