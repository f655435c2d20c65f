"""agent/contracts/flag_evidence.py: what in the answer raised each flag, read from the round's checklist as the
scoring recorded it (issue 12: the round banner named a flag without what in the answer caused it). A quote or
a path is a verbatim slice of the answer; a flag the answer raises by what it leaves out, or by its scores, has
none; a report without a checklist (an older version's) gives none."""

from __future__ import annotations

from agent.contracts.flag_evidence import ABSENT, SHOWN, flag_evidence
from agent.judge.assessment import assess_answer
from agent.rubric.loader import default_rubric

WRONG = "PagedAttention is basically CPU swapping for the KV cache."
MEASURED = "Throughput went up 3x after we measured 4000 tokens per second."
PATH = "vllm/core/magic_pager.py"
ANSWER = (
    f"Paged KV cache splits the KV cache into fixed-size blocks. {WRONG} I would check {PATH}. {MEASURED}"
)
WRONG_ZH = "PagedAttention 就是显存不够时把 KV cache 换出到 CPU 内存。"
ANSWER_ZH = f"Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。{WRONG_ZH}"


def test_each_flag_is_backed_by_the_passage_of_the_answer_that_raised_it() -> None:
    ra = assess_answer(default_rubric(), "concepts", ANSWER, "en")
    assert {"misconception", "nonexistent_path", "fabricated_metrics", "happy_path_only"} <= set(ra.flags)
    wrong = flag_evidence(ra, "misconception")
    assert [(e.kind, e.text) for e in wrong] == [("quote", WRONG)]
    assert wrong[0].claim is not None and "swapping" in wrong[0].claim.en and "CPU" in wrong[0].claim.zh
    assert [(e.kind, e.text) for e in flag_evidence(ra, "nonexistent_path")] == [("path", PATH)]
    assert [(e.kind, e.text) for e in flag_evidence(ra, "fabricated_metrics")] == [("quote", MEASURED)]
    for f in ra.flags:
        found = flag_evidence(ra, f)
        assert len(found) <= SHOWN
        for e in found:
            assert e.text in ANSWER, (f, e.text)  # verbatim, never written for the occasion
        if f in ABSENT or f in ("accuracy_1", "validation_1"):
            assert found == [], (f, found)


def test_a_chinese_answer_is_quoted_as_written_and_an_old_report_has_no_evidence() -> None:
    ra = assess_answer(default_rubric(), "concepts", ANSWER_ZH, "zh")
    assert "misconception" in ra.flags
    assert [e.text for e in flag_evidence(ra, "misconception")] == [WRONG_ZH]
    old = ra.model_copy(update={"checklist": None})
    assert all(flag_evidence(old, f) == [] for f in ra.flags)
