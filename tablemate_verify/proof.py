"""Checks a table's proof (the format is in docs/fairness.md): every revealed
secret against its commitment, every outcome against the secret and seeds,
every revealed seal against its hash. No game rules: it checks what the
proof says was drawn, from the public inputs the proof lists (``rules.verify``
takes those from the game's rules instead).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard

from tablemate_verify import canon
from tablemate_verify.chain import ChainEntry, LinkEntry, chain_faults
from tablemate_verify.derive import Stream, check_hex32, check_label, commitment, replay
from tablemate_verify.seal import seal_hash

#: Issue 38's format: outcomes of the phones' chain links (``links``, ``chains``).
FORMAT = "tablemate-proof/2"
#: The formats read: /1, a proof saved before issue 38 (seeds only), is checked as it was.
FORMATS = frozenset({"tablemate-proof/1", FORMAT})
#: ``server_only``: an outcome that replays but no phone's seed went into
#: it, so the server chose it alone (its secret): replayed, not checked.
Status = Literal["ok", "open", "mismatch", "server_only"]


class ProofError(ValueError):
    """A proof that is not in the format (so nothing in it can be checked)."""

    code = "bad_proof"


@dataclass(frozen=True)
class Line:
    """One finding. ``code`` says which (``outcome_ok``, ``draw_mismatch``...:
    docs/fairness.md lists them; web/fairness.js gives the same); ``where``
    names what: ``{"scope": label}`` plus ``"index"`` (and ``"draw"``, from 0)
    for an outcome, or ``{"seal": label}``. ``text`` is for people (English)."""

    status: Status
    code: str
    where: dict[str, Any]
    text: str


@dataclass
class Report:
    lines: list[Line] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.first_mismatch is None

    @property
    def first_mismatch(self) -> Line | None:
        return next((line for line in self.lines if line.status == "mismatch"), None)

    def count(self, status: Status) -> int:
        return sum(1 for line in self.lines if line.status == status)

    def add(self, status: Status, code: str, where: dict[str, Any], text: str) -> None:
        self.lines.append(Line(status, code, where, text))


def check(proof: Any) -> Report:
    """The report on ``proof`` (parsed JSON). Raises ``ProofError`` when it
    is not a proof at all; a wrong outcome or seal is a ``mismatch`` line."""
    if not isinstance(proof, dict) or proof.get("format") not in FORMATS:
        raise ProofError(f"not a {FORMAT} (or /1) document")
    scopes = _list(proof, "scopes", "the proof")
    sealed = _list(proof, "sealed", "the proof")
    report = Report()
    labels = [_scope_label(s) for s in scopes]
    _unique(labels, "scope")
    for scope in scopes:
        _check_scope(scope, report)
    _check_chains(scopes, report)
    _unique([_seal_label(s) for s in sealed], "seal")
    for seal in sealed:
        _check_seal(seal, report)
    return report


def _check_scope(scope: dict[str, Any], report: Report) -> None:
    label = scope["label"]
    at = {"scope": label}
    committed = _hex(scope, "commitment", f"scope {label}")
    entries = [_dict(s, f"a seed of scope {label}") for s in _list(scope, "seeds", f"scope {label}")]
    seeds = [_hex(e, "seed", f"a seed of scope {label}") for e in entries]
    outcomes = [_dict(o, f"an outcome of scope {label}") for o in _list(scope, "outcomes", f"scope {label}")]
    in_force = [_in_force(o, len(seeds), label) for o in outcomes]
    secret = scope.get("secret")
    if secret is None:
        report.add("open", "scope_open", at, f"scope {label}: open, its secret is not revealed "
                   f"yet ({len(outcomes)} outcomes, {len(seeds)} seeds so far)")
        return
    secret = _hex(scope, "secret", f"scope {label}")
    if commitment(secret) != committed:
        report.add("mismatch", "secret_mismatch", at, f"scope {label}: the revealed secret hashes "
                   f"to {commitment(secret)}, not to its commitment {committed}")
        return
    report.add("ok", "secret_ok", at, f"scope {label}: the secret matches its commitment")
    # Outcomes of links (tablemate-outcome/2) use no seeds: the seed checks skip them.
    seeded = [(o, k) for o, k in zip(outcomes, in_force, strict=True) if "links" not in o]
    by_index = sorted(seeded, key=lambda p: p[0]["index"])
    for (prev, k_prev), (o, k) in zip(by_index, by_index[1:], strict=False):
        if k < k_prev or (o["index"] == prev["index"] and k != k_prev):
            report.add("mismatch", "seeds_went_back", {**at, "index": o["index"]},
                       f"scope {label}, outcome {o['index']}: {k} seeds in force, "
                       f"fewer than the {k_prev} of outcome {prev['index']} before it")
    _check_late_seeds(label, entries, [o for o, _ in seeded], [k for _, k in seeded], report)
    for o, k in zip(outcomes, in_force, strict=True):
        _check_outcome(secret, label, seeds[:k], o, report)


def _links(o: dict[str, Any], label: str) -> list[LinkEntry]:
    """An outcome's ``links``, each checked for form."""
    out: list[LinkEntry] = []
    for e in _list(o, "links", f"scope {label}, outcome {o.get('index')}"):
        e = _dict(e, f"a link of scope {label}")
        if not isinstance(e.get("seat"), str):
            raise ProofError(f"scope {label}: a link names its seat")
        entry: LinkEntry = {"seat": e["seat"], "link": _hex(e, "link", f"a link of scope {label}"),
                            "anchor": _hex(e, "anchor", f"a link of scope {label}")}
        out.append(entry)
    if len({e["seat"] for e in out}) != len(out):
        raise ProofError(f"scope {label}, outcome {o.get('index')}: two links of one seat")
    return out


