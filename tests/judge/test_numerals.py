"""Numbers said in words (agent/judge/numerals.py) and the capacity checker reading them."""

from __future__ import annotations

import re

import pytest

from agent.judge.capacity import check_answer, read_quantities
from agent.judge.numerals import with_digits


@pytest.mark.parametrize(
    ("said", "digits"),
    [
        ("七十四点五 GiB 左右", "74.5 GiB 左右"),
        ("一百八十个请求", "180个请求"),
        ("大约一百八个请求", "大约180个请求"),  # the dropped unit people say
        ("两千五百", "2500"),
        ("一千零二十四", "1024"),
        ("二十四点六万字节", "246000字节"),
        ("800亿字节", "80000000000字节"),
        ("四万亿", "4000000000000"),
        ("零点二二九 GiB", "0.229 GiB"),
        ("两 GiB", "2 GiB"),
        ("about seventy-four and a half gibibytes", "about 74.5 gibibytes"),
        ("roughly a hundred and eighty requests", "roughly 180 requests"),
        ("zero point nine one six GiB", "0.916 GiB"),
        ("245 thousand bytes", "245000 bytes"),
        ("sixty layers times one twenty-eight", "60 layers times 128"),
        ("nine eight three million bytes", "983000000 bytes"),  # digits said one by one
        ("about point nine two GiB", "about 0.92 GiB"),  # the leading zero unsaid
        ("forty one point four over point two two nine", "41.4 over 0.229"),
    ],
)
def test_numbers_said_in_words_become_digits(said: str, digits: str) -> None:
    assert with_digits(said).text == digits


@pytest.mark.parametrize(
    "words",
    [
        "万一出问题，千万别重启",
        "统一入口，第一步，之一",
        "一个一个看，一点点来",
        "十分重要",
        "一二三",
        "一些请求",
        "一般来说",
    ],
)
def test_words_that_hold_a_numeral_stay_words(words: str) -> None:
    assert with_digits(words).text == words


def test_a_span_of_the_digits_maps_back_to_what_was_said() -> None:
    d = with_digits("预算四十一点四 GiB，除以零点二二九")
    m = re.search(r"41\.4 GiB", d.text)
    assert m is not None
    assert d.original(m.start(), m.end()) == "四十一点四 GiB"
    tail = d.text.index("，")
    assert d.original(tail, len(d.text)) == "，除以零点二二九"


def test_a_spoken_chinese_capacity_answer_reads_as_correct() -> None:
    """The reference numbers said in characters, as speech-to-text writes them (the checker read none before)."""
    zh = (
        "权重按题目给的：四百亿参数乘两字节，大约七十四点五 GiB，TP 四路每卡十八点六 GiB。KV 预算每卡八十减十八点六"
        "减十二减八，约四十一点四 GiB。每 token 二十四万五千七百六十字节，一个四千 token 的请求零点九一六 GiB，"
        "每卡零点二二九 GiB，所以纯 KV 上限大约一百八十个请求。"
    )
    f = check_answer(zh)
    assert f.verdict == "correct" and not f.errors and not f.off
    assert {"weights_gib", "kv_budget_per_rank_gib", "kv_bytes_per_token", "max_requests_kv_only"} <= set(
        f.matched
    )


def test_a_spoken_english_capacity_answer_reads_as_correct() -> None:
    en = (
        "Weights: forty billion params times two bytes, about seventy-four and a half gibibytes, eighteen point six "
        "gigs per rank. The KV budget is roughly forty-one point four GiB per rank. Per token two forty-five seven "
        "sixty bytes, call it 245 thousand bytes; a 4k request is zero point nine one six GiB, so a hundred and "
        "eighty requests is the KV-only ceiling."
    )
    f = check_answer(en)
    assert f.verdict == "correct", f
    assert {"weights_gib", "weights_per_rank_gib", "max_requests_kv_only"} <= set(f.matched)


def test_digits_right_after_chinese_characters_are_read() -> None:
    """约74.5GiB (no space after the character) was skipped: a CJK character counts as a word character."""
    f = check_answer("约74.5GiB，每卡约18.6GiB，预算约41.4GiB，上限约180个请求")
    assert {"weights_gib", "weights_per_rank_gib", "kv_budget_per_rank_gib", "max_requests_kv_only"} <= set(
        f.matched
    )


def test_a_quantity_keeps_the_text_as_written() -> None:
    qs = read_quantities("大约七十四点五 GiB，一百八十个请求，74.5个G，还有 3 个")
    assert [(q.value, q.unit, q.raw) for q in qs] == [
        (74.5, "gib-like", "七十四点五 GiB"),
        (180.0, "count", "一百八十个请求"),
        (74.5, "gib-like", "74.5个G"),
        (3.0, "count", "3 个"),
    ]


def test_a_model_name_is_not_a_quantity() -> None:
    assert [q.raw for q in read_quantities("A100 与 H100 上 TP4")] == []


def test_a_percentage_said_in_chinese_and_times_said_alone() -> None:
    d = with_digits("延迟降了百分之六十，吞吐提升了三倍，统一之一")
    assert d.text == "延迟降了60%，吞吐提升了3倍，统一之一"
    assert d.original(d.text.index("60%"), d.text.index("60%") + 3) == "百分之六十"
    assert with_digits("提升了三倍", english=True).text == with_digits("提升了三倍", english=False).text
    assert with_digits("about a hundred and eighty", english=False).text == "about a hundred and eighty"
