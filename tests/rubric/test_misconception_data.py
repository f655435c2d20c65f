"""The misconception catalogue (rubrics/misconceptions/): complete per round, in both languages, every
correction backed by a seed line or a vLLM file at the pin, and bad data rejected with its file and entry."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from agent.config import repo_root
from agent.judge.matching import Term
from agent.judge.misconceptions import spells_negator
from agent.rubric import ROUND_IDS, RubricError, load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.misconception import PATH_SOURCE, has_cjk

# The seed lines the catalogue quotes, word for word (seed 000: the five mock rounds and the narrative
# template; seed 004: the project-experience interview). A `source: "seed 000: …"` must be a slice of one.
SEED_LINES: dict[str, tuple[str, ...]] = {
    "000": (
        "1. block size 越小是否越好？",
        "若 KV heads 在 TP=4 均匀分片，每 rank逻辑部分近似：",
        "1. 最小方案： 每模型版本独立 deployment；单节点能放下则小 TP + replica DP；gateway 负责 auth / token / schema "
        "limits，router 以 model / LoRA 为 hard constraint，以 load / prefix / active adapter 为有界 soft score。",
        "2. prefix hit rate 高，为什么 TTFT 可能不降？",
        "2. 若 KV 改 FP8，理论和质量 gate各怎样变化？",
        "3. continuous batching 是否意味着 prefill / decode 一定同 step 混跑？",
        "3. 为什么 p95 request size 不能保护 p99 / max OOM？",
        "3. 事故轮为什么要先限制 retry，再判断是否扩容？",
        "3. 节点故障后所有请求 retry，怎样避免 queue collapse？",
        "4. Structured output： auto vs explicit backend 的 upgrade tradeoff；schema complexity / compile budget与 "
        "semantic validation。",
        "5. Failure domains： node / model group、router、artifact、adapter、retry；drain whole TP group。",
        "7. Deployment： immutable compatibility matrix、shadow、canary、expand、drain old、rollback；旧 cache "
        "不跨不兼容版本复用。",
        "8. Alternative： 长 context独立 pool；单节点放不下才引入 PP / 跨节点；P/D 只有 transfer / queue 证明收益才选。",
        "• Continuous batching：step 边界重调度，处理长度异质性；受 token budget 与 KV capacity 共同约束。",
        "• HPA 只看 GPU util；没有 admission / retry budget。",
        "• Paged KV：逻辑 token → 非连续物理 block，按需分配；仍有尾块 / metadata 成本。",
        "• seed 只控制 generator，不承诺跨 backend / batch / hardware bitwise deterministic。",
        "• 先抑制 retry amplification，再讨论扩容。",
        "• 单位从 byte 到 GiB 全程可约分。",
        "• 只写已记录结果：[raw artifact / dashboard / report]",
        "• 同时报 quality、SLO、goodput 与 cost；不能只挑改善项。",
        "• 在证据不足时切全池 backend。",
        "• 声称 GPU utilization 必然接近 100%。",
        "• 恢复不是“图绿了”，还含 quality与持续窗口。",
        "• 所有数字必须标注“题设、推导、观测或估计”。把估计称作实测是严重扣分。",
        "• 把 180 写进 HPA capacity。",
        "• 把 PagedAttention 说成 CPU swap；把 prefix cache 说成 response cache。",
        "• 把 structured output 当工具授权，把 runtime LoRA API直接暴露给 tenant。",
        "• 用 query heads 计算 KV；把全模型 KV 再错误乘 layer。",
        "• 直接说 40B BF16 是 80 GiB，忽略十进制 / 二进制。",
        "• 立即把 max_num_seqs 调大或全池重启。",
        "• 若 canary 与变更高度相关且 rollback safe，停止新流量并 drain canary，不直接 kill streaming requests。",
        "• 解释旧 Pod 变慢可能是 retry / reroute放大，而非证明旧版本也有同一 kernel bug。",
        # the self-check round's (rubrics/misconceptions/self-check.yaml)
        "1. 任一轮得 5 分需要哪些比“答对”更多的证据？",
        "2. 容量： 用真实模型算 weight / KV；用 benchmark 得 μ_good；ceil(120/(μ_good×ρ)) + node-failure + rollout。",
        "• 候选人可以说“不知道”，但要说明下一步如何从源码 / 运行证据求证。",
        "• 每轮都要求一个 failure boundary 与 rollback；只讲 happy path 不超过 3 分。",
        "• 前 5 分钟只做澄清与假设排序，不抢答 GPU 数。",
        "• 暂停 rollout；限制 retry budget / 启用 admission，防止重复工作放大。",
        "• 区分 correlation 与 causation，用 old Pod 变慢解释 shared load effect。",
        "• 若只能定性：写“在 [观察窗] 未再出现 [故障定义]”，不要杜撰百分比。",
        "• 项目叙事宁可暴露证据缺口，也不要虚构漂亮数字。",
    ),
    "004": (
        "4. 为什么这样选择：为什么选择 vLLM 而不是 TGI、TensorRT-LLM 或直接 Transformers？并发、量化、批大小和显存利用如何取舍？",
        "9. 项目怎样上线：生产中如何做副本、限流、预热、模型版本、健康检查、自动扩缩、监控、灰度和回滚？",
        "11. 条件变化怎么办：如果流量扩大十倍且延迟预算减半，容量、路由、分池、量化和模型层级如何重设计？",
        "回答里如果缺少这些内容，面试官会继续追问：没有说清自己负责哪部分。",
    ),
}

# A regex gap that could swallow a negator of its own: any-char or not-these-chars repeats, and \w repeats
# that are not a word suffix (in Chinese \w spans whole phrases, 不 included).
_GAP = re.compile(r"\.[{*+]|\[\^[^\]]*\][{*+]|(?<![a-z\]])\\w[{*+]")


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.fixture(scope="module")
def vllm_paths() -> set[str]:
    return set((repo_root() / "knowledge" / "vllm_paths.txt").read_text(encoding="utf-8").split())


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_every_round_has_at_least_eight_of_its_own(rubric: Rubric, round_id: str) -> None:
    own = rubric.misconception_catalogue[round_id]  # type: ignore[index]
    assert len(own) >= 8, f"{round_id}: {len(own)} misconceptions"


def test_a_project_story_is_also_held_to_the_concept_round(rubric: Rubric) -> None:
    ids = {m.id for m in rubric.misconceptions("project-experience")}
    assert {"paged-as-cpu-swap", "prefix-as-response-cache", "measured-without-artifact"} <= ids
    # a mechanism error is one in every round (the concept round's in all, the trace round's in incidents);
    # a project's own errors (a measurement without its artefact) stay in the project round
    for rid in ("capacity", "incident", "system-design", "source-trace"):
        assert "paged-as-cpu-swap" in {m.id for m in rubric.misconceptions(rid)}, rid
    assert "seed-bitwise-deterministic" in {m.id for m in rubric.misconceptions("incident")}
    assert "measured-without-artifact" not in {m.id for m in rubric.misconceptions("concepts")}


def test_ids_are_unique_across_the_catalogue(rubric: Rubric) -> None:
    ids = [m.id for entries in rubric.misconception_catalogue.values() for m in entries]
    assert len(ids) == len(set(ids))


def test_both_languages_everywhere(rubric: Rubric) -> None:
    for entries in rubric.misconception_catalogue.values():
        for m in entries:
            for t in (m.claim, m.correction):
                assert has_cjk(t.zh), f"{m.id}: the zh text has no Chinese: {t.zh!r}"
                assert re.search(r"[A-Za-z]{3}", t.en) and not has_cjk(t.en), f"{m.id}: the en text: {t.en!r}"
            terms = [t for g in m.recognise.groups for t in g]
            assert any(has_cjk(t) for t in terms), f"{m.id}: no Chinese cue"
            assert any(re.search(r"[a-z]{3}", t) and not has_cjk(t) for t in terms), f"{m.id}: no English cue"


def test_every_source_is_a_seed_line_or_a_file_at_the_pin(rubric: Rubric, vllm_paths: set[str]) -> None:
    for entries in rubric.misconception_catalogue.values():
        for m in entries:
            quote = m.seed_quote
            if quote is None:
                assert PATH_SOURCE.match(m.source)
                assert m.source in vllm_paths, f"{m.id}: {m.source} is not in knowledge/vllm_paths.txt"
            else:
                seed = m.source.split()[1].rstrip(":")
                assert any(quote in line for line in SEED_LINES[seed]), (
                    f"{m.id}: not a seed {seed} line: {quote!r}"
                )


def test_a_cue_that_spells_a_negator_has_no_gap_to_hide_another(rubric: Rubric) -> None:
    """Text a negation-worded cue matched is not searched for negators, so such a cue must not span one."""
    markers = rubric.misconception_markers
    assert markers is not None
    for entries in rubric.misconception_catalogue.values():
        for m in entries:
            for t in (t for g in m.recognise.groups for t in g):
                if spells_negator(Term(t), markers.negation):
                    assert not _GAP.search(t), f"{m.id}: {t}"


def test_the_rubric_version_covers_the_catalogue(tmp_path: Path) -> None:
    root = tmp_path / "rubrics"
    shutil.copytree(repo_root() / "rubrics", root)
    before = load_rubric(root).version
    p = root / "misconceptions" / "concepts.yaml"
    p.write_text(p.read_text(encoding="utf-8").replace("severity: 2", "severity: 1", 1), encoding="utf-8")
    assert load_rubric(root).version != before


def _broken(tmp_path: Path, round_id: str, edit: dict[str, object], index: int = 2) -> Path:
    root = tmp_path / "rubrics"
    shutil.copytree(repo_root() / "rubrics", root)
    p = root / "misconceptions" / f"{round_id}.yaml"
    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    data["misconceptions"][index].update(edit)
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return root


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ({"severity": 7}, "severity"),
        ({"source": "somewhere in the docs"}, "source"),
        ({"claim": {"zh": "只有中文"}}, "claim.en"),
        ({"unless": []}, "unless"),
        ({"recognise": {"groups": [["/(unclosed/"]]}}, "not a valid regex"),
        ({"examples": {"asserts": ["only English", "twice"], "denies": ["不是", "no"]}}, "asserts"),
    ],
)
def test_bad_data_names_the_file_and_the_entry(tmp_path: Path, edit: dict[str, object], says: str) -> None:
    root = _broken(tmp_path, "incident", edit)
    entry_id = yaml.safe_load((root / "misconceptions" / "incident.yaml").read_text(encoding="utf-8"))[
        "misconceptions"
    ][2]["id"]
    with pytest.raises(RubricError) as e:
        load_rubric(root)
    msg = str(e.value)
    assert "incident.yaml" in msg and f"misconceptions[2] (id {entry_id!r})" in msg and says in msg, msg


def test_a_duplicate_id_is_named(tmp_path: Path) -> None:
    root = tmp_path / "rubrics"
    shutil.copytree(repo_root() / "rubrics", root)
    p = root / "misconceptions" / "capacity.yaml"
    data = yaml.safe_load(p.read_text(encoding="utf-8"))
    data["misconceptions"][1]["id"] = data["misconceptions"][0]["id"]
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(RubricError, match=r"capacity\.yaml.*duplicate misconception ids"):
        load_rubric(root)


def test_a_missing_round_file_is_named(tmp_path: Path) -> None:
    root = tmp_path / "rubrics"
    shutil.copytree(repo_root() / "rubrics", root)
    (root / "misconceptions" / "system-design.yaml").unlink()
    with pytest.raises(RubricError, match=r"system-design\.yaml: file is missing"):
        load_rubric(root)
