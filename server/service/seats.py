"""Seats and tokens: ids, join codes, seat tokens, names, and the one place a
token is checked (``authenticate``), for HTTP reads, actions and sockets alike.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import unicodedata
from typing import Literal, overload

from server.errors import ServiceError, bad_token
from server.model import PinHash, Seat, TableDoc
from server.service import names, schemas

# Six characters with no look-alikes (no 0/O, 1/I/L), typed from a phone keyboard.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


#: The token hash of a seat without a phone: no SHA-256 hex digest is empty,
#: so no token ever opens it (``find_seat`` compares digests).
NO_TOKEN = ""


def new_table_id() -> str:
    return secrets.token_urlsafe(16)  # 128 bits


def new_token() -> str:
    return secrets.token_urlsafe(24)  # 192 bits


def new_claim() -> str:
    """A rejoin code: one use, as unguessable as a token (it becomes one)."""
    return secrets.token_urlsafe(24)  # 192 bits


#: How long (s) a rejoin code can be redeemed: time to hand a phone over and scan.
CLAIM_TTL = 15 * 60


def find_claim(doc: TableDoc, code: str, now: float) -> Seat | None:
    """The seat whose pending, unexpired rejoin code is ``code`` (constant-time compare)."""
    digest = token_hash(code)
    found = None
    for seat in doc["seats"]:
        claim = seat.get("claim")
        if claim is not None and hmac.compare_digest(claim["h"], digest) and claim["exp"] > now:
            found = seat
    return found


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


#: ``str.isalnum``'s letters and digits (any script), ``-`` and ``_``, 8 to 64 of them.
_PLAUSIBLE_ID = re.compile(r"[\w-]{8,64}")


def plausible_id(table_id: str) -> bool:
    """Whether ``table_id`` could name a table at all (so junk never reaches Redis).

    >>> [plausible_id(t) for t in ("Ab3-_x9Zq", "short", "a" * 65, "tbl id 12", "테이블아이디입니다")]
    [True, False, False, False, True]
    """
    # One compiled match, not a generator over the characters (its row in
    # docs/performance.md, "Why each fast path exists").
    return _PLAUSIBLE_ID.fullmatch(table_id) is not None


def plausible_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and code.isalnum()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def find_seat(doc: TableDoc, token: str | None) -> Seat | None:
    """The seat this token opens, comparing every hash in constant time."""
    if not token:
        return None
    digest = token_hash(token)
    found = None
    for seat in doc["seats"]:
        if hmac.compare_digest(seat["th"], digest):
            found = seat
    return found


@overload
def authenticate(doc: TableDoc, token: str | None, *, seated: Literal[True]) -> Seat: ...
@overload
def authenticate(doc: TableDoc, token: str | None, *, seated: bool = False) -> Seat | None: ...
def authenticate(doc: TableDoc, token: str | None, *, seated: bool = False) -> Seat | None:
    """The seat ``token`` opens at this table.

    No token is the spectator (None), unless ``seated`` asks for a seat. A token
    that opens no seat (malformed, foreign, replaced or removed) is always
    ``401 bad_token``, never a silent fall-back to the spectator view.
    """
    if token is None and not seated:
        return None
    seat = find_seat(doc, token)
    if seat is None:
        raise bad_token()
    return seat


def paused(seat: Seat) -> bool:
    """Whether ``seat`` has no phone now but its phone kept its token: the
    host took it off its phone (``phoneless``) and may hand it back
    (``phone_back``) without a new token, one the host never held."""
    return seat.get("phone") is False and seat["th"] != NO_TOKEN


def hidden(seat: Seat) -> bool:
    """Whether the token that opens ``seat`` sees only what a spectator sees:
    sealed (a rejoin code's token, until the PIN), paused (the host enters
    for it), or handed back and not yet confirmed on its phone (``back``)."""
    return bool(seat.get("sealed") or seat.get("back")) or paused(seat)


def seat_of(doc: TableDoc, player: str) -> Seat:
    """The seat with id ``player``, or 404 ``no_such_player``."""
    for s in doc["seats"]:
        if s["id"] == player:
            return s
    raise ServiceError("not_found", "no_such_player", f"No seat {player} at this table.")


def clean_name(name: str) -> str:
    """NFC, trimmed of spaces, cut to ``NAME_LIMIT`` characters; control and
    format characters are refused (they could hide or reorder text).

    >>> clean_name("  민지  ")
    '민지'
    >>> len(clean_name("x" * 200))
    24
    """
    name = unicodedata.normalize("NFC", name).strip()
    # A ZWJ (U+200D) joins emoji; other format characters (bidi overrides) are
    # refused, and so are the line and paragraph separators (U+2028/9), which
    # break a name onto two lines and end a line in JavaScript's older parsers.
    if any(unicodedata.category(c) in {"Cc", "Cs", "Co", "Cn", "Zl", "Zp"} or
           (unicodedata.category(c) == "Cf" and c != "\u200d") for c in name):
        raise ServiceError("invalid", "bad_name", "Names may not contain control characters.")
    name = name[: schemas.NAME_LIMIT].strip()
    if not names.visible(name):  # empty, or only fillers / blanks / joiners
        raise ServiceError("invalid", "bad_name", "A name needs at least one visible character.")
    return name


def check_unique(doc: TableDoc, name: str, player: str | None = None) -> None:
    """Refuses a name another seat of this table already has, or one that
    looks the same (case, width, look-alike letters of another script):
    the table must be able to tell its players apart by name."""
    for s in doc["seats"]:
        if s["id"] != player and names.same_name(s["name"], name):
            raise ServiceError("conflict", "name_taken", f"{s['name']!r} is already at this table; pick another name.")


#: PBKDF2 rounds for a seat PIN: slow enough that the stored hash is not a
#: lookup table, fast enough (~20 ms) for an unlock on a busy server. Online
#: guessing is what really protects a 4-digit PIN: attempts are rate limited.
PIN_ROUNDS = 60_000


def pin_hash(pin: str, salt: str | None = None) -> PinHash:
    salt = salt or secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), PIN_ROUNDS)
    return {"salt": salt, "hash": digest.hex()}


def pin_ok(seat: Seat, pin: str) -> bool:
    stored = seat.get("pin")
    if stored is None:
        return False
    return hmac.compare_digest(pin_hash(pin, stored["salt"])["hash"], stored["hash"])
