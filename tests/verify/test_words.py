"""The word lists of the 4-word phrases: BIP-39's English and Korean lists,
unchanged but for Korean's Unicode form, and the web's copies equal to the
package's."""

from __future__ import annotations

import hashlib
import json
import unicodedata

import pytest

from conftest import ROOT
from tablemate_verify.words import phrase, word_indices, word_list

# SHA-256 of BIP-39's english.txt and korean.txt (NFD, as published).
PUBLISHED = {
    "en": "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda",
    "ko": "9e95f86c167de88f450f0aaf89e87f6624a57f973c67b516e338e8e8b8897f60",
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_lists_are_bip39s(lang: str) -> None:
    words = word_list(lang)
    assert len(words) == len(set(words)) == 2048
    assert all(unicodedata.is_normalized("NFC", w) for w in words)
    published = unicodedata.normalize("NFD", "\n".join(words) + "\n") if lang == "ko" else "\n".join(words) + "\n"
    assert hashlib.sha256(published.encode()).hexdigest() == PUBLISHED[lang]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_web_has_the_same_lists(lang: str) -> None:
    web = json.loads((ROOT / "web" / "words" / f"{lang}.json").read_text("utf-8"))
    assert tuple(web) == word_list(lang)


def test_the_licence_note_ships_beside_the_lists() -> None:
    note = (ROOT / "tablemate_verify" / "words" / "LICENSE.txt").read_text("utf-8")
    assert "MIT License" in note and "Pavol Rusnak" in note and "NFC" in note


def test_a_phrase_is_the_first_44_bits() -> None:
    # 1024, 512, 256, 128 in 11 bits each: 10000000000 01000000000 00100000000 00010000000.
    assert word_indices("80080080080" + "f" * 53) == [1024, 512, 256, 128]
    assert phrase("80080080080" + "0" * 53, "en") == [word_list("en")[i] for i in (1024, 512, 256, 128)]
    # Bits past the 44th change nothing.
    assert phrase("80080080080" + "0" * 53, "ko") == phrase("80080080080" + "f" * 53, "ko")


@pytest.mark.parametrize("bad", ["", "abc", "ABCDEF01234", "zz" * 32, "abcdef01234xyz"])
def test_a_phrase_needs_a_hex_hash(bad: str) -> None:
    with pytest.raises(ValueError):
        phrase(bad, "en")


def test_only_korean_and_english() -> None:
    with pytest.raises(ValueError):
        word_list("fr")
