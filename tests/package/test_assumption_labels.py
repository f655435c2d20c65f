"""The assumption table credits a label to the number it belongs to: a label the sentence before gives its
own numbers does not carry over to a derived value, and a value a sentence computes is not "given" because
the question states the same number. The checker's heading rule (a label alone in the sentence before)
still counts."""

from __future__ import annotations

from agent.graph import start_session
from agent.package import build_package
from tests.package.conftest import UNIT_ERROR, UNIT_ERROR_ZH, drive

ASK = {"capacity": "I would ask whether weights are replicated and what the block size is."}


class Table(dict[tuple[str, str], tuple[str | None, str]]):
    """(number, the start of its sentence) -> (label, labelled_by)."""

    def __missing__(self, key: tuple[str, str]) -> tuple[str | None, str]:
        found = [v for (n, s), v in self.items() if n == key[0] and s.startswith(key[1])]
        if len(found) != 1:
            raise KeyError(key)
        return found[0]


def _table(sid: str, lang: str, first: str) -> Table:
    v = drive(start_session("capacity", lang, session_id=sid), ASK, {"capacity": first})  # type: ignore[arg-type]
    return Table(
        ((a.text, a.sentence), (a.label, a.labelled_by)) for a in build_package(v.session_id).assumptions
    )


def test_a_label_stays_with_its_own_sentence_in_both_languages() -> None:
    en = _table("labels-en", "en", UNIT_ERROR)
    # "Given: 40B parameters … on 80 GiB GPUs." labels its own numbers
    assert en[("80", "Given: 40B p")] == ("given", "candidate")
    # "Weights: 40e9 x 2 bytes = 80 GB, so each rank holds 20 GiB" is not labelled by the candidate
    assert en[("20", "Weights: 40e")] == (None, "unlabelled")
    assert en[("80", "Weights: 40e")] == (None, "unlabelled")  # computed, though the GPUs are 80 GiB
    # "Derived KV budget per rank = … = 40 GiB": derived, though the question has 40 (40×10^9 params)
    assert en[("40", "Derived KV b")] == ("derived", "candidate")
    # the question's own numbers inside a derivation stay given, inferred by the checker
    assert en[("60", "Derived KV p")] == ("given", "inferred")

    zh = _table("labels-zh", "zh", UNIT_ERROR_ZH)
    assert zh[("20", "权重")] == (None, "unlabelled")
    assert zh[("40", "推导：每个")] == ("derived", "candidate")


def test_a_heading_labels_the_sentence_after_it() -> None:
    text = (
        "Everything below is given by the prompt. "
        "The model has 40B params on GPUs of 80 GiB each. "
        "Derived weights per rank = 74.5 / 4 = 18.6 GiB."
    )
    table = _table("labels-heading", "en", text)
    assert table[("80", "The model ha")] == ("given", "candidate")
    assert table[("18.6", "Derived weig")] == ("derived", "candidate")
