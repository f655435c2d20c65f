"""Answers to the self-check round (rubrics/rounds/self-check.yaml), written for the tests: the round has no
blind graded answers in eval/graded/ yet. A good answer and a thin one to each of the seed's four
self-check questions, in English and in Chinese (and a medium one between them); the graph, package and
judge tests use them."""

from __future__ import annotations

from agent.judge.answer import Answer
from agent.rubric import Lang, Rubric, default_rubric

GOOD_EN: tuple[str, ...] = (
    (
        "A right answer only gets you to a 3 or a 4; a 5 also needs the boundaries, a verification path and a rollback.\n"
        "First, boundaries: say when the mechanism or design stops holding and what it costs, for example the tail block and the block-table metadata of paged KV.\n"
        "Second, alternatives with rejection criteria: name the other option and which evidence would make me not do it or switch.\n"
        "Third, a verification path: how I would check the claim in the pinned source, say vllm/v1/core/kv_cache_manager.py, num_gpu_blocks in the startup log, the config or /metrics, and if I don't know, how I would find out.\n"
        "Fourth, every number labelled as given, derived, observed or estimated, and never an estimate presented as measured.\n"
        "Fifth, a rollback: the immutable image or config I roll back to, the trigger, and how I confirm recovery.\n"
        "And I recite no performance number or default that the current environment has not verified; uncertain details are marked to be verified."
    ),
    (
        "The model, the workload and the hardware; I would ask these before giving any GPU count and rank the assumptions.\n"
        "The model: its architecture, parameter count and dtype decide the weights and the KV per token, so whether it fits on one GPU and which TP.\n"
        "The workload: the joint input and output length distribution and the arrival bursts decide each request's KV and the per-replica throughput within the SLO.\n"
        "The hardware: the GPU type, its memory and the interconnect decide what fits per GPU and how TP is cut.\n"
        "The count is ceil(peak / (μ_good × ρ)) plus a node-failure spare and rollout headroom: with the given 120 req/s and an observed μ_good of 3 req/s at ρ = 0.75 that is a derived 54 GPUs before spares, and μ_good only comes from a benchmark of that model on that hardware under that length mix.\n"
        "For example, if outputs are twice as long, μ_good roughly halves and the GPU count doubles, so a count made without these answers is invalid."
    ),
    (
        "Because retries are duplicate work: slower requests time out, clients retry, and the extra load makes everything slower still, a retry storm.\n"
        "If we scale out first, the new capacity is eaten by the duplicate work, it takes minutes of cold start and costs money, and it may not help at all.\n"
        "Scaling also hides the cause, such as the canary's backend fallback, so we contain and gather evidence first.\n"
        "I would separate original load from retry load by request attempts to know the real demand, and watch TPOT p99 and the waiting queue on /metrics.\n"
        "To limit retries: a retry budget at the gateway, backoff with jitter, admission control, shedding low-priority traffic and pausing the rollout.\n"
        "Then I watch whether the queue converges; only if the original load still exceeds capacity do I scale out."
    ),
    (
        "I say plainly which data was not collected, for example we never measured TPOT p99 before the change, and that this limits the conclusion to what I can show.\n"
        "I give the artifacts that do exist: the load-test report, the config diff that set max_num_seqs to 128, the change record, the alerts and the postmortem timeline, redacted if needed.\n"
        "When only qualitative, I say the OOM has not recurred in the six weeks since the change.\n"
        "I would not invent a percentage; I would rather show the evidence gap.\n"
        "If I give a number, I label it an estimate and say how it was derived, never as measured.\n"
        "Now I would measure it with a replay under fixed conditions against a baseline and add the monitoring, so the next answer can be checked.\n"
        "The answer is still valuable: the problem, my role, the decision and its tradeoffs, how we validated and rolled back, and what I learnt."
    ),
)
THIN_EN: tuple[str, ...] = (
    "A 5 just needs a correct and complete answer, explained clearly.",
    "You need the peak QPS; just divide 120 by a typical throughput to get the GPU count.",
    "Retries make it slower, so I would add more GPUs first and then look at the retries.",
    "Without a dashboard I would give a rough number, like 30 percent better, based on what I remember.",
)
GOOD_ZH: tuple[str, ...] = (
    (
        "答对只能拿 3 到 4 分，5 分还要讲出边界、验证路径和回滚。\n"
        "第一是边界：说清机制或方案在什么条件下失效、有什么代价，比如 paged KV 的尾块和 block table 开销。\n"
        "第二是备选和 rejection criteria：还有哪个方案，什么证据出现时我不做或改用它。\n"
        "第三是验证路径：怎样在 pin 的源码（比如 vllm/v1/core/kv_cache_manager.py）、startup log 里的 num_gpu_blocks、config 或 /metrics 里核准；不知道就说怎么求证。\n"
        "第四是每个数字都标注题设、推导、观测或估计，不把估计说成实测。\n"
        "第五是回滚：回滚到哪个不可变的 image 或 config、什么条件触发、回滚后怎样确认恢复。\n"
        "另外不背诵未经当前环境验证的性能数字或默认值，不确定的实现细节标“需核准”。"
    ),
    (
        "是模型、负载形态和硬件这三项；我会先问清楚再给 GPU 数，并给假设排序。\n"
        "模型：架构、参数量和 dtype 决定权重和每 token 的 KV，也就决定单卡放不放得下、TP 怎么切。\n"
        "负载：input / output 长度的联合分布和到达突发决定每个请求的 KV 和满足 SLO 的单副本吞吐。\n"
        "硬件：GPU 型号、显存和互联决定每卡放下多少、TP 怎么切。\n"
        "卡数 = ceil(峰值 / (μ_good × ρ)) + 节点故障冗余 + 发布余量：题设峰值 120 req/s，观测 μ_good 为 3 req/s、ρ = 0.75 时，推导出冗余之前要 54 张卡；而 μ_good 只能在这个模型、这套硬件、这个长度分布下压测得到。\n"
        "比如输出长度翻倍，μ_good 大约减半，卡数就翻倍，所以没问清这三项算出的卡数是无效的。"
    ),
    (
        "因为 retry 是重复工作：请求变慢就超时，客户端重试，负载更高，于是更慢，形成 retry 风暴。\n"
        "如果先扩容，新加的容量会被重复请求吃掉，冷启动还要几分钟、要花钱，不一定有用。\n"
        "扩容还会掩盖原因，比如 canary 的 backend fallback，所以先止损、取证。\n"
        "我会用 request attempts 区分原始负载和 retry 负载，知道真实需求，同时在 /metrics 上看 TPOT p99 和 waiting 队列。\n"
        "限制 retry 的办法：gateway 上的 retry budget、带 jitter 的退避、admission 准入、shed 低优先级流量、暂停 rollout。\n"
        "然后看队列是否收敛；如果原始负载仍然超过容量，才扩容。"
    ),
    (
        "我会明确说哪些数据未采集，比如改动前没有测 TPOT p99，这限制了结论只能到我能拿出的证据为止。\n"
        "我会拿出手上现有的 artifact：压测报告、把 max_num_seqs 改成 128 的 config diff、变更记录、告警和复盘时间线，可以脱敏。\n"
        "只能定性时，我会说改动之后六周内 OOM 没有再出现。\n"
        "我不会杜撰百分比，宁可暴露证据缺口。\n"
        "如果要给数字，就标成估算并说明怎么推出来的，不说成实测。\n"
        "现在我会在固定条件下回放压测、补上基线和监控，下次的回答就能核验。\n"
        "这样的回答仍然有价值：讲清问题、我的职责、做出的决策与取舍、怎样验证和回滚，以及学到了什么。"
    ),
)
THIN_ZH: tuple[str, ...] = (
    "5 分就是答对，讲清楚就行。",
    "要知道峰值 QPS，直接用 120 除以经验值就得到卡数。",
    "重试会让它变慢，所以我会先加卡，再去看重试。",
    "没有 dashboard 的话，我就按印象说一个大概的数字，比如提升了 30%。",
)

