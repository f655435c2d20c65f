from pathlib import Path

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


def test_unpunctuated_chinese_speech_splits_at_its_pauses() -> None:
    """Speech-to-text Chinese without punctuation: a space between two Chinese characters is a clause
    boundary (a space beside an English word is not); punctuated Chinese keeps its sentences whole."""
    spoken = "其实 prefix cache 是可以跨 LoRA 共享的 因为 LoRA 不改 base 权重 所以 router 不用看 adapter"
    got = [s.text for s in sentences(spoken)]
    assert got == [
        "其实 prefix cache 是可以跨 LoRA 共享的",
        "因为 LoRA 不改 base 权重",
        "所以 router 不用看 adapter",
    ]
    assert all(spoken[s.start : s.end] == s.text for s in sentences(spoken))
    written = "其实 prefix cache 不能跨 LoRA 共享，因为 LoRA 名在 hash 的 extra keys 里 所以要分开。"
    assert [s.text for s in sentences(written)] == [written]
    short = "先看 调度器"  # too short to be a run-on transcript
    assert [s.text for s in sentences(short)] == [short]


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


def _term_lists(node: object) -> list[tuple[str, ...]]:
    """Every list of strings in the rubric files: cue groups and term lists (some are prose: harmless)."""
    out: list[tuple[str, ...]] = []
    if isinstance(node, dict):
        for value in node.values():
            out += _term_lists(value)
    elif isinstance(node, list):
        if node and all(isinstance(x, str) for x in node):
            out.append(tuple(node))
        else:
            for value in node:
                out += _term_lists(value)
    return out


def test_sentence_hits_answers_as_each_sentence_asked_alone() -> None:
    """The fast path (one search over the joined sentences) must agree with any_term per sentence, for
    every term list the rubric holds, over every dev answer, and for anchored and sentence-crossing terms."""
    import yaml

    from agent.judge.matching import any_term, compile_terms, sentence_hits

    root = Path(__file__).parents[2]
    data = [yaml.safe_load(f.read_text(encoding="utf-8")) for f in sorted((root / "rubrics").rglob("*.yaml"))]
    term_lists = sorted(set(_term_lists(data)))
    term_lists += [
        ("/^\\s*[-*]\\s*/",),  # anchored: asked per sentence
        ("/alpha[^.;]{0,40}beta/",),  # may match across two sentences in the join, never in one
        ("/beta$/", "gamma"),
        ("/(?a)^(?=.*x)(?=.*beta).*/",),
        ("",),
    ]
    assert len(term_lists) > 100
    dev = root / "eval" / "graded" / "dev"
    texts = [
        "\n\n".join(t.get("answer", "") for t in a.get("turns", [])) or a.get("answer", "")
        for f in sorted(dev.glob("*.yaml"))
        for a in yaml.safe_load(f.read_text(encoding="utf-8"))["answers"]
    ]
    assert len(texts) > 100
    texts = texts[::12]  # a twelfth of them (30+ answers of every round and voice): enough variety
    texts += ["alpha one.\nbeta two. - gamma beta", "x alpha\nbeta"]
    term_lists.append(("/(?a)\\b1\\s*gib\\s*(=|is)/", "/(?a)(\\d+)\\s*gb,?\\s*(call it)\\s*\\1\\s*gib/"))
    texts.append("it is 80 gb, call it 80 gib. it is 80 gb, call it 90 gib.")
    for text in texts:
        lowers = [s.lower for s in sentences(text)]
        for terms in term_lists:
            # the truth: each term asked on its own (a joined pattern must not change what any term means)
            alone = [any(t.search(low) for t in compile_terms(terms)) for low in lowers]
            assert [any_term(low, terms) for low in lowers] == alone, (terms, text[:80])
            want = sum(1 << i for i, hit in enumerate(alone) if hit)
            assert sentence_hits(lowers, terms) == want, (terms, text[:80])


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    """A quote cut at "(e.g." shows half a thought: "e.g.", "i.e.", "etc." and "vs." end no sentence."""
    text = "Tighten the retry budget (e.g. at most one re-attempt), i.e. cap it. Then drain the canary, vs. killing it."
    assert [s.text for s in sentences(text)] == [
        "Tighten the retry budget (e.g. at most one re-attempt), i.e. cap it.",
        "Then drain the canary, vs. killing it.",
    ]
