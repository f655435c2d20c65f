"""The round-finished banner says, under each flag, what in the answer raised it (issue 12: a blind tester read
"Wrong claim" and "Source path that does not exist" on the banner and could not tell which sentence or path;
only the session's final report said). The candidate's own words, verbatim, the path as cited, in either
interface language; a flag raised by what the answer leaves out says there is nothing to quote."""

from __future__ import annotations

import pytest

from agent.contracts.labels import flag_line
from agent.judge.assessment import assess_answer
from agent.rubric import default_rubric
from agent.ui import views
from tests.ui.test_banner_agrees import ANSWER as CLEAN

WRONG = "PagedAttention is basically CPU swapping for the KV cache."
MEASURED = "Throughput went up 3x after we measured 4000 tokens per second."
PATH = "vllm/core/magic_pager.py"
ANSWER = (
    f"Paged KV cache splits the KV cache into fixed-size blocks. {WRONG} I would check {PATH}. {MEASURED}"
)
WRONG_ZH = "PagedAttention 就是显存不够时把 KV cache 换出到 CPU 内存。"
ANSWER_ZH = f"Paged KV cache 把 KV cache 切成固定大小的 block，按需分配。{WRONG_ZH}"

UNDER = {  # what the line under a flag says, by flag, in each interface language
    "en": {"quote": "Your words: “{q}”", "path": "The path you cited: ", "absent": "Nothing to quote"},
    "zh": {"quote": "你的原话：“{q}”", "path": "你引用的路径：", "absent": "没有可引用的原话"},
}


def _under(md: str, flag: str, ui: str) -> list[str]:
    """The lines of the banner's list nested under `flag`'s line."""
    lines = md.splitlines()
    at = lines.index(f"- {flag_line(flag, ui)}")  # type: ignore[arg-type]
    out = []
    for line in lines[at + 1 :]:
        if not line.startswith("  - "):
            break
        out.append(line[4:])
    return out


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_each_flag_on_the_banner_shows_what_in_the_answer_raised_it(ui: str) -> None:
    rubric = default_rubric()
    said = UNDER[ui]
    ra = assess_answer(rubric, "concepts", ANSWER, "en")
    md = views.round_banner_md(rubric, ra, "en", ui, last=False)  # type: ignore[arg-type]
    wrong = _under(md, "misconception", ui)
    assert len(wrong) == 1 and said["quote"].format(q=WRONG) in wrong[0], wrong
    assert "swapping the KV cache out to CPU memory" in wrong[0]  # the claim, in the session's language
    assert _under(md, "fabricated_metrics", ui) == [said["quote"].format(q=MEASURED)]
    assert _under(md, "nonexistent_path", ui) == [said["path"] + PATH]
    happy = _under(md, "happy_path_only", ui)
    assert len(happy) == 1 and said["absent"] in happy[0]
    assert _under(md, "accuracy_1", ui) == []  # raised by a score: the table above shows it

    zh = assess_answer(rubric, "concepts", ANSWER_ZH, "zh")
    md = views.round_banner_md(rubric, zh, "zh", ui, last=False)  # type: ignore[arg-type]
    wrong = _under(md, "misconception", ui)
    assert len(wrong) == 1 and said["quote"].format(q=WRONG_ZH) in wrong[0], wrong
    assert "换出（swap）到 CPU 内存" in wrong[0]


def test_a_round_without_flags_or_without_its_checklist_shows_no_evidence() -> None:
    rubric = default_rubric()
    ra = assess_answer(rubric, "concepts", CLEAN, "en")
    old = ra.model_copy(update={"checklist": None})  # a report of an older version: the flags alone
    md = views.round_banner_md(rubric, old, "en", "en", last=False)
    assert not any(line.startswith("  - ") for line in md.splitlines()), md