def _check_chains(scopes: list[Any], report: Report) -> None:
    """Every seat's links, over the whole proof in the order the draws were
    made, step down its chain to its anchor strictly one each (``chain.py``)."""
    chains: list[ChainEntry] = []
    uses: list[tuple[tuple[int, int, str], LinkEntry]] = []
    for scope in scopes:
        label = scope["label"]
        for c in scope.get("chains", ()):
            c = _dict(c, f"a chain of scope {label}")
            length, v = c.get("length"), c.get("v")
            if not (isinstance(c.get("seat"), str) and _whole(length) and _whole(v)):
                raise ProofError(f"scope {label}: a chain has its seat, length and version")
            chains.append({"seat": c["seat"], "anchor": _hex(c, "anchor", f"a chain of scope {label}"),
                           "length": length, "v": v})
        for o in scope["outcomes"]:
            if "links" not in o:
                continue
            if not _whole(o.get("v")):
                raise ProofError(f"scope {label}, outcome {o.get('index')}: an outcome of links has its version")
            uses += [((o["v"], o["index"], label), e) for e in _links(o, label)]
    if not uses:
        return
    uses.sort(key=lambda u: (u[0][0], u[0][2], u[0][1]))
    faults = chain_faults([((label, index), e) for (_, index, label), e in uses], chains)
    for (label, index), why in faults:
        report.add("mismatch", "link_mismatch", {"scope": label, "index": index},
                   f"scope {label}, outcome {index}: {why}")
    if not faults:
        report.add("ok", "links_ok", {}, f"{len(uses)} phone links step down their chains, one each")


def _check_late_seeds(label: str, entries: list[dict[str, Any]], outcomes: list[dict[str, Any]],
                      in_force: list[int], report: Report) -> None:
    """A seed the table accepted at version ``v`` counts for every outcome
    drawn after ``v`` (where both versions are given): the server cannot
    hold a seed back to pick between two outcomes."""
    for o, k in zip(outcomes, in_force, strict=True):
        drawn = o.get("v")
        if not _whole(drawn):
            continue
        for p, e in enumerate(entries):
            accepted = e.get("v")
            if _whole(accepted) and drawn > accepted and k <= p:
                report.add("mismatch", "late_seed", {"scope": label, "index": o["index"]},
                           f"scope {label}, outcome {o['index']} (version {drawn}): the seed of "
                           f"{e.get('seat')} accepted at version {accepted} is not in force")
                break


def _show(value: Any) -> str:
    """A value in a report line: its canonical JSON, or any JSON for one with no canonical form."""
    try:
        return canon.dumps(value)
    except canon.CanonError:
        return json.dumps(value, ensure_ascii=False)


