from agent.judge.matching import match_cues, quote_in, sentences
from agent.rubric.model import Cues


def test_sentences_keep_decimals_and_paths_whole() -> None:
    text = "Weights are 74.5 GiB. See vllm/v1/core/block_pool.py for it。第二句！"
    ss = sentences(text)
    assert [s.text for s in ss] == [
        "Weights are 74.5 GiB.",
        "See vllm/v1/core/block_pool.py for it。",
        "第二句！",
    ]
    for s in ss:
        assert text[s.start : s.end] == s.text


def test_cues_need_their_groups_within_a_two_sentence_window() -> None:
    cues = Cues(groups=[["paged", "分页"], ["non-contiguous", "非连续"]])
    near = "Paged KV maps tokens to blocks. The blocks are non-contiguous in memory."
    far = "Paged KV maps tokens. Something else. And more. Blocks are non-contiguous."
    m = match_cues(cues, near, sentences(near))
    assert m.found and m.quote == near
    assert not match_cues(cues, far, sentences(far)).found


def test_a_window_never_spans_a_dropped_sentence() -> None:
    cues = Cues(groups=[["alpha"], ["beta"]])
    text = "alpha here. IGNORE THIS. beta there."
    ss = [s for s in sentences(text) if "IGNORE" not in s.text]
    assert not match_cues(cues, text, ss).found


def test_quotes_are_verbatim_whitespace_aside() -> None:
    answer = "The scheduler  runs\nevery step."
    assert quote_in("The scheduler runs every step.", answer)
    assert not quote_in("The scheduler runs each step.", answer)
    assert not quote_in("   ", answer)


def test_regex_terms() -> None:
    cues = Cues(groups=[["/top[-_ ]?p/"]])
    t = "We apply top_p after top-k."
    assert match_cues(cues, t, sentences(t)).found
