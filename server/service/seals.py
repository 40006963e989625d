"""Seals made on the phone (issue 38; docs/fairness.md, "Seals made on the phone").

Where the rules let a choice stay on its phone until its reveal (a King Up
vote), the phone draws the salt and sends only
``hash = SHA-256(["tablemate-seal/1", label, salt, value])`` under the label
the snapshot offers it (``fair.to_seal``); the store holds that hash and no
value. Once the game asks for it (every vote of the election is in), the phone
sends its opening (value and salt); it is refused unless it hashes to the seal
(``opening_mismatch``), and the game's reveal publishes it like any seal.

A choice such a rule keeps on its phone sent as it is instead is refused
(``seal_required``), unless its casting reveals it with every other at once
(``Engine.fair_seal_required``: King Up's last vote, none sealed shut).

A seal taken back before its reveal (an undo, or a seal withdrawn because its
phone is gone) is retracted, sealed for good; the seat's next seal of that
choice always has a fresh label (``<name>.2``, ...), so labels tell nothing of
what was taken back. ``fairness.settle`` does the retracting and the reveal;
this module takes the phone's two actions and names the labels.
"""

from __future__ import annotations

from typing import Any

from engines.base import Action, Engine
from server.errors import ServiceError
from server.fairdoc import FairDoc
from server.model import TableDoc
from server.service import fairness
from tablemate_verify import SealRecord, check_seal
from tablemate_verify.canon import plain

#: The payload fields that carry a phone's seal.
SEAL_FIELDS = ("hash", "label")


def next_label(doc: TableDoc, fair: FairDoc, name: str) -> str:
    """The label a new seal of ``name`` takes: ``name`` itself, or after a
    retracted one ``name.k`` (never a label used before, whatever it sealed)."""
    taken = {x["label"] for x in fair["seals"]}
    k = 1
    while (lab := fairness.label(doc, name if k == 1 else f"{name}.{k}")) in taken:
        k += 1
    return lab


def _live(doc: TableDoc, fair: FairDoc, name: str) -> SealRecord | None:
    return next((x for x in fair["seals"] if not x.get("retracted") and not x["revealed"]
                 and fairness.name_of(doc, x["label"]) == name), None)


def take(engine: Engine, doc: TableDoc, state: Any, action: Action) -> None:
    """``action`` (applied to ``state`` by the engine already) as a phone seal
    or an opening: checked against the label offered or the seal kept, and
    recorded in ``doc``'s fair part. The pipeline commits nothing of a call
    that raises, so a refusal leaves the table as it was."""
    name = engine.fair_phone_seal(state, action)
    sent = [f for f in SEAL_FIELDS if f in action]
    if name is None:
        if sent:
            raise ServiceError("invalid", "invalid_payload",
                               f"{', '.join(sent)} belong(s) to a sealed choice only (vote \"sealed\").")
        required = engine.fair_seal_required(state, action)
        if required is not None and doc.get("fair") is not None:
            # Accepted, it would tell the server (and whoever reads its store)
            # a value the rules keep on the phone until the reveal.
            raise ServiceError("conflict", "seal_required",
                               f"This choice is sealed on the phone: send its hash under the label "
                               f"fair.to_seal gives ({next_label(doc, _fair(doc), required)}), not the value.")
    else:
        fair = _fair(doc)
        if len(sent) != len(SEAL_FIELDS):
            raise ServiceError("invalid", "invalid_payload",
                               "A sealed choice carries its hash and the label fair.to_seal gives.")
        lab = next_label(doc, fair, name)
        if action["label"] != lab:
            raise ServiceError("conflict", "wrong_seal_label",
                               f"This seal's label is {lab}, not {action['label']}: hash the value under it.")
        fair["seals"].append({"label": lab, "hash": action["hash"], "salt": None, "value": None,
                              "revealed": False})
    opening = engine.fair_phone_opening(state, action)
    if opening is not None:
        name, value = opening
        fair = _fair(doc)
        seal = _live(doc, fair, name)
        if seal is None:
            raise ServiceError("conflict", "no_seal", "There is no seal of this choice to open.")
        if not check_seal(seal["label"], seal["hash"], action["salt"], value):
            raise ServiceError("invalid", "opening_mismatch",
                               f"That value and salt do not hash to the seal {seal['label']}: not opened.")
        seal["salt"] = action["salt"]
        seal["value"] = plain(value)


def _fair(doc: TableDoc) -> FairDoc:
    fair = doc.get("fair")
    if fair is None:
        # A table from before the fair records: nothing to hold a seal to.
        raise ServiceError("conflict", "no_seals", "This table keeps no seals: send the choice as it is.")
    return fair


def to_seal(engine: Engine, doc: TableDoc, state: Any) -> dict[str, str]:
    """The snapshot's ``fair.to_seal``: each seat that may seal now → the
    label its phone hashes under."""
    fair = doc.get("fair")
    if fair is None or state is None:
        return {}
    return {seat: next_label(doc, fair, name) for seat, name in engine.fair_to_seal(state).items()}
