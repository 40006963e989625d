"""Sealed values kept encrypted at rest (issue 38, item 2; docs/fairness.md).

A Count Up sheet must be seen by the server before its reveal (it refuses an
invalid one and runs the count from it), so it cannot be sealed on the phone
like a King Up vote. What it can be is unreadable in the store: the sheet in
the engine's state, in the log's ``numbers`` action and in its seal record is
AES-GCM ciphertext (``cryptography``'s ``AESGCM``) under a key the store does
not hold: ``TABLEMATE_SEAL_KEY`` (64 hex digits, a server secret shared by every
instance, docs/deploy.md), or without it a key drawn for this process (the
embedded store of ``make run`` lives and dies with it).

A value at rest is ``{"aesgcm": "<base64 of nonce || ciphertext>"}``; its
associated data names the table and the field's place: in the state its
concrete path (``state/seats/2/numbers``: the seat's index), in the log the
entry's version (``action/17/numbers``), so a ciphertext moved to another
table, field, seat or log entry does not open (swapping two seats' sealed
sheets in the store is refused, not played). A ciphertext of a table from
before that binding (associated data the field's pattern, ``state/seats/*/numbers``,
``action/numbers``) still opens by its old name. Anything else reads as it is (a table from before,
or a value a tamper test wrote in clear).

The engine names what is kept this way (``Engine.at_rest_state`` paths into its
dumped state, ``Engine.at_rest_actions`` fields of its actions); every read of a
document's state (``load_state``) and of a logged action (``shown``) opens them.
"""

from __future__ import annotations

import base64
import logging
import os
from functools import cache
from typing import Any

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engines.base import Action, Engine
from server.errors import ServiceError
from server.model import TableDoc

log = logging.getLogger(__name__)

TAG = "aesgcm"
NONCE = 12


@cache
def _aead() -> AESGCM:
    raw = os.environ.get("TABLEMATE_SEAL_KEY", "").strip()
    if raw:
        try:
            key = bytes.fromhex(raw)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise RuntimeError("TABLEMATE_SEAL_KEY must be 64 hex digits (32 bytes): python -c "
                               "'import secrets; print(secrets.token_hex(32))'")
        return AESGCM(key)
    # Enough for one process (the embedded store, a test); several instances
    # over one Redis need the shared key, or one cannot read another's sheets.
    log.info("TABLEMATE_SEAL_KEY unset: sealed sheets are encrypted at rest with a key of this process")
    return AESGCM(AESGCM.generate_key(bit_length=256))


def _is_sealed(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get(TAG), str)


def seal(value: Any, table: str, where: str) -> dict[str, str]:
    """``value`` (JSON) encrypted for ``table``'s field ``where``."""
    nonce = os.urandom(NONCE)
    # orjson: the standard library's encoder cost half of a seal; json.loads and
    # orjson read each other's text (only non-ASCII is written differently).
    body = orjson.dumps(value)
    blob = nonce + _aead().encrypt(nonce, body, f"{table}/{where}".encode())
    return {TAG: base64.b64encode(blob).decode()}


def unseal(value: Any, table: str, where: str, before: str | None = None) -> Any:
    """``value`` opened if it is at rest, else as it is. ``before``: the
    field's name before ciphertexts were bound to their place, tried second
    (only a ciphertext sealed under that name opens by it)."""
    if not _is_sealed(value):
        return value
    blob = base64.b64decode(value[TAG])
    for name in (where, before) if before is not None else (where,):
        try:
            body = _aead().decrypt(blob[:NONCE], blob[NONCE:], f"{table}/{name}".encode())
        except InvalidTag:
            continue
        return orjson.loads(body)
    # Another key (an instance without the shared TABLEMATE_SEAL_KEY) or a
    # ciphertext moved: nothing to show, and nothing to guess from.
    raise ServiceError("unavailable", "sealed_unreadable",
                       "A sealed value of this table cannot be read with this server's key.")


def _place(at: list[str | int]) -> str:
    """A state field's concrete place, its associated data (``state/seats/2/numbers``)."""
    return "state/" + "/".join(map(str, at))


