"""Delivery figures of a spoken answer from its timestamps: rate, fillers (interjections anywhere, ordinary
words only when standalone), long pauses; English and Chinese; empty and one-word input."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.rubric.model import Lang
from agent.voice import TimedText, Transcription, delivery_of
from agent.voice.delivery import RULES_FILE, DeliveryRules, combine, count_units, load_rules, measure


def timed(*pieces: tuple[str, float, float]) -> tuple[TimedText, ...]:
    return tuple(TimedText(text, start, end) for text, start, end in pieces)


def evenly(text: str, seconds: float, start: float = 0.0) -> tuple[TimedText, ...]:
    """Each space-separated word of `text` given an equal share of `seconds`, back to back."""
    words = text.split()
    step = seconds / len(words)
    return tuple(TimedText(f" {w}", start + i * step, start + (i + 1) * step) for i, w in enumerate(words))


def fillers_of(text: str, lang: Lang = "en", pieces: tuple[TimedText, ...] = ()) -> dict[str, int]:
    d = measure(text, lang, timed=pieces, duration_s=30)
    return {u.text: u.count for u in d.filler_uses}


# rate ------------------------------------------------------------------------------------------------


def test_english_words_per_minute_over_the_speaking_time() -> None:
    words = evenly("the scheduler admits a request when its blocks fit in the cache", 4.0, start=1.5)
    d = measure("", "en", timed=words, duration_s=9.0)  # leading and trailing silence left out
    assert (d.unit, d.units, d.speaking_s) == ("words", 12, 4.0)
    assert d.rate_per_min == 180.0 and d.pace == "steady" and d.timed


@pytest.mark.parametrize(("seconds", "pace"), [(3.0, "fast"), (8.0, "slow"), (5.0, "steady")])
def test_the_pace_hint_follows_the_rules_bands(seconds: float, pace: str) -> None:
    d = measure(
        "", "en", timed=evenly("one two three four five six seven eight nine ten eleven twelve", seconds)
    )
    assert d.pace == pace, d.rate_per_min  # 12 words: 240, 90, 144 a minute (bands 110-180)


def test_chinese_characters_per_minute_with_english_words_counting_one() -> None:
    assert count_units("我们先看 KV cache 的分配。") == 9  # 我们先看 + KV + cache + 的分配
    pieces = timed(
        ("我们", 0.0, 0.5),
        ("先看", 0.5, 1.0),
        (" KV", 1.0, 1.4),
        (" cache", 1.4, 2.0),
        ("的分配。", 2.0, 2.7),
    )
    d = measure("", "zh", timed=pieces)
    assert (d.unit, d.units) == ("characters", 9)
    assert d.rate_per_min == 200.0 and d.pace == "steady"  # 9 in 2.7 s; 150-300 a minute is steady


def test_a_fast_chinese_answer_is_fast() -> None:
    text = "我们先看调度器然后看显存分配再看前缀缓存命中率"  # 23 characters in 3.5 s: 394 a minute
    d = measure(text, "zh", timed=timed((text, 0.0, 3.5)))
    assert d.units == 23 and d.pace == "fast"


# fillers ---------------------------------------------------------------------------------------------


def test_english_interjections_count_anywhere_and_as_whole_words_only() -> None:
    assert fillers_of("Um, I would, uh, roll back, umm, and check. Hmm.") == {
        "um": 1,
        "uh": 1,
        "umm": 1,
        "hmm": 1,
    }
    assert fillers_of("The summary was huge; the user erred; a numa node.") == {}


def test_english_like_and_you_know_count_only_standalone() -> None:
    assert fillers_of("Like, the scheduler is, like, fast. You know, it works.") == {"like": 2, "you know": 1}
    assert fillers_of("I like it. It works like a queue. You know the answer. What I mean is this.") == {}


def test_chinese_fillers_standalone_count() -> None:
    d = measure("嗯，那个，我们先看调度器，就是，KV cache 的分配。", "zh", duration_s=6)
    assert {u.text: u.count for u in d.filler_uses} == {"嗯": 1, "那个": 1, "就是": 1} and d.fillers == 3
    # Whisper writes its commas several ways: any punctuation is a break
    assert fillers_of("嗯,那个,我们先看调读器﹑就是﹑显存。", "zh") == {"嗯": 1, "那个": 1, "就是": 1}


@pytest.mark.parametrize(
    "text",
    [
        "那个请求会被抢占。",  # that request will be preempted
        "问题就是，显存不够。",  # the problem is, memory is short
        "这就是原因。",  # this is the reason
        "就是这个 block 被释放了。",  # it is exactly this block that was freed
        "那个就是我们的瓶颈。",  # that is our bottleneck
        "我们用那个调度器。",  # we use that scheduler
    ],
)
def test_chinese_ordinary_uses_of_na_ge_and_jiu_shi_are_not_fillers(text: str) -> None:
    assert fillers_of(text, "zh") == {}


def test_a_repeated_filler_counts_every_copy() -> None:
    assert fillers_of("就是就是说 KV cache 要分页。", "zh") == {"就是": 2}
    assert fillers_of("那个那个 block 会被释放。", "zh") == {"那个": 2}
    assert fillers_of("嗯嗯，好的。", "zh") == {"嗯": 2}


def test_a_pause_after_na_ge_makes_it_a_filler_even_without_a_comma() -> None:
    paused = timed(("那个", 0.0, 0.4), ("我们", 0.9, 1.2), ("先看调度器", 1.2, 2.4))
    joined = timed(("那个", 0.0, 0.4), ("我们", 0.42, 1.2), ("先看调度器", 1.2, 2.4))
    assert fillers_of("", "zh", paused) == {"那个": 1}  # 0.5 s of silence after it
    assert fillers_of("", "zh", joined) == {}  # said straight on: "那个我们…" is left alone


def test_a_filler_right_after_an_interjection_starts_a_clause() -> None:
    assert fillers_of("嗯那个，先看调度器。", "zh") == {"嗯": 1, "那个": 1}
    assert fillers_of("嗯那个请求被抢占了。", "zh") == {"嗯": 1}  # "that request": no break after it


def test_the_filler_lists_are_data(tmp_path: Path) -> None:
    rules = load_rules()
    assert RULES_FILE.name == "delivery.yaml" and set(rules.languages) == {"en", "zh"}
    assert "那个" in rules.languages["zh"].fillers.standalone and "um" in rules.languages["en"].fillers.always
    data = rules.model_dump()
    data["languages"]["en"]["fillers"]["always"] = ["well"]  # another list, another count
    own = DeliveryRules.model_validate(data)
    assert {u.text for u in measure("Well, um, it works.", "en", rules=own).filler_uses} == {"well"}
    bad = tmp_path / "delivery.yaml"
    bad.write_text(
        "pause_s: 2\nbreak_s: 0.3\nmin_speaking_s: 2\nmin_units: 3\nlanguages: {}\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="no rules for en, zh"):
        load_rules(bad)
    assert isinstance(load_rules(), DeliveryRules)


# pauses ----------------------------------------------------------------------------------------------


def test_long_pauses_are_gaps_of_two_seconds_or_more_between_words() -> None:
    pieces = (
        *evenly("I would roll back the deployment", 2.0),
        *evenly("then compare the latency", 1.5, start=5.0),  # 3.0 s after "deployment"
        *timed((" before", 8.4, 8.8), (" and", 8.8, 9.0), (" after", 9.0, 9.5)),  # 1.9 s: not long
        *timed((" the", 11.5, 11.8), (" change", 11.8, 12.0)),  # 2.0 s: long
    )
    d = measure("", "en", timed=pieces)
    assert d.pauses == 2 and d.longest_pause_s == 3.0 and d.pause_s == 2.0
    assert d.speaking_s == 12.0 and d.units == 15


def test_overlapping_word_times_make_no_pause() -> None:
    pieces = timed((" a", 0.0, 3.0), (" b", 1.0, 1.5), (" c", 3.5, 4.0), (" d", 4.0, 4.5))
    d = measure("", "en", timed=pieces)
    assert d.pauses == 0 and d.longest_pause_s is None and d.speaking_s == 4.5


def test_without_timestamps_pauses_are_unknown_and_the_audio_length_is_used() -> None:
    d = measure("I would roll back the deployment and check the latency.", "en", duration_s=4.0)
    assert not d.timed and d.pauses is None and d.longest_pause_s is None
    assert d.units == 10 and d.rate_per_min == 150.0


# edges -----------------------------------------------------------------------------------------------


def test_empty_input() -> None:
    d = measure("", "en")
    assert (d.units, d.speaking_s, d.rate_per_min, d.pace, d.fillers, d.pauses) == (
        0,
        0.0,
        None,
        None,
        0,
        None,
    )
    z = measure("", "zh", timed=())
    assert z.units == 0 and z.rate_per_min is None and z.fillers_per_min is None


def test_one_word_is_too_short_for_a_rate() -> None:
    d = measure("", "en", timed=timed((" Hello.", 0.2, 0.7)))
    assert d.units == 1 and d.rate_per_min is None and d.pace is None and d.pauses == 0
    z = measure("", "zh", timed=timed(("嗯", 0.0, 0.3)))
    assert z.fillers == 1 and z.rate_per_min is None and not z.many_fillers


def test_many_fillers_a_minute_is_said() -> None:
    text = "Um, the scheduler, uh, admits, um, the request, uh, when blocks fit in the cache, um."
    d = measure(text, "en", timed=evenly(text, 12.0))
    assert d.fillers == 5 and d.fillers_per_min == 25.0 and d.many_fillers


# from a transcription --------------------------------------------------------------------------------


def test_delivery_of_reads_the_words_then_the_segments() -> None:
    words = evenly("I would roll back", 2.0) + evenly("and check the latency", 2.0, start=4.5)
    segments = timed((" I would roll back", 0.0, 2.0), (" and check the latency", 4.5, 6.5))
    text = "I would roll back and check the latency"
    by_words = delivery_of(Transcription(text, "en", 7.0, "test", words=words, segments=segments))
    by_segments = delivery_of(Transcription(text, "en", 7.0, "test", segments=segments))
    untimed = delivery_of(Transcription(text, "en", 7.0, "test"))
    assert by_words.pauses == by_segments.pauses == 1 and by_words.longest_pause_s == 2.5
    assert by_words.units == by_segments.units == untimed.units == 8
    assert untimed.pauses is None and untimed.speaking_s == 7.0


def test_an_answer_recorded_in_parts_is_measured_as_one() -> None:
    a = measure("", "en", timed=evenly("Um I would roll back the deployment", 3.0))
    b = measure("", "en", timed=(*evenly("uh and then", 1.0), *evenly("check the latency", 1.0, start=3.5)))
    both = combine([a, b])
    assert both is not None
    assert (both.units, both.speaking_s, both.fillers, both.pauses, both.longest_pause_s) == (
        13,
        7.5,
        2,
        1,
        2.5,
    )
    assert both.rate_per_min == 104.0 and both.pace == "slow"
    assert {u.text for u in both.filler_uses} == {"um", "uh"}
    assert combine([]) is None and combine([a]) == a
