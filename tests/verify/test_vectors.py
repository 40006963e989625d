"""Fixed test vectors (tests/verify/vectors.json): secret, seeds and index →
words and draws; seals; canonical JSON; phrases. The same file holds
web/fairness.js to the same answers (test_js.py). The first checks redo the
scheme by hand with hashlib and hmac, as docs/fairness.md shows, so the
vectors do not only pin the package to itself."""

from __future__ import annotations

import doctest
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

import tablemate_verify
from tablemate_verify import canon, chain, derive, proof, record, seal, words
from tablemate_verify.derive import OutcomeRng, Stream, commitment, replay
from tablemate_verify.seal import seal_hash
from tablemate_verify.words import phrase

VECTORS: dict[str, Any] = json.loads((Path(__file__).parent / "vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("module", [canon, chain, derive, proof, record, seal, words])
def test_doctests(module: Any) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 or module in (proof, record)
    assert result.failed == 0


def by_hand_block(secret: str, label: str, seeds: list[str], index: int, block: int) -> list[int]:
    """docs/fairness.md's few lines: the message written out as text."""
    quoted = ",".join(f'"{s}"' for s in seeds)
    msg = f'["tablemate-outcome/1","{label}",[{quoted}],{index},{block}]'.encode()
    mac = hmac.new(bytes.fromhex(secret), msg, hashlib.sha256).digest()
    return [int.from_bytes(mac[i:i + 4], "big") for i in range(0, 32, 4)]


@pytest.mark.parametrize("v", VECTORS["streams"], ids=lambda v: f"{len(v['seeds'])}seeds-i{v['index']}")
def test_stream_words(v: dict[str, Any]) -> None:
    by_hand = by_hand_block(v["secret"], v["label"], v["seeds"], v["index"], 0)
    by_hand += by_hand_block(v["secret"], v["label"], v["seeds"], v["index"], 1)
    assert by_hand == v["words"]
    stream = Stream(v["secret"], v["label"], v["seeds"], v["index"])
    assert [stream.word() for _ in range(16)] == v["words"]


def test_every_input_changes_the_words() -> None:
    first = {tuple(v["words"]) for v in VECTORS["streams"]}
    assert len(first) == len(VECTORS["streams"])


@pytest.mark.parametrize("v", VECTORS["outcomes"], ids=lambda v: f"{v['label']}-i{v['index']}")
def test_outcome_draws(v: dict[str, Any]) -> None:
    stream = Stream(v["secret"], v["label"], v["seeds"], v["index"])
    assert [replay(stream, d) for d in v["draws"]] == [d["result"] for d in v["draws"]]
    assert stream.used == v["used"]
    # The Rng the server passes to the engines draws the same, and records the same.
    rng = OutcomeRng.of(v["secret"], v["label"], v["seeds"], v["index"])
    for d in v["draws"]:
        if d["op"] == "range":
            rng.randrange(d["start"], d["stop"], d["step"])
        elif d["op"] == "choice":
            rng.choice([tuple(x) if isinstance(x, list) else x for x in d["items"]])
        elif d["op"] == "shuffle":
            rng.shuffle(list(d["items"]))
        else:
            rng.sample(d["items"], d["k"])
    assert rng.draws == v["draws"]


@pytest.mark.parametrize("v", VECTORS["rejections"], ids=lambda v: f"n{v['n']}-i{v['index']}")
def test_rejection_sampling(v: dict[str, Any]) -> None:
    n = v["n"]
    limit = 2**32 - 2**32 % n
    words_ = by_hand_block(v["secret"], v["label"], v["seeds"], v["index"], 0)
    used = v["used"]
    # The vector exercises the rejection path: every word before the last is
    # at or past the limit, and the last one, reduced mod n, is the result.
    assert used >= 2
    assert all(w >= limit for w in words_[:used - 1]) and words_[used - 1] < limit
    assert words_[used - 1] % n == v["result"]
    stream = Stream(v["secret"], v["label"], v["seeds"], v["index"])
    assert stream.below(n) == v["result"] and stream.used == used


@pytest.mark.parametrize("v", VECTORS["commitments"], ids=lambda v: v["secret"][:4])
def test_commitments(v: dict[str, Any]) -> None:
    assert commitment(v["secret"]) == v["commitment"]
    assert hashlib.sha256(bytes.fromhex(v["secret"])).hexdigest() == v["commitment"]


@pytest.mark.parametrize("v", VECTORS["seals"], ids=lambda v: v["label"])
def test_seals(v: dict[str, Any]) -> None:
    assert seal_hash(v["label"], v["salt"], v["value"]) == v["hash"]
    by_hand = json.dumps(["tablemate-seal/1", v["label"], v["salt"], v["value"]],
                         sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(by_hand.encode()).hexdigest() == v["hash"]
    assert tablemate_verify.check_seal(v["label"], v["hash"], v["salt"], v["value"])
    assert not tablemate_verify.check_seal(v["label"], v["hash"], v["salt"], [v["value"]])
    assert not tablemate_verify.check_seal(v["label"] + "x", v["hash"], v["salt"], v["value"])


@pytest.mark.parametrize("v", VECTORS["canonical"], ids=range(len(VECTORS["canonical"])))
def test_canonical_json(v: dict[str, Any]) -> None:
    assert canon.dumps(v["value"]) == v["text"]


def test_canonical_sorts_keys_by_code_point() -> None:
    # U+1F600 sorts after U+FFFF by code point (UTF-16 code units would put it first).
    assert canon.dumps({"\U0001F600": 1, "\uffff": 2, "B": 3, "a": 4}) == '{"B":3,"a":4,"\uffff":2,"\U0001F600":1}'


@pytest.mark.parametrize("bad", [1.5, 2**53, {1: "x"}, "\ud800", object()])
def test_values_without_a_canonical_form_are_refused(bad: Any) -> None:
    with pytest.raises(canon.CanonError):
        canon.dumps(bad)


@pytest.mark.parametrize("v", VECTORS["phrases"], ids=lambda v: v["hash"][:11])
def test_phrases(v: dict[str, Any]) -> None:
    assert phrase(v["hash"], "en") == v["en"]
    assert phrase(v["hash"], "ko") == v["ko"]


@pytest.mark.parametrize("v", VECTORS["link_streams"], ids=lambda v: f"{len(v['links'])}links-i{v['index']}")
def test_link_stream_words(v: dict[str, Any]) -> None:
    """An outcome of chain links (tablemate-outcome/2): the message by hand,
    its links sorted by seat as code points ("p1" < "p10" < "p3")."""
    pairs = sorted(v["links"])
    by_hand = []
    for block in (0, 1):
        msg = json.dumps(["tablemate-outcome/2", v["label"], pairs, v["index"], block], separators=(",", ":"))
        mac = hmac.new(bytes.fromhex(v["secret"]), msg.encode(), hashlib.sha256).digest()
        by_hand += [int.from_bytes(mac[i:i + 4], "big") for i in range(0, 32, 4)]
    assert by_hand == v["words"]
    stream = Stream(v["secret"], v["label"], [], v["index"], [tuple(x) for x in v["links"]])
    assert [stream.word() for _ in range(16)] == v["words"]


def test_a_chain_hashes_down_to_its_anchor() -> None:
    from tablemate_verify.chain import make_chain, step
    for v in VECTORS["chains"]:
        assert make_chain(v["length"], v["top"]) == v["links"]
        assert all(step(b) == a for a, b in zip(v["links"], v["links"][1:], strict=False))