def _walk(node: Any, path: tuple[str, ...], fn: Any, at: list[str | int]) -> Any:
    """``node`` with ``fn(value, place)`` applied at ``path`` ("*": every item
    of a list; ``place``: the concrete path, its indices in)."""
    if not path:
        return node if node is None else fn(node, _place(at))
    head, rest = path[0], path[1:]
    if head == "*" and isinstance(node, list):
        return [_walk(x, rest, fn, [*at, i]) for i, x in enumerate(node)]
    if isinstance(node, dict) and head in node:
        return {**node, head: _walk(node[head], rest, fn, [*at, head])}
    return node


def _same(before: Any, after: Any, path: list[str | int]) -> bool:
    """Whether two engine states hold an equal value at ``path`` of their dump
    (attributes by the dump's field names, indices of tuples). False when
    either does not have it, so a field its dump renames is sealed afresh."""
    for key in path:
        try:
            if isinstance(key, int):
                before, after = before[key], after[key]
            else:
                before, after = getattr(before, key), getattr(after, key)
        except (AttributeError, IndexError, KeyError, TypeError):
            return False
    return bool(before == after)


def _hide(new: Any, old: Any, path: tuple[str, ...], at: list[str | int], table: str,
          states: tuple[Any, Any] | None) -> Any:
    """``new`` (the dumped state) sealed at ``path``; ``old`` the previous
    document's state at the same place, whose ciphertext is kept where the
    plain value is unchanged (``hide_state``)."""
    if not path:
        if new is None or _is_sealed(new):
            return new
        if states is not None and _is_sealed(old) and _same(*states, at):
            return old
        return seal(new, table, _place(at))
    head, rest = path[0], path[1:]
    if head == "*" and isinstance(new, list):
        olds = old if isinstance(old, list) and len(old) == len(new) else [None] * len(new)
        return [_hide(x, o, rest, [*at, i], table, states) for i, (x, o) in enumerate(zip(new, olds, strict=True))]
    if isinstance(new, dict) and head in new:
        below = old.get(head) if isinstance(old, dict) else None
        return {**new, head: _hide(new[head], below, rest, [*at, head], table, states)}
    return new


def hide_state(engine: Engine, doc: TableDoc, old: Any = None, states: tuple[Any, Any] | None = None) -> None:
    """Encrypts the engine's secret fields of ``doc["state"]`` in place.
    ``old``: the previous document's state at rest; ``states``: the engine
    state it holds and the one ``doc["state"]`` is the dump of. A field whose
    plain value did not change keeps its ciphertext: Count Up sealed every
    locked sheet afresh at every action (the kept ciphertexts row of
    docs/performance.md, "Why each fast path exists"), and the log already
    shows when each such value was sent
    (docs/fairness.md, "Kept ciphertexts")."""
    for path in engine.at_rest_state:
        doc["state"] = _hide(doc["state"], old, path, [], doc["id"], states)


def load_state(engine: Engine, doc: TableDoc) -> Any:
    """``engine.load`` of ``doc``'s state, its encrypted fields opened."""
    raw = doc["state"]
    for path in engine.at_rest_state:
        before = "state/" + "/".join(path)
        raw = _walk(raw, path, lambda v, place, b=before: unseal(v, doc["id"], place, b), [])
    return engine.load(raw)


def hide_action(engine: Engine, doc: TableDoc, action: Action) -> Action:
    """The action as the log keeps it: its secret fields encrypted, bound to
    the log entry that will hold it (the version ``doc`` commits as)."""
    fields = engine.at_rest_actions.get(action.get("type", ""), ())
    v = doc["version"] + 1
    return {k: seal(x, doc["id"], f"action/{v}/{k}") if k in fields and x is not None and not _is_sealed(x) else x
            for k, x in action.items()}


def shown(table: str, action: Action, v: int) -> Action:
    """The action of log entry ``v`` with its encrypted fields opened (replay, history)."""
    if not any(_is_sealed(x) for x in action.values()):
        return action
    return {k: unseal(x, table, f"action/{v}/{k}", f"action/{k}") for k, x in action.items()}