def _whole(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_outcome(secret: str, label: str, seeds: list[str], o: dict[str, Any], report: Report) -> None:
    index = o["index"]
    name = f"scope {label}, outcome {index}"
    if o.get("fixed") is True:
        # A test server's outcome given as it was: nothing derived it, so
        # nothing proves it (a production server never has one).
        report.add("mismatch", "outcome_fixed", {"scope": label, "index": index},
                   f"{name} was given by a test (fixed random), not drawn: nothing proves it")
        return
    draws = [_dict(d, f"a draw of {name}") for d in _list(o, "draws", name)]
    fields = o.get("fields", {})
    if not isinstance(fields, dict):
        raise ProofError(f"{name}: 'fields' is an object")
    links = [(e["seat"], e["link"]) for e in _links(o, label)] if "links" in o else None
    stream = Stream(secret, label, seeds, index, links)
    for d, draw in enumerate(draws):
        where = {"scope": label, "index": index, "draw": d}
        if "result" not in draw:
            raise ProofError(f"{name}, draw {d}: no 'result'")
        try:
            expected = replay(stream, draw)
        except ValueError as e:
            raise ProofError(f"{name}, draw {d}: {e}") from e
        if not canon.same(expected, draw["result"]):
            report.add("mismatch", "draw_mismatch", where,
                       f"{name}, draw {d} ({draw['op']}): the proof says {_show(draw['result'])}, "
                       f"the secret and seeds give {_show(expected)}")
            return
        for name_, value in _linked(draw, expected, name, d):
            if name_ not in fields or not canon.same(fields[name_], value):
                got = _show(fields[name_]) if name_ in fields else "nothing"
                report.add("mismatch", "field_mismatch", where, f"{name}: the game recorded "
                           f"{name_} = {got}, but draw {d} gave {_show(value)}")
                return
    parts = len(links) if links is not None else len(seeds)
    if not parts:
        report.add("server_only", "outcome_server_only", {"scope": label, "index": index},
                   f"{name}: {len(draws)} draws match, but no phone's part went into it: the server "
                   "alone drew it, so nothing proves it was not chosen")
        return
    report.add("ok", "outcome_ok", {"scope": label, "index": index},
               f"{name}: {len(draws)} draws match ({parts} player {'links' if links is not None else 'seeds'})")


def _linked(draw: dict[str, Any], result: Any, name: str, d: int) -> list[tuple[str, Any]]:
    """The game's fields a draw fills: ``"field": "die"`` (its result), or
    ``"field": ["color", "value"]`` (its result's items, in order)."""
    link = draw.get("field")
    if link is None:
        return []
    if isinstance(link, str):
        return [(link, result)]
    if (isinstance(link, list) and all(isinstance(x, str) for x in link)
            and isinstance(result, list) and len(result) == len(link)):
        return list(zip(link, result, strict=True))
    raise ProofError(f"{name}, draw {d}: 'field' is a name, or as many names as its result has items")


def _check_seal(seal: dict[str, Any], report: Report) -> None:
    label = seal["label"]
    at = {"seal": label}
    hash_ = _hex(seal, "hash", f"seal {label}")
    if seal.get("salt") is None:
        report.add("open", "seal_open", at, f"seal {label}: still sealed")
        return
    salt = _hex(seal, "salt", f"seal {label}")
    if "value" not in seal:
        raise ProofError(f"seal {label}: a revealed seal has its 'value'")
    try:
        ok = seal_hash(label, salt, seal["value"]) == hash_
    except ValueError as e:
        raise ProofError(f"seal {label}: {e}") from e
    if ok:
        report.add("ok", "seal_ok", at, f"seal {label}: the revealed value matches its hash")
    else:
        report.add("mismatch", "seal_mismatch", at, f"seal {label}: the revealed value "
                   f"{_show(seal['value'])} is not what was sealed")


def _in_force(o: dict[str, Any], total: int, label: str) -> int:
    index, k = o.get("index"), o.get("seeds")
    for key, v in (("index", index), ("seeds", k)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ProofError(f"scope {label}: an outcome's {key!r} is a whole number from 0, not {v!r}")
    assert isinstance(k, int)
    if k > total:
        raise ProofError(f"scope {label}, outcome {index}: {k} seeds in force, "
                         f"but the scope lists {total}")
    return k


def _scope_label(scope: Any) -> str:
    return _label(_dict(scope, "a scope"), "a scope")


def _seal_label(seal: Any) -> str:
    return _label(_dict(seal, "a seal"), "a seal")


def _label(d: dict[str, Any], what: str) -> str:
    try:
        return check_label(d.get("label"))
    except ValueError as e:
        raise ProofError(f"{what}: {e}") from e


def _unique(labels: Sequence[str], what: str) -> None:
    seen: set[str] = set()
    for label in labels:
        if label in seen:
            raise ProofError(f"two {what}s are labelled {label}")
        seen.add(label)


def _hex(d: dict[str, Any], key: str, what: str) -> str:
    try:
        return check_hex32(d.get(key), f"{what}'s {key}")
    except ValueError as e:
        raise ProofError(str(e)) from e


def _dict(v: Any, what: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ProofError(f"{what} is an object, not {type(v).__name__}")
    return v


def _list(d: dict[str, Any], key: str, what: str) -> list[Any]:
    v = d.get(key)
    if not isinstance(v, list):
        raise ProofError(f"{what} has no list {key!r}")
    return v