#: right in outline, thin on evidence: no labelled numbers, no artefacts named beyond logs, no plan to measure
MEDIUM_EN: tuple[str, ...] = (
    "More than a right answer: you should cover edge cases, when it fails, and how you would verify it, plus a rollback.",
    "You need the model size, what the traffic looks like, and which GPU you have. Without those the number of GPUs "
    "is a guess.",
    "Retries add load on top of the real traffic, so if you scale first the new GPUs just serve duplicate requests. "
    "Limit the retries first and then see if you still need capacity.",
    "Say honestly we didn't measure it, and show what we have, like the logs and the load test report. "
    "Don't make up a number.",
)
MEDIUM_ZH: tuple[str, ...] = (
    "不只是答对，还要讲失败的边界、怎么验证，以及回滚。",
    "要先知道模型多大、流量长什么样、用什么 GPU，不然卡数就是猜的。",
    "重试会在真实流量上再叠加负载，先扩容的话新卡只是在处理重复请求。先限制重试，再看是否还需要扩容。",
    "诚实地说当时没测，拿出手上的日志和压测报告，不要编数字。",
)


def answers(lang: Lang, good: bool = True) -> tuple[str, ...]:
    """The four answers, in the order the round asks its questions."""
    if lang == "zh":
        return GOOD_ZH if good else THIN_ZH
    return GOOD_EN if good else THIN_EN


def questions(lang: Lang, rubric: Rubric | None = None) -> list[str]:
    """The round's four questions as it asks them: its prompt, then its questions."""
    rnd = (rubric or default_rubric()).round("self-check")
    return [rnd.prompt.get(lang), *(q.text.get(lang) for q in rnd.questions)]


def answer(lang: Lang, good: bool = True, rubric: Rubric | None = None) -> Answer:
    """The round's answer as the judge reads it: each answer with the question it replies to."""
    return Answer.of_pairs(list(zip(questions(lang, rubric), answers(lang, good), strict=True)))
