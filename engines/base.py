"""One import for an engine's whole toolkit: the contract (``engines.contract``),
the engine built from a package's modules (``engines.skeleton``) and the mechanics every game shares, each in the module of its job:
``engines.errors`` (``EngineError``, the common refusal codes),
``engines.legality`` (``dispatch``, each action type's ``Rule`` and the
``Offers`` derived from them), ``engines.seats`` (seats on paper, the
stalled phone) and ``engines.schema`` (JSON Schemas of payloads and options).
Game packages, the server and the tests import from here."""

from __future__ import annotations

from engines.contract import (
    JSON,
    Action,
    Engine,
    Event,
    FairHooks,
    Handler,
    Rng,
    S,
    Step,
    T,
    competition_ranks,
)
from engines.errors import COMMON_ERRORS, EngineError, refusal
from engines.legality import Offers, Refused, Rule, dispatch, refused_by
from engines.schema import (
    SET_PAPER_SCHEMA,
    SET_PHONE_SCHEMA,
    SKIP_SCHEMA,
    int_list_schema,
    options_schema,
    payload_schema,
)
from engines.seats import (
    PAPER_UNTIL,
    SEAT_EVENTS,
    P,
    PaperHold,
    PaperState,
    describe_seat_event,
    host_names_seat,
    paper_handler,
    paper_hold_error,
    paper_until,
    phone_handler,
    seat_templates,
    set_paper,
    set_phone,
    skip_seat,
)
from engines.skeleton import Modules, SkeletonEngine

__all__ = [
    "COMMON_ERRORS", "JSON", "PAPER_UNTIL", "SEAT_EVENTS", "SET_PAPER_SCHEMA",
    "SET_PHONE_SCHEMA", "SKIP_SCHEMA", "Action", "Engine", "EngineError", "Event", "FairHooks",
    "Handler", "Modules", "Offers", "P", "Refused", "Rule", "PaperHold", "PaperState", "Rng", "S", "SkeletonEngine", "Step",
    "T", "competition_ranks", "describe_seat_event", "dispatch", "host_names_seat", "refused_by",
    "int_list_schema", "options_schema", "paper_handler", "paper_hold_error", "paper_until",
    "payload_schema", "phone_handler", "refusal", "seat_templates", "set_paper", "set_phone",
    "skip_seat",
]
