"""The rubric content (rubrics/*.yaml): it loads, it is complete in both languages, and its cue
terms do what the embedded judge needs — a short strong answer covers most expected evidence,
while a list of buzzwords covers little of it.

The matcher here is deliberately small and a little stricter than the product's
(agent/judge/matching.py): it splits sentences on every . ! ? 。 ！ ？ ; ； and newline (so
decimals and file paths are cut too), looks at windows of one or two consecutive sentences,
and counts the cue groups with a matching term. Cues that pass here pass there.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from agent.rubric import DIMENSIONS, ROUND_IDS, load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import Cues, Text

# --------------------------------------------------------------------------------------------
# the matcher rule
# --------------------------------------------------------------------------------------------

_SPLIT = re.compile(r"(?<=[.!?。！？;；\n])")


def split_sentences(text: str) -> list[str]:
    return [s.strip().lower() for s in _SPLIT.split(text) if s.strip()]


@cache
def _term(raw: str) -> re.Pattern[str] | str:
    if len(raw) > 2 and raw.startswith("/") and raw.endswith("/"):
        return re.compile(raw[1:-1], re.IGNORECASE)
    return raw.lower()


def _hit(raw: str, sentence: str) -> bool:
    t = _term(raw)
    return t.search(sentence) is not None if isinstance(t, re.Pattern) else t in sentence


def covered(cues: Cues, text: str, window: int = 2) -> bool:
    """True when some window of at most `window` consecutive sentences matches `need` groups."""
    sents = split_sentences(text)
    per = [[any(_hit(t, s) for t in g) for g in cues.groups] for s in sents]
    for i in range(len(sents)):
        for w in range(1, window + 1):
            if i + w > len(sents):
                break
            n = sum(1 for k in range(len(cues.groups)) if any(per[m][k] for m in range(i, i + w)))
            if n >= cues.required:
                return True
    return False


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


def _coverage(rubric: Rubric, round_id: str, answer: str) -> tuple[float, list[str]]:
    items = rubric.evidence(round_id)
    missing = [e.id for e in items if not covered(e.cues, answer)]
    return 1 - len(missing) / len(items), missing


# --------------------------------------------------------------------------------------------
# answers
# --------------------------------------------------------------------------------------------

STRONG_EN: dict[str, str] = {
    "concepts": """
Let me define each one first, then relate them.
Paged KV cache solves memory fragmentation and over-reservation: logical tokens map to non-contiguous physical
blocks that are allocated on demand. It still has a cost: the partially filled tail block and the block table metadata.
Continuous batching solves idle slots caused by different output lengths: the scheduler reschedules at every step, so
requests join and leave at step boundaries. It is bounded by both the token budget (max_num_batched_tokens) and free KV capacity.
Prefix caching solves recomputing the prefill of a shared prefix: it hashes each full block, chained with the parent
block's hash, and reuses the computed KV. The hash also takes extra keys such as the LoRA id, multimodal hashes and the
cache salt, so different tenants or adapters stay separate.
How they relate: the scheduler uses the KV cache manager to allocate blocks from the block pool, and the prefix cache is
just reuse state on those blocks.
The correctness boundary: a different tokenizer, chat template or LoRA identity must not reuse the blocks.
A smaller block size is not always better: it wastes less in the tail block but adds block table and hashing overhead.
A high prefix hit rate may not lower TTFT when queueing dominates or the uncached suffix still needs prefill.
Continuous batching does not necessarily mix prefill and decode in the same step; it depends on chunked prefill and the scheduler policy.
I would not quote a fixed fragmentation percentage: it depends on the workload and version, so I would measure it.
If wrong reuse shows up after a template change, that is the failure boundary; I would roll back by turning prefix caching off in the config and verify by diffing outputs.
To verify these details I would read the scheduler in vllm/v1/core/sched/scheduler.py, then vllm/v1/core/kv_cache_manager.py, block_pool.py and kv_cache_utils.py.
""",
    "source-trace": """
The chain is: OpenAI frontend → EngineCore request → scheduler → GPU model runner → sampler → engine update → stream.
The frontend in vllm/entrypoints/openai/ validates the request, renders the chat template and tokenizes.
The generation config defaults and the tokenizer can change the effective sampling params, so they are part of the request's semantics.
It becomes a Request in vllm/v1/request.py that carries its status and tokens.
EngineCore in vllm/v1/engine/core.py runs the busy loop that calls the scheduler each step.
The scheduler in vllm/v1/core/sched/scheduler.py produces this step's SchedulerOutput with token counts and block ids per request.
The SchedulerOutput is passed to gpu_model_runner, which updates the persistent batch, prepares inputs and runs the forward pass.
The sampler in vllm/v1/sample/sampler.py processes the logits in a fixed order.
The raw logprobs are taken first when the logprobs mode is raw, before any processing.
The logits are then cast to FP32.
Allowed and bad words, logits processors and penalties are applied next, before temperature.
After temperature come min-p and top-k/top-p, then sampling, and finally we gather the logprobs of the sampled token and the top-5.
The seed only controls the per-request generator.
It does not promise bitwise determinism across backends, batch shapes or hardware.
Even with logprobs=5, top-N logprobs may still need a full-vocab log-softmax.
The response payload is a separate cost, because five candidates per token must be serialized.
Raw logprobs differ from processed logprobs, and both differ from what the API serializes.
With logprobs=-1 the whole vocab would be returned, so the payload and serialization size explode.
A per-request generator can make the top-k/top-p sampler fall back from the FlashInfer kernel to the PyTorch path.
That detail drifts between versions, so I would not assume it from experience.
I would check the startup log and read the sampler source at the pinned commit to confirm which backend runs.
The engine update sets the finish reason, the output processor detokenizes, and the delta is streamed back as SSE chunks.
If the client disconnects, the frontend sends an abort and the scheduler finishes the request and frees its blocks.
To prove the KV was freed I would check that the KV cache usage metric and the running count drop back.
With structured output, the grammar bitmask from vllm/v1/structured_output/ is applied to the logits in the runner before sampling.
The failure boundary is that fallback: if the fast kernel is unavailable, latency rises; I would roll back the image if the canary TPOT exceeds its gate.
""",
    "capacity": """
First, assumptions: BF16 is 2 bytes, GiB means 2^30 bytes, and I will label each number as given or derived.
Are any weights replicated on every rank, what is the block size, and is there quantization padding?
If not given, I assume an even split and no padding.
Weights: 40e9 params × 2 B = 80e9 B, derived as about 74.5 GiB.
Split evenly over TP=4 that is about 18.6 GiB per rank.
The KV budget per rank is 80 − 18.6 − 12 − 8 ≈ 41.4 GiB available, derived from the given numbers.
KV bytes per token count K and V and use the KV heads: 2 × 60 × 8 × 128 × 2 B = 245,760 B per token.
A p95 request is 3,000 + 1,000 = 4,000 tokens, so 4,000 × 245,760 B ≈ 983,040,000 B ≈ 0.916 GiB.
Assuming the 8 KV heads shard evenly, each rank holds 2 KV heads, so per rank it is 0.916 / 4 ≈ 0.229 GiB.
That gives 41.4 / 0.229 ≈ 180 requests as a KV-only upper bound.
So there are three layers: the theoretical upper bound, what startup profiling can actually allocate, and the concurrency that meets the SLO.
But 180 is not a production concurrency and I would not commit to it.
The setup ignores replicated weights, padding and page granularity, which add overhead.
It also ignores the activation peak at max batch and the output length tail.
Real concurrency is limited by the scheduler token budget and the SLO.
Next I would check num_gpu_blocks in the startup log to confirm the allocatable KV.
Then I would run a stepped load test to find μ_good under the SLO.
If H_kv were 2 with TP=4, the KV heads cannot be split evenly and would be replicated.
With FP8 KV the bytes per token halve, so theoretical capacity roughly doubles.
FP8 needs a quality eval gate before it ships, and a rollback to BF16 if quality drops.
The p95 size does not protect against p99 or max requests: the tail can still cause OOM or preemption, so I would bound max_model_len and admission.
I would add N+1 spare capacity and a rollout reserve.
Sanity check: doubling the context length doubles the KV per request, and the units cancel from bytes to GiB.
""",
    "system-design": """
Before sizing anything I'd ask a few questions first, ranked by what would invalidate the GPU count.
What is the model architecture, parameter count, dtype and quality gate?
What are the LoRA rank, size and working set?
What is the joint input and output length distribution, and how many turns?
Are the tool schemas reused across requests as a shared prefix?
What do arrival bursts look like, and how do clients cancel and retry?
Which GPU type and topology, and what budget?
Which regions, where are artifacts stored, how long is a cold start, and when is the change window?
How do tenant auth and quota work, who can update adapters and tool schemas, and what are the retention and audit rules?
Can the structured output backend, reasoning parser or prefix policy change?
Minimal design: each model version gets its own separate deployment.
The 14B model fits on one GPU, so I use TP=1 with replica data parallelism instead of a big TP.
The gateway handles auth, token limits and schema limits per tenant.
The router treats model and LoRA as a hard constraint, and load, prefix hits and active adapters only as a bounded soft score.
For capacity I compute weights and KV from the real model config: 196,608 bytes of KV per token.
I get μ_good from a benchmark of one replica under the SLO.
Replicas = ceil(120 / (μ_good × ρ)) GPUs, then I add N+1 for a node failure and extra rollout headroom.
Tenant quotas stop one tenant from starving the others.
A cache salt per tenant keeps prefix caches isolated so nothing leaks across tenants.
Tool execution is authorized by the platform separately, never by the model's output.
LoRA adapters are static and versioned in a registry; a request cannot pass an arbitrary path.
For structured output, the auto backend may switch after an upgrade, so I pin the backend explicitly per version.
I limit schema complexity and compile time and cache compiled grammars.
After structured output I still run semantic validation of the tool-call arguments.
Failure domains are node, router, artifact store, adapter and retries; if a node fails we drain it and the remaining replicas still meet the SLO.
When one rank fails we drain the whole TP group.
Retries have a budget with jitter, and admission control sheds load before the queue collapses.
I monitor TTFT and TPOT histograms per model and adapter.
I track queue length, KV usage and preemption metrics.
I alert on the grammar error rate, adapter state and the tool-call validation rate.
Every release uses an immutable compatibility matrix of image, model, adapter and backend.
Rollout goes shadow, then canary, then expand, each stage behind a gate.
Then I drain the old version but keep it warm for rollback.
Prefix caches are not reused across incompatible versions.
The quality gate: a new model or LoRA must pass the eval set and the tool-call validity threshold before it gets traffic.
Hard rejection criteria: a quality drop, an SLO breach, a security finding or losing N+1 means we stop the rollout.
Alternative: a separate pool for long-context requests.
Pipeline parallelism or cross-node only if the model does not fit on one node.
P/D disaggregation only when transfer and queue evidence proves a benefit.
Cost is tracked per million good output tokens, including the warm reserve and rollout overlap.
For a hot LoRA taking 70% of traffic, I give it a bounded set of dedicated replicas and cap its soft affinity so other adapters keep active slots.
To detect a backend switch from xgrammar to guidance, I read the startup log and compare grammar errors in the canary.
If 20k requests hurt short requests' TPOT, I first tune chunked prefill and max_num_batched_tokens.
The data plane is gateway, router and engines; the control plane holds the registry, rollout and quotas.
Until the benchmark runs, every number is labelled: the 120 req/s is given, μ_good will be measured, and the 196,608 bytes per token is derived.
""",
    "incident": """
First I declare an incident, name an owner for comms and a channel, and freeze all other changes.
I confirm the metric definition and which tenants and models are affected since 10:12.
The 55 ms and 180 ms are given; anything I estimate, I will label as estimated.
I pause the rollout immediately.
I limit the retry budget and turn on admission control so retries do not amplify the load.
If the canary correlates with the change and the rollback is safe because the old image is compatible with the current config, I stop new traffic to the canary and drain it.
I would not kill in-flight streaming requests.
From minute 5 to 15 I gather evidence read-only, before any other change.
I compare canary and old pods on image SHA, model and config.
I compare the sampling backend and the fallback log lines on both.
I also compare batch size, output length, KV usage, preemption, CUDA graphs and NCCL collectives between canary and old.
The old pods slowing down is likely retry and reroute amplification of shared load, not proof that the old version has the same bug.
I use the request attempt count to separate original load from retry load.
After the rollback and retry shedding I watch whether the queue converges and TPOT and goodput recover, one variable at a time.
I reproduce the backend fallback in an isolated staging environment to find its trigger, such as seed or logprobs mode.
I will not force an unknown backend on the whole pool in production.
Every mutation needs an approval, a scope, an expected effect, a verification and a rollback.
I confirm recovery on SLO, errors, queue, quality and retries, and close the incident only after a stable 30-minute observation window.
I keep the timeline, commands, dashboards and raw logs.
In the postmortem the root fix adds a compatibility matrix and a canary gate to the runbook.
If the rollback fails and TPOT does not drop, the canary was not the only cause, so I check the retry ratio and output length and move to the next hypothesis.
Without a metric inventory I curl /metrics on that version and check metric names, labels and histogram buckets before writing PromQL.
If the queue still grows after that, I shed low-priority traffic.
To prove there is no leak, I compare running and waiting counts and KV usage against the baseline.
""",
    "project-experience": """
My project: I ran the inference service for a Qwen2.5-14B model on 8 A100 80GB GPUs and owned the vLLM deployment and load testing.
I owned the deployment config, the benchmark and the capacity decisions; the platform team owned the gateway and another team did model conversion, so those were not mine.
I can show the redacted config and the load-test report I wrote, linked to my PRs.
The request path: gateway → queue → tokenization → continuous batching → prefill → decode → streaming.
The OpenAI API and our max_model_len of 16k limited the design, so we rejected longer contexts at the gateway.
We compared TGI and TensorRT-LLM as alternatives; we dropped TensorRT-LLM because the engine build per model version cost too much maintenance.
The tradeoff was slightly lower peak throughput versus much lower development cost.
Raising max_num_seqs increased concurrency but at the cost of TPOT, so we kept it lower.
TTFT is defined from request receipt to the first streamed token, and TPOT as the mean inter-token time per request.
The baseline was measured under the same fixed model, hardware, length distribution and concurrency.
We used the vllm bench script with a 5-minute warm-up and a 20-minute sampling window, and recorded the image SHA.
Results come from the recorded report: throughput went from 410 to 520 output tokens/s in that report.
I label the 410 and 520 as observed numbers from that report.
Quality on our eval set was unchanged, but p99 TTFT got worse under bursts.
GPU memory per request was not collected, so I can only say memory was not the limit.
One failure: we could reproduce OOM by replaying a load sample with many 16k inputs, and the logs showed preemption before the error.
We confirmed the root cause with a fixed-sample regression after lowering gpu_memory_utilization.
To protect tail latency we added a separate pool for long requests and admission limits.
In production we ran 6 replicas at about 60% of the observed peak concurrency on the dashboard.
Health checks used /health, plus alerts on queue length, TTFT, TPOT and error rate.
Every model or scheduler parameter change went through a canary with warm-up, and we kept the records.
Rollback records exist for two model versions and one routing change.
For the scale-out record, the replica count was a capacity estimate, not a measurement.
For ten times the traffic I would recompute capacity as ceil(10 × peak / (μ_good × ρ)) replicas.
With half the latency budget I would split pools and consider a smaller model tier, at the cost of quality risk.
I would stop the change and roll back to the previous version if quality drops more than one point on the eval.
The failure boundary is long-context bursts beyond 16k, when OOM comes back.
We ruled out the tokenizer as the cause because the profile showed it was a small share of the time.
If I did it again I would add per-request KV instrumentation first.
""",
    "self-check": """

A right answer only gets you to a 3 or a 4; a 5 also needs the boundaries, a verification path and a rollback.
First, boundaries: say when the mechanism or design stops holding and what it costs, for example the tail block and the block-table metadata of paged KV.
Second, alternatives with rejection criteria: name the other option and which evidence would make me not do it or switch.
Third, a verification path: how I would check the claim in the pinned source, say vllm/v1/core/kv_cache_manager.py, num_gpu_blocks in the startup log, the config or /metrics, and if I don't know, how I would find out.
Fourth, every number labelled as given, derived, observed or estimated, and never an estimate presented as measured.
Fifth, a rollback: the immutable image or config I roll back to, the trigger, and how I confirm recovery.
And I recite no performance number or default that the current environment has not verified; uncertain details are marked to be verified.
The model, the workload and the hardware; I would ask these before giving any GPU count and rank the assumptions.
The model: its architecture, parameter count and dtype decide the weights and the KV per token, so whether it fits on one GPU and which TP.
The workload: the joint input and output length distribution and the arrival bursts decide each request's KV and the per-replica throughput within the SLO.
The hardware: the GPU type, its memory and the interconnect decide what fits per GPU and how TP is cut.
The count is ceil(peak / (μ_good × ρ)) plus a node-failure spare and rollout headroom: with the given 120 req/s and an observed μ_good of 3 req/s at ρ = 0.75 that is a derived 54 GPUs before spares, and μ_good only comes from a benchmark of that model on that hardware under that length mix.
For example, if outputs are twice as long, μ_good roughly halves and the GPU count doubles, so a count made without these answers is invalid.
Because retries are duplicate work: slower requests time out, clients retry, and the extra load makes everything slower still, a retry storm.
If we scale out first, the new capacity is eaten by the duplicate work, it takes minutes of cold start and costs money, and it may not help at all.
Scaling also hides the cause, such as the canary's backend fallback, so we contain and gather evidence first.
I would separate original load from retry load by request attempts to know the real demand, and watch TPOT p99 and the waiting queue on /metrics.
To limit retries: a retry budget at the gateway, backoff with jitter, admission control, shedding low-priority traffic and pausing the rollout.
Then I watch whether the queue converges; only if the original load still exceeds capacity do I scale out.
I say plainly which data was not collected, for example we never measured TPOT p99 before the change, and that this limits the conclusion to what I can show.
I give the artifacts that do exist: the load-test report, the config diff that set max_num_seqs to 128, the change record, the alerts and the postmortem timeline, redacted if needed.
When only qualitative, I say the OOM has not recurred in the six weeks since the change.
I would not invent a percentage; I would rather show the evidence gap.
If I give a number, I label it an estimate and say how it was derived, never as measured.
Now I would measure it with a replay under fixed conditions against a baseline and add the monitoring, so the next answer can be checked.
The answer is still valuable: the problem, my role, the decision and its tradeoffs, how we validated and rolled back, and what I learnt.

""",
}

STRONG_ZH: dict[str, str] = {
    "concepts": """
我先分别定义三者，再讲它们的关系。
Paged KV cache 解决 KV 显存碎片和按最大长度预留造成的浪费：逻辑 token 映射到非连续的物理 block，按需分配。
代价是仍有尾块浪费和 block table 元数据开销。
Continuous batching 解决长度不同导致的空转：scheduler 在每一步的 step 边界重调度，请求随时加入或退出。
它同时受 token budget（max_num_batched_tokens）和 KV 容量约束。
Prefix caching 解决共享前缀的重复 prefill 计算：按完整 block 做链式 hash，复用已经算好的 KV。
hash 里的 extra keys 包含 LoRA、多模态输入和 cache salt，所以不同租户会被隔离。
三者的关系：scheduler 调用 KV cache manager 从 block pool 分配 block，prefix cache 只是这些 block 上的复用状态。
正确性边界：tokenizer、chat template 或 LoRA identity 不一致时不能复用。
block size 不是越小越好：越小尾块浪费越少，但 block table 和 hash 开销更大。
命中率高 TTFT 也可能不降，因为排队等待占主导，或者未命中的后缀仍要 prefill。
Continuous batching 不一定让 prefill 和 decode 同一步混跑，取决于 chunked prefill 和调度策略。
我不会背固定的碎片百分比，这取决于 workload 和版本，需要实测。
如果模板变更后出现错误复用，这就是 failure boundary，我会在配置里关闭 prefix caching 回滚，并对比输出验证。
要核准这些细节，我会读 vllm/v1/core/sched/scheduler.py 的调度器源码，再读 vllm/v1/core/kv_cache_manager.py、block_pool.py 和 kv_cache_utils.py。
""",
    "capacity": """
先列假设：BF16 每个参数 2 字节，GiB 按二进制 2^30 字节，每个数字我会标注题设还是推导。
请问是否有 replicated 权重？block size 和量化 padding 是否给定？
没有的话我假设均匀分片、忽略 padding。
权重：40e9 × 2 B = 80e9 B，推导约74.5 GiB。
TP=4 均匀切分，每 rank 约18.6 GiB。
每 rank KV 预算 = 80 − 18.6 − 12 − 8 ≈ 41.4 GiB 可用（推导）。
每 token KV 用 K 和 V 以及 KV heads：2 × 60 × 8 × 128 × 2 B = 245,760 B / token。
p95 请求 3,000 + 1,000 = 4,000 tokens，约 983,040,000 B ≈ 0.916 GiB。
假设 8 个 KV heads 在 TP=4 上均匀分片，每 rank 2 个 KV heads，每 rank 约 0.229 GiB。
41.4 / 0.229 ≈ 180 个请求，只是 KV-only 理论上界。
180 不是生产并发，不能承诺。
题设忽略了 replicated 权重、padding 和 page 粒度这些额外开销。
也忽略了 max batch 下的激活峰值和输出长度长尾。
实际并发还受调度 token 预算和 SLO 约束。
下一步先看启动日志里的 num_gpu_blocks，核对可分配的 KV。
再做阶梯压测，得到满足 SLO 的 μ_good。
如果 H_kv=2 < TP=4，KV heads 不能均分，只能复制。
KV 改 FP8 后每 token 字节减半，理论容量约翻倍。
但 FP8 必须先过质量评测门禁，不达标就回滚到 BF16。
p95 不能保护 p99 或 max 请求，长请求叠加超过预算时仍会 OOM 或抢占，所以要限制 max_model_len 和准入。
容量里还要加 N+1 冗余和滚动发布预留。
最后验算：context 长度翻倍，每请求 KV 也翻倍，单位从字节到 GiB 全程闭合。
""",
    "incident": """
先宣布 incident，指定沟通 owner 和 channel，冻结其他所有变更。
确认 TPOT 指标口径，以及 10:12 以来影响了哪些租户和模型。
55 ms 与 180 ms 是题设，我估计的数字都会标注为估计。
立即暂停 rollout。
限制 retry budget 并启用 admission，防止重试放大负载。
如果 canary 与变更高度相关、且 rollback safe（旧 image 与当前 config 兼容），就停止新流量并 drain canary。
不直接 kill 进行中的 streaming 请求。
5 到 15 分钟只读取证，先不做其他变更。
对比 canary 与旧 Pod 的 image SHA、model 和 config。
对比两边的 sampling backend 和 fallback 日志。
再对比 batch、输出长度、KV、preemption、graph / compile 和 NCCL collective。
旧 Pod 变慢更可能是 retry 和 reroute 放大了共享负载，而不是证明旧版本也有同一个 bug。
用 request attempts 区分 original load 与 retry load。
回滚并 shed retry 之后，观察队列是否收敛、TPOT 与 goodput 是否恢复，一次只变一个变量。
在隔离的 staging 环境复现 backend fallback，核准触发条件，比如 seed、logprobs mode。
不在生产强制切换未知 backend。
每个 mutation 都要有审批、范围、预期、验证与 rollback。
确认 SLO、错误、队列、质量和重试都恢复，并在持续 30 分钟的观察窗口稳定后才结束 incident。
保存 timeline、执行过的命令、dashboard 截图和原始日志。
复盘时根修增加兼容矩阵和 canary gate，并写进 runbook。
如果回滚失败、TPOT 仍不降，说明 canary 不是唯一原因，继续检查重试比例、输出长度和共享依赖，换下一个假设。
没有 metric inventory 时，先 curl 该版本的 /metrics，核对指标名、label 和 histogram bucket，再写 PromQL。
如果队列仍在增长，就直接 shed 低优先级流量。
要证明没有泄漏，对比 running / waiting 数量和 KV 使用率是否回到基线。
""",
    "project-experience": """
我的项目：负责 Qwen2.5-14B 在 8 张 A100 80GB 上的推理服务，我负责 vLLM 部署和压测。
部署配置、压测和容量决策由我负责；网关由平台团队负责，模型转换是另一个团队做的，不是我。
我可以展示我维护的脱敏配置和压测报告，对应我提交的 PR。
请求链路：网关 → 排队 → tokenization → continuous batching → prefill → decode → 流式返回。
OpenAI 接口和 16k 的 max_model_len 限制了设计，所以更长的请求在网关就拒绝。
候选方案比较过 TGI 和 TensorRT-LLM，放弃 TensorRT-LLM 是因为每个模型版本都要重新 build engine，维护成本太高。
取舍是峰值吞吐略低，换来开发成本低很多。
调大 max_num_seqs 能提高并发，但代价是 TPOT 变差，所以保持较低。
TTFT 的口径是从收到请求到第一个流式 token，TPOT 是每个请求的平均 token 间隔。
基线在相同的固定模型、硬件、长度分布和并发条件下测得。
压测用 vllm bench 脚本，预热 5 分钟，采样窗口 20 分钟，并记录 image SHA。
结果只来自记录下来的报告：报告里输出吞吐从 410 到 520 tokens/s。
410 和 520 我标注为观测值，来自那份报告。
评测集上质量没有变化，但突发时 p99 TTFT 变差。
每请求显存未采集，所以只能定性地说显存不是瓶颈。
一次失败：回放包含大量 16k 输入的负载样本可以复现 OOM，日志显示报错前先出现抢占。
降低 gpu_memory_utilization 后用固定样本回归验证了根因。
为保护尾延迟，我们给长请求分池并加了准入限制。
生产上 6 个副本，运行在看板上观测到的峰值并发的六成左右。
健康检查用 /health，另外对队列、TTFT、TPOT 和错误率告警。
每次模型或调度参数变更都先灰度并预热，并保留记录。
两个模型版本和一次路由变更都有回滚记录。
那次扩容记录里的副本数是容量估算，不是实测。
如果流量扩大十倍，我会按 ceil(10 × 峰值 / (μ_good × ρ)) 重新计算副本容量。
延迟预算减半时会分池并考虑更小的模型层级，代价是质量风险。
如果评测质量下降超过 1 分，就停止这次变更并回滚到上一版本。
failure boundary 是超过 16k 的长上下文突发，超过时 OOM 会再出现。
我们排除了 tokenizer 这个原因，因为 profile 显示它只占很小一部分时间。
如果重做，我会先补每请求 KV 的埋点监控。
""",
    "self-check": """

答对只能拿 3 到 4 分，5 分还要讲出边界、验证路径和回滚。
第一是边界：说清机制或方案在什么条件下失效、有什么代价，比如 paged KV 的尾块和 block table 开销。
第二是备选和 rejection criteria：还有哪个方案，什么证据出现时我不做或改用它。
第三是验证路径：怎样在 pin 的源码（比如 vllm/v1/core/kv_cache_manager.py）、startup log 里的 num_gpu_blocks、config 或 /metrics 里核准；不知道就说怎么求证。
第四是每个数字都标注题设、推导、观测或估计，不把估计说成实测。
第五是回滚：回滚到哪个不可变的 image 或 config、什么条件触发、回滚后怎样确认恢复。
另外不背诵未经当前环境验证的性能数字或默认值，不确定的实现细节标“需核准”。
是模型、负载形态和硬件这三项；我会先问清楚再给 GPU 数，并给假设排序。
模型：架构、参数量和 dtype 决定权重和每 token 的 KV，也就决定单卡放不放得下、TP 怎么切。
负载：input / output 长度的联合分布和到达突发决定每个请求的 KV 和满足 SLO 的单副本吞吐。
硬件：GPU 型号、显存和互联决定每卡放下多少、TP 怎么切。
卡数 = ceil(峰值 / (μ_good × ρ)) + 节点故障冗余 + 发布余量：题设峰值 120 req/s，观测 μ_good 为 3 req/s、ρ = 0.75 时，推导出冗余之前要 54 张卡；而 μ_good 只能在这个模型、这套硬件、这个长度分布下压测得到。
比如输出长度翻倍，μ_good 大约减半，卡数就翻倍，所以没问清这三项算出的卡数是无效的。
因为 retry 是重复工作：请求变慢就超时，客户端重试，负载更高，于是更慢，形成 retry 风暴。
如果先扩容，新加的容量会被重复请求吃掉，冷启动还要几分钟、要花钱，不一定有用。
扩容还会掩盖原因，比如 canary 的 backend fallback，所以先止损、取证。
我会用 request attempts 区分原始负载和 retry 负载，知道真实需求，同时在 /metrics 上看 TPOT p99 和 waiting 队列。
限制 retry 的办法：gateway 上的 retry budget、带 jitter 的退避、admission 准入、shed 低优先级流量、暂停 rollout。
然后看队列是否收敛；如果原始负载仍然超过容量，才扩容。
我会明确说哪些数据未采集，比如改动前没有测 TPOT p99，这限制了结论只能到我能拿出的证据为止。
我会拿出手上现有的 artifact：压测报告、把 max_num_seqs 改成 128 的 config diff、变更记录、告警和复盘时间线，可以脱敏。
只能定性时，我会说改动之后六周内 OOM 没有再出现。
我不会杜撰百分比，宁可暴露证据缺口。
如果要给数字，就标成估算并说明怎么推出来的，不说成实测。
现在我会在固定条件下回放压测、补上基线和监控，下次的回答就能核验。
这样的回答仍然有价值：讲清问题、我的职责、做出的决策与取舍、怎样验证和回滚，以及学到了什么。

""",
}

# A second, independent wording per round (plainer, the way candidates talk; it answers the main
# prompt only, not the follow-ups), so the cues are not tuned to one phrasing.
PARAPHRASE_EN: dict[str, str] = {
    "concepts": """
Three different problems. With paged KV, the cache is carved into fixed-size pages, and a sequence's pages need not sit next to each other in GPU memory; we grab a new page only when the sequence grows, so we don't reserve max_model_len up front and don't fragment memory. The price is that the last page of each sequence is partly empty and you need a page table per sequence.
Continuous batching is iteration-level scheduling: after every forward step, finished sequences leave and waiting ones join, so short requests don't wait for the longest one in the batch. How many can join is capped by max_num_batched_tokens and by how many free KV pages remain.
Prefix caching: identical prompt prefixes (say a shared system prompt) don't get prefilled again; each full page gets a hash that includes the parent page's hash, and a hit reuses the page. LoRA id and cache_salt go into the hash so tenants don't share.
So: the scheduler decides who runs, it asks the KV cache manager for pages, and the prefix cache is reuse bookkeeping on top of the same pages.
Caveat: if the chat template or tokenizer changes, reusing cached pages would be wrong.
I'm not sure about the current default page size on GPU; I'd check it in the startup log or in vllm/v1/core/kv_cache_utils.py rather than quote a number.
""",
    "source-trace": """
Entry is the OpenAI server under vllm/entrypoints/openai — serving_chat applies the chat template, checks params and tokenizes; note generation_config from the model can silently change the default sampling params.
Then the AsyncLLM client sends an EngineCoreRequest to the engine core process (vllm/v1/engine/core.py) whose loop calls schedule(), execute, update.
The Scheduler (vllm/v1/core/sched/scheduler.py) decides per step how many tokens each request gets and which KV blocks, and emits a SchedulerOutput.
gpu_model_runner.py takes that output, updates its persistent input batch and runs the model forward.
Sampling happens in vllm/v1/sample/sampler.py: it computes the raw logprobs first if requested, converts logits to float32, applies bad words, logits processors and repetition/frequency penalties, then temperature, then min_p, top_k and top_p, samples, and gathers the top-5 logprobs.
The seed just seeds a torch.Generator for that request; you still don't get bitwise identical output across different batch compositions or GPUs.
logprobs=5 still does a log_softmax over the whole vocabulary; -1 would also ship the whole vocabulary in the JSON, which is the expensive part.
With per-request generators the FlashInfer top-p/top-k path may fall back to the torch implementation — I'd confirm in the current sampler code, since this changed between releases.
The output processor detokenizes incrementally, checks stop strings and sets finish_reason, and the chat server streams SSE deltas.
On disconnect, the server aborts the request; the scheduler frees its blocks. I'd verify with the kv cache usage gauge going back down.
For structured output, the grammar bitmask (vllm/v1/structured_output) is applied to the logits before the sampler.
""",
    "capacity": """
Assumptions first (given): 40B params BF16, 60 layers, 8 KV heads, head dim 128, TP=4, 80 GiB GPUs, 12 GiB non-KV, 8 GiB reserve. I'll use GiB = 2^30.
Question: is anything replicated across ranks, e.g. embeddings? And what block size? I'll assume none and ignore block rounding.
Weights = 40e9 × 2 = 80e9 bytes = 74.5 GiB (derived); per rank 74.5/4 = 18.6 GiB.
KV room per rank = 80 - 18.6 - 12 - 8 = 41.4 GiB.
Per token KV = 2 (K,V) × 60 × 8 × 128 × 2 bytes = 245,760 bytes, about 240 KiB.
p95 request = 4000 tokens → 983M bytes ≈ 0.92 GiB total, and with the 8 KV heads split 2 per GPU, ≈ 0.23 GiB per rank.
41.4 / 0.229 ≈ 180 sequences — a theoretical upper bound from KV alone.
That is not a concurrency I'd promise: it ignores block granularity, replicated layers, activation peaks with a big batch, the long tail beyond p95, and the scheduler's token budget and the latency SLO.
What I'd do: start the server and read the number of GPU blocks it actually allocated, then load test at increasing concurrency to find the highest rate that still meets the SLO.
""",
    "system-design": """
I won't size GPUs yet. Questions: which model, how many params, what precision? What GPUs and how many per node? Is there a budget cap? How big are the LoRAs and how many are hot at once? What's the length mix, and do tool schemas repeat across turns? How bursty is traffic and do clients retry?
Plan: one vLLM pool per model version. If the model fits on a single GPU, run TP=1 replicas behind a router. The router must only send a request to replicas that serve its model and adapter; among those it prefers ones with the prefix cached or the adapter already loaded, but not beyond a load limit.
Gateway: per-tenant auth, quotas, max tokens and schema size limits.
Capacity: measure per-replica goodput under the SLO with a benchmark, then replicas = ceil(120 / (goodput × 0.7)), plus a spare node so one node failure still meets SLO, plus surge capacity for rollouts.
Isolation: cache_salt per tenant, adapters loaded only from our registry, tool calls authorized by our tool service, not by the JSON schema.
Structured output: pin the grammar backend per release instead of auto, and validate tool arguments semantically after decoding.
Failure: a node or a GPU in a TP group dies → remove the whole replica from the router; retries capped with a retry budget; 429 when queues are too long.
Metrics: TTFT/TPOT histograms, queue depth, KV usage, preemptions, grammar failures, tool validation failures.
Release: shadow traffic, then 5% canary with gates on SLO and eval quality, then ramp; keep the old version running so rollback is a router switch.
Alternatives: a dedicated long-context pool; PP only if the model doesn't fit one node; prefill/decode disaggregation only if measurements show prefill interference.
Cost: $ per million good output tokens.
""",
    "incident": """
Open an incident channel, assign roles, and announce a change freeze.
Check that the TPOT numbers are real — same metric, same buckets — and who is affected.
Stop the rollout right away and cap client retries / enable load shedding, because retries tripling will slow everyone, including old pods.
The old pods getting slower is most likely the extra retry traffic spilling onto them, not the same bug.
Before changing anything else, compare canary vs old: image digest, config, which sampling backend they use, batch sizes, output lengths, preemptions.
If the canary is clearly the trigger and the old image is compatible, drain the canary — no new requests — and let in-flight streams finish.
Then watch: does the waiting queue shrink and TPOT come back once retries are capped and the canary is out?
Reproduce the fallback in staging with the same seed/logprobs settings; don't flip backends across production blindly.
Declare resolved only after 30 minutes of normal SLO, error rate, queue and retries, and a quality spot check.
Afterwards: keep logs, commands and dashboards, write the postmortem, and add a canary gate that blocks on backend fallback plus a compatibility matrix.
""",
    "project-experience": """
I was responsible for serving Llama-3-8B on 4 L40S GPUs with vLLM; the platform team ran the gateway and the ML team fine-tuned the model, so my part was the vLLM deployment, the benchmark and the capacity plan.
I can share the redacted deployment YAML and the benchmark report from our wiki.
A request hits the gateway, waits in the scheduler queue, gets tokenized, joins the continuous batch, does prefill, then decode, and tokens stream back over SSE.
We looked at TGI and TensorRT-LLM; TRT-LLM needed an engine rebuild per model change, which we could not maintain, so we chose vLLM.
We measured TTFT from request arrival to first token and TPOT as time between tokens, with the same model, GPUs, length mix and concurrency before and after, using benchmark_serving with warm-up.
P99 latency per request on memory was not collected, so I won't claim a number there.
We once hit OOM under long prompts; we reproduced it by replaying the same request mix and fixed it by lowering max_num_seqs, then re-ran the fixed sample as a regression.
In production there were 3 replicas, a /health readiness probe, alerts on queue length and error rate, canary rollout and rollback to the previous image.
For 10x traffic I'd recompute replicas from measured goodput and add a second pool for long requests, accepting higher cost.
""",
    "self-check": """

Getting it right is only part of it. For top marks you also say where it breaks down and what it costs, you weigh another option and say when you would reject it, you show how you'd confirm it from the code or from runtime logs and metrics, you tag each figure as given, derived, observed or estimated, and you explain how you would roll back and what triggers that. Also, don't quote speed-ups from memory that you haven't verified on this version.
Which model we serve, meaning its size, precision and architecture, because that sets the weights and KV memory per GPU. What the traffic looks like: the input and output lengths and how bursty the arrivals are, because that sets the goodput per replica within the SLO. And which GPUs we get and how they're connected, because that decides what fits and the tensor parallelism. I'd clarify all three before I size anything, since the count is peak divided by measured goodput per replica times the target utilization, plus spares, and that goodput has to be benchmarked.
Retries pile the same work on top again: requests slow down, clients time out and resend, and the load snowballs. Adding replicas in that state mostly feeds the duplicate requests and takes minutes to come online, and it masks what actually broke, like the bad canary. So first cap retries with a budget and backoff, turn on admission control, and split first attempts from retries to see the real demand. If the queue stabilizes and the original traffic still exceeds capacity, then scale.
Be upfront that we didn't collect it, and that this limits what I can claim. Then show what we do have: logs, the benchmark report, the config change and the incident ticket. Say it qualitatively, for example the timeouts haven't recurred in the two months since. I won't make up a percentage. If I estimate, I label it as an estimate and explain how I got it. And I'd say how I would measure it now: replay the traffic against a baseline and add monitoring. That still shows my role, the decision and the tradeoffs.

""",
}
PARAPHRASE_ZH: dict[str, str] = {
    "capacity": """
先写假设：题设 40B 参数、BF16、60 层、8 个 KV 头、head dim 128、TP=4，每卡 80 GiB，non-KV 12 GiB，余量 8 GiB；GiB 按 2^30。
想确认一下：有没有在每个 rank 上复制的权重？block size 多少？先假设没有、忽略取整。
权重 40e9×2=80e9 字节≈74.5GiB（推导），每卡约18.6GiB。
每卡能给 KV 的空间 80-18.6-12-8≈41.4GiB。
每 token KV = 2×60×8×128×2 = 245,760 字节。
p95 请求 4000 token，约 0.916GiB；KV 头按 TP 均分，每卡 2 个，每卡约 0.229GiB。
41.4/0.229≈180，这只是只算 KV 的理论上限。
不能把它当生产并发：没算复制层、block 取整、大 batch 激活峰值、p95 以外的长尾、调度 token 预算和 SLO。
下一步启动服务看实际分配的 GPU block 数，再逐步加压压测，找满足 SLO 的最大吞吐。
""",
    "incident": """
先开事故群，分配角色，宣布变更冻结。
确认 TPOT 指标口径对不对、影响哪些租户。
马上停止灰度发布，并限制客户端重试、开启限流，因为重试翻三倍会拖慢所有 Pod，包括旧 Pod。
旧 Pod 变慢更像是重试流量溢出到它们身上，而不是同一个 bug。
在做其他变更前，先对比灰度和旧 Pod：镜像 digest、配置、sampling backend、batch 大小、输出长度、抢占次数。
如果确认是灰度引起、旧镜像兼容，就把灰度摘流排空，让在途的流式请求跑完。
然后观察：重试被限制、灰度摘掉后，排队是否下降、TPOT 是否回落。
在预发环境用相同 seed/logprobs 设置复现 fallback，不在生产盲目切 backend。
SLO、错误率、队列和重试连续 30 分钟正常，并抽检质量后，才宣布恢复。
事后保存日志、命令和看板，写复盘，加一个遇到 backend fallback 就拦截的灰度门禁和兼容矩阵。
""",
}

# Key nouns only: what a candidate who memorised the vocabulary but not the ideas would say.
BUZZ: dict[str, str] = {
    "concepts": "Paged KV cache, PagedAttention, continuous batching, prefix caching, block, block table, hash, "
    "scheduler, KV cache manager, block pool, LoRA, TTFT, token budget, chunked prefill, prefill, decode, "
    "fragmentation, throughput, vLLM V1.",
    "source-trace": "OpenAI frontend, EngineCore, Request, scheduler, SchedulerOutput, GPU model runner, sampler, "
    "logits, logprobs, top-p, top-k, temperature, penalties, seed, generator, FlashInfer, FP32, streaming, SSE, "
    "structured output, bitmask, vllm/v1/engine/core.py, vllm/v1/sample/sampler.py.",
    "capacity": "BF16, GiB, TP=4, KV cache, KV heads, layers, head dim, weights, tokens, p95, concurrency, "
    "upper bound, FP8, OOM, SLO, benchmark, goodput, N+1, HPA.",
    "system-design": "LoRA, multi-tenant, gateway, router, TP, DP, replicas, H100, KV cache, prefix caching, "
    "structured output, xgrammar, guidance, tool schema, TTFT, TPOT, SLO, canary, rollback, HPA, "
    "P/D disaggregation, pipeline parallelism, cost, quota, observability, Prometheus.",
    "incident": "Incident, canary, rollback, TPOT p99, TTFT, retries, waiting queue, sampling backend, fallback, "
    "old pods, image, config, KV cache, preemption, NCCL, CUDA graph, PromQL, metrics, postmortem, runbook.",
    "project-experience": "vLLM, Qwen, A100, TTFT, TPOT, throughput, P95, gateway, continuous batching, prefill, "
    "decode, OOM, canary, rollback, autoscaling, quantization, TGI, TensorRT-LLM, benchmark, KV cache.",
    "self-check": "Score of 5, right answer, boundaries, rollback, GPU count, model, length distribution, H100, "
    "retry, scale out, autoscaling, dashboard, not collected, percentage, benchmark, μ_good, incident.",
}

BUZZ_ZH: dict[str, str] = {
    "concepts": "分页 KV 缓存、连续批处理、前缀缓存、block、哈希、调度器、KV 管理、LoRA、TTFT、token 预算、prefill、decode、碎片。",
    "capacity": "BF16、GiB、TP=4、KV cache、KV heads、层数、权重、token、p95、并发、上界、FP8、OOM、SLO、压测、N+1。",
    "incident": "事故、canary、回滚、TPOT、重试、队列、sampling backend、fallback、旧 Pod、镜像、配置、KV、抢占、指标、复盘。",
    "project-experience": "vLLM、A100、TTFT、TPOT、吞吐、P95、网关、连续批处理、prefill、decode、OOM、灰度、回滚、量化、TGI、压测。",
    "self-check": "5 分、答对、边界、回滚、GPU 数、模型、长度分布、硬件、retry、扩容、dashboard、未采集、百分比、压测。",
}

STRONG_MIN = 0.7  # a short strong answer covers most expected evidence (round + common items)
PARAPHRASE_MIN = 0.6  # the plainer wording, without follow-up answers, still covers most of it
BUZZ_MAX = 0.2  # a list of key nouns covers little of it

# --------------------------------------------------------------------------------------------
# structure
# --------------------------------------------------------------------------------------------


def _texts(obj: object) -> list[Text]:
    """Every Text reachable from a pydantic model (or list of them)."""
    found: list[Text] = []
    if isinstance(obj, Text):
        return [obj]
    if isinstance(obj, (list, tuple)):
        for x in obj:
            found += _texts(x)
        return found
    fields = getattr(type(obj), "model_fields", None)
    if fields:
        for name in fields:
            found += _texts(getattr(obj, name))
    elif isinstance(obj, dict):
        for v in obj.values():
            found += _texts(v)
    return found


_HAN = re.compile(r"[\u4e00-\u9fff]")


def test_rubric_loads_with_every_round_in_order(rubric: Rubric) -> None:
    assert list(rubric.rounds) == list(ROUND_IDS)
    assert [rubric.rounds[r].order for r in ROUND_IDS] == [1, 2, 3, 4, 5, 6, 7]
    assert {r: rubric.rounds[r].minutes for r in ROUND_IDS} == {
        "concepts": 5,
        "source-trace": 15,
        "capacity": 15,
        "system-design": 30,
        "incident": 20,
        "project-experience": 30,
        "self-check": 8,
    }
    assert rubric.version.startswith("rubric-")


def test_every_dimension_has_five_levels_in_both_languages(rubric: Rubric) -> None:
    for d in DIMENSIONS:
        spec = rubric.dimensions[d]
        assert sorted(lv.level for lv in spec.levels) == [1, 2, 3, 4, 5]
        texts = {lv.text.en for lv in spec.levels}
        assert len(texts) == 5, f"{d}: level texts must differ"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_at_least_two_evidence_items_per_dimension(rubric: Rubric, round_id: str) -> None:
    items = rubric.evidence(round_id)
    for d in DIMENSIONS:
        n = sum(1 for e in items if d in e.dimensions)
        assert n >= 2, f"{round_id}: only {n} evidence item(s) for {d}"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_every_dimension_can_reach_five(rubric: Rubric, round_id: str) -> None:
    """Level 5 needs a strong signal for the dimension (lexicon scoring rule), so each has one."""
    strong = rubric.strong_signals(round_id)
    for d in DIMENSIONS:
        assert any(d in s.dimensions for s in strong), f"{round_id}: no strong signal for {d}"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_every_followup_probes_known_evidence(rubric: Rubric, round_id: str) -> None:
    r = rubric.round(round_id)
    known = {e.id for e in rubric.evidence(round_id)}
    assert r.followups, f"{round_id}: no follow-ups"
    for f in r.followups:
        assert f.probes, f"{round_id}: follow-up {f.id} probes nothing"
        assert set(f.probes) <= known, f"{round_id}: {f.id} probes unknown {set(f.probes) - known}"


def test_ids_are_unique_across_round_and_common(rubric: Rubric) -> None:
    for rid in ROUND_IDS:
        for kind in ("evidence", "strong_signals", "weak_signals"):
            ids = [x.id for x in getattr(rubric, kind)(rid)]
            assert len(ids) == len(set(ids)), f"{rid}: duplicate {kind} ids"
    for rid in ROUND_IDS:
        assert not any(e.id.startswith("common-") for e in rubric.round(rid).evidence)
    assert all(e.id.startswith("common-") for e in rubric.common.evidence)


def test_every_text_has_both_languages(rubric: Rubric) -> None:
    texts: list[Text] = []
    for d in rubric.dimensions.values():
        texts += _texts(d)
    for r in rubric.rounds.values():
        texts += _texts(r)
    texts += _texts(rubric.common) + _texts(rubric.narrative)
    assert len(texts) > 300
    for t in texts:
        assert t.zh.strip() and t.en.strip()
        assert not _HAN.search(t.en), f"Chinese left in an English text: {t.en!r}"
    # the Chinese side is Chinese (a few texts are pure identifiers, e.g. a title "Context（背景）")
    zh_han = sum(1 for t in texts if _HAN.search(t.zh))
    assert zh_han / len(texts) > 0.95


def test_every_regex_term_compiles(rubric: Rubric) -> None:
    cues: list[Cues] = []
    for rid in ROUND_IDS:
        r = rubric.round(rid)
        cues += [
            x.cues for x in [*rubric.evidence(rid), *rubric.strong_signals(rid), *rubric.weak_signals(rid)]
        ]
        cues += [g.asked_by for g in r.given]
    for c in cues:
        for g in c.groups:
            for t in g:
                if len(t) > 2 and t.startswith("/") and t.endswith("/"):
                    re.compile(t[1:-1], re.IGNORECASE)
                else:
                    ok = len(t.strip()) >= 2 or not t.isascii() or not t.strip().isalnum()
                    assert ok, f"term {t!r} is too short to mean anything"


KNOWN_RULES = {
    "pass_min",
    "accuracy5_requires",
    "unit_error_cap",
    "slip_allows",
    "senior_min",
    "design_without_cap",
    "lifecycle_for_5",
    "happy_path_cap",
    "ask_for_inputs",
}


def test_gates_name_known_rules_and_resolve(rubric: Rubric) -> None:
    for rid in ROUND_IDS:
        r = rubric.round(rid)
        known = {e.id for e in rubric.evidence(rid)}
        rules = [g.rule for g in r.gates]
        assert "happy_path_cap" in rules, f"{rid}: every round caps the happy path"
        for g in r.gates:
            assert g.rule in KNOWN_RULES, f"{rid}: unknown gate rule {g.rule}"
            for key in ("evidence", "requires"):
                ids = g.params.get(key)
                if ids is not None:
                    assert isinstance(ids, list) and set(ids) <= known, (
                        f"{rid}: {g.rule}.{key} names unknown ids"
                    )
            if g.rule == "lifecycle_for_5":
                stages = g.params["stages"]
                assert stages == ["detect", "contain", "diagnose", "recover", "verify", "learn"]
                assert {f"lifecycle-{s}" for s in stages} <= known  # type: ignore[union-attr]
    gates = {rid: {g.rule: g.params for g in rubric.round(rid).gates} for rid in ROUND_IDS}
    assert gates["source-trace"]["pass_min"] == {"dimension": "evidence", "min": 3}
    assert gates["capacity"]["unit_error_cap"]["cap"] == 2
    assert gates["capacity"]["slip_allows"]["cap"] == 4
    assert gates["system-design"]["senior_min"] == {"dimensions": ["tradeoffs", "validation"], "min": 4}
    assert gates["system-design"]["design_without_cap"]["cap"] == 3
    assert "ask_for_inputs" in gates["capacity"] and "ask_for_inputs" in gates["system-design"]


def test_weights_follow_the_seed_emphasis(rubric: Rubric) -> None:
    w = {rid: rubric.round(rid).weights for rid in ROUND_IDS}
    top = {rid: {d for d, v in ws.items() if v == max(ws.values())} for rid, ws in w.items()}
    assert top["concepts"] == {"accuracy", "communication"}
    assert top["source-trace"] == {"evidence"}
    assert "accuracy" in top["capacity"]
    assert top["system-design"] == {"tradeoffs", "validation"}
    assert top["incident"] == {"validation"}


def test_project_experience_questions(rubric: Rubric) -> None:
    r = rubric.round("project-experience")
    assert len(r.questions) == 11
    groups = [q.group for q in r.questions]
    assert list(dict.fromkeys(groups)) == [
        "what-you-did",
        "how-it-runs",
        "why-this-choice",
        "how-you-proved-it",
        "what-broke",
        "how-it-went-live",
        "what-if-conditions-change",
    ]
    known = {e.id for e in rubric.evidence("project-experience")}
    for q in r.questions:
        assert q.prepare and q.followup_if_missing and q.evidence, q.id
        assert set(q.evidence) <= known
    # the seed's own follow-up lines are kept word for word
    lines = {t.zh for q in r.questions for t in q.followup_if_missing}
    for seed_line in (
        "没有说清自己负责哪部分。",
        "没有说明指标怎么算。",
        "没有说明优化前的数据。",
        "没有说明评测数据怎么来。",
        "没有准备失败案例。",
        "没有说明数据量或并发量。",
        "没有说明是否真正上线。",
        "没有说明出故障时怎么办。",
    ):
        assert seed_line in lines


def test_self_check_asks_the_seeds_four_questions(rubric: Rubric) -> None:
    """Seed 000's closing 自检, word for word but for its English words, which a Chinese text gives in Chinese
    (docs/glossary.md: retry → 重试, dashboard → 看板（dashboard）): the first question is the prompt, the other
    three its questions, each asking for items of its own and with a follow-up for what an answer lacks."""
    r = rubric.round("self-check")
    asked = [r.prompt.zh, *(q.text.zh for q in r.questions)]
    in_chinese = {" retry": "重试", " dashboard ": "看板（dashboard）"}  # no space left beside Chinese
    for k, seed_line in enumerate(
        (
            "任一轮得 5 分需要哪些比“答对”更多的证据？",
            "系统设计中哪三个问题如果未澄清，会让 GPU 数量计算无效？",
            "事故轮为什么要先限制 retry，再判断是否扩容？",
            "项目结果没有历史 dashboard 时，怎样诚实又有价值地回答？",
        ),
        start=1,
    ):
        for english, chinese in in_chinese.items():
            seed_line = seed_line.replace(english, chinese)
        assert asked[k - 1] == f"自检第 {k} 题：{seed_line}"
    assert [q.group for q in r.questions] == ["system-design", "incident", "project-experience"]
    own = {e.id for e in r.evidence}
    claimed = [e for q in r.questions for e in q.evidence]
    assert len(claimed) == len(set(claimed)) and set(claimed) <= own
    # question 1's items (the prompt's) belong to no question: never out of an answer's scope
    assert {e for e in own if e.startswith("sc-five-")} == own - set(claimed)
    assert all(q.followup_if_missing for q in r.questions)
    # the three inputs the seed's system-design round asks for before any GPU count
    assert {"sc-gpu-model", "sc-gpu-workload", "sc-gpu-hardware"} <= set(r.questions[0].evidence)


def test_narrative_template(rubric: Rubric) -> None:
    n = rubric.narrative
    assert [s.id for s in n.sections] == [
        "context",
        "problem-evidence",
        "decision",
        "validation-rollout-rollback",
        "result",
        "learning",
    ]
    assert (n.not_collected.zh, n.not_collected.en) == ("未采集", "not collected")


def test_hidden_inputs_are_held_back(rubric: Rubric) -> None:
    cap = rubric.round("capacity")
    design = rubric.round("system-design")
    assert {"given-replicated-weights", "given-block-size", "given-quantization"} <= {g.id for g in cap.given}
    assert len(design.given) >= 10
    for g in design.given:
        # the candidate reads these as the interviewer's reply: no internal framing of the hidden config
        assert "隐藏配置" not in g.text.zh and "hidden config" not in g.text.en.lower()
    # the hidden config is not in the prompt
    for word in ("H100", "14×10^9", "rank 16"):
        assert word not in design.prompt.en


@pytest.mark.parametrize(
    ("round_id", "question", "fact"),
    [
        ("capacity", "Are any weights replicated on every rank?", "given-replicated-weights"),
        ("capacity", "block size 是多少？", "given-block-size"),
        ("system-design", "Which GPU type do we have?", "hidden-gpu"),
        ("system-design", "LoRA 的 rank 和大小是多少？", "hidden-lora"),
        ("system-design", "What does the input and output length distribution look like?", "hidden-lengths"),
    ],
)
def test_a_question_reveals_its_hidden_fact(rubric: Rubric, round_id: str, question: str, fact: str) -> None:
    given = {g.id: g for g in rubric.round(round_id).given}
    assert covered(given[fact].asked_by, question)


# --------------------------------------------------------------------------------------------
# cues: strong answers cover, buzzwords do not
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_strong_english_answer_covers_most_evidence(rubric: Rubric, round_id: str) -> None:
    share, missing = _coverage(rubric, round_id, STRONG_EN[round_id])
    assert share >= STRONG_MIN, f"{round_id}: strong answer covers {share:.0%}; missing {missing}"


@pytest.mark.parametrize("round_id", sorted(STRONG_ZH))
def test_strong_chinese_answer_covers_most_evidence(rubric: Rubric, round_id: str) -> None:
    share, missing = _coverage(rubric, round_id, STRONG_ZH[round_id])
    assert share >= STRONG_MIN, f"{round_id}: strong Chinese answer covers {share:.0%}; missing {missing}"


@pytest.mark.parametrize(
    ("round_id", "lang"), [(r, "en") for r in ROUND_IDS] + [(r, "zh") for r in ("capacity", "incident")]
)
def test_paraphrased_answer_covers_most_evidence(rubric: Rubric, round_id: str, lang: str) -> None:
    text = (PARAPHRASE_EN if lang == "en" else PARAPHRASE_ZH)[round_id]
    share, missing = _coverage(rubric, round_id, text)
    assert share >= PARAPHRASE_MIN, f"{round_id}/{lang}: paraphrase covers {share:.0%}; missing {missing}"
    hits = [w.id for w in rubric.weak_signals(round_id) if covered(w.cues, text)]
    assert not hits, f"{round_id}/{lang}: paraphrase trips weak signals {hits}"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_buzzword_list_covers_little(rubric: Rubric, round_id: str) -> None:
    for text in (BUZZ[round_id], BUZZ_ZH.get(round_id, "")):
        if not text:
            continue
        share, _ = _coverage(rubric, round_id, text)
        assert share <= BUZZ_MAX, f"{round_id}: buzzwords cover {share:.0%} — cues too loose"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_strong_answers_raise_no_weak_signal(rubric: Rubric, round_id: str) -> None:
    for text in (STRONG_EN[round_id], STRONG_ZH.get(round_id, "")):
        hits = [w.id for w in rubric.weak_signals(round_id) if text and covered(w.cues, text)]
        assert not hits, f"{round_id}: a strong answer trips weak signals {hits}"


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_strong_answers_show_strong_signals(rubric: Rubric, round_id: str) -> None:
    strong = rubric.strong_signals(round_id)
    hits = [s.id for s in strong if covered(s.cues, STRONG_EN[round_id])]
    assert len(hits) >= max(2, len(strong) // 2), f"{round_id}: strong signals seen {hits}"


WEAK_EXAMPLES = [
    ("concepts", "PagedAttention is basically CPU swap of the KV cache.", "paged-as-swap"),
    ("concepts", "Paged KV 就是一种 CPU swap。", "paged-as-swap"),
    ("concepts", "Prefix caching is a response cache for repeated prompts.", "prefix-as-response-cache"),
    ("concepts", "With continuous batching GPU utilization is always close to 100%.", "gpu-util-100"),
    ("concepts", "Paged KV cuts fragmentation waste to under 4%.", "fixed-numbers"),
    (
        "source-trace",
        "A request can upload an arbitrary Python logits processor.",
        "arbitrary-python-processor",
    ),
    (
        "source-trace",
        "With top-5 logprobs it only computes the top 5, no full-vocab softmax.",
        "topn-no-full-vocab",
    ),
    ("capacity", "The weights are 80 GiB in BF16, so each rank has 20 GiB.", "gb-gib-confusion"),
    ("capacity", "KV per token: using the query heads, 2 × 60 × 64 × 128 × 2 B.", "query-heads"),
    ("capacity", "然后再乘以 60 层得到每 token 的 KV。", "layers-twice"),
    ("capacity", "So we set the HPA target to 180 concurrent requests.", "hpa-180"),
    ("system-design", "Let's assume H100 and 70B, so we need 64 GPUs.", "assumes-hardware"),
    ("system-design", "The structured output schema acts as the tool authorization.", "structured-as-authz"),
    (
        "system-design",
        "We expose the runtime LoRA API directly to tenants so they can load adapters.",
        "runtime-lora-exposed",
    ),
    ("system-design", "The HPA scales only on GPU utilization.", "hpa-gpu-util"),
    ("system-design", "We do an in-place upgrade of all pods.", "no-drain-rollback"),
    ("incident", "I would immediately raise max_num_seqs to absorb the queue.", "raise-seqs-or-restart"),
    ("incident", "先全池重启，看看能不能恢复。", "raise-seqs-or-restart"),
    ("incident", "I only look at average GPU utilization.", "average-util-only"),
    ("incident", "Switch the backend for the whole pool now.", "switch-pool-backend"),
    ("incident", "We rolled back and we're done.", "no-drain-no-evidence"),
    ("project-experience", "我们把吞吐提升了 3 倍。", "hero-number"),
    ("project-experience", "Throughput improved by 300% after my change.", "hero-number"),
    ("project-experience", "I did everything on that project.", "sole-credit"),
    ("project-experience", "The change had no downside at all.", "no-downside"),
    ("self-check", "Without a dashboard I would say latency got 30 percent better.", "sc-hero-number"),
    ("self-check", "没有 dashboard 的话，我就说吞吐提升了 2 倍。", "sc-hero-number"),
    ("self-check", "I'd just assume H100s and a 70B model, so about 64 GPUs.", "sc-gpu-count-by-assumption"),
    ("self-check", "直接假设 H100、70B，需要 64 张卡。", "sc-gpu-count-by-assumption"),
]


@pytest.mark.parametrize(("round_id", "text", "signal"), WEAK_EXAMPLES)
def test_weak_signal_cues_fire_on_the_error(rubric: Rubric, round_id: str, text: str, signal: str) -> None:
    weak = {w.id: w for w in rubric.weak_signals(round_id)}
    assert covered(weak[signal].cues, text), f"{signal} did not fire on {text!r}"


NEGATED = [
    ("concepts", "PagedAttention is not CPU swap; nothing is swapped to the CPU.", "paged-as-swap"),
    ("concepts", "Paged KV 不是 CPU swap。", "paged-as-swap"),
    (
        "source-trace",
        "A request cannot upload an arbitrary Python logits processor.",
        "arbitrary-python-processor",
    ),
    ("capacity", "I would never set the HPA to 180.", "hpa-180"),
    ("capacity", "不能用 query heads 算 KV，要用 KV heads。", "query-heads"),
    (
        "system-design",
        "Structured output is not authorization; tools are authorized separately.",
        "structured-as-authz",
    ),
    ("system-design", "The runtime LoRA API is never exposed to tenants.", "runtime-lora-exposed"),
    ("system-design", "不能只看 GPU 利用率做 HPA。", "hpa-gpu-util"),
    ("incident", "I would not raise max_num_seqs and not restart the whole pool.", "raise-seqs-or-restart"),
    ("incident", "不要全池重启。", "raise-seqs-or-restart"),
    ("project-experience", "压测报告里吞吐提升 30%，条件是相同模型和固定并发。", "hero-number"),
    ("self-check", "I would never invent a 30 percent improvement without a dashboard.", "sc-hero-number"),
    ("self-check", "不会直接假设 H100、70B 然后报 64 张卡。", "sc-gpu-count-by-assumption"),
    ("self-check", "I wouldn't assume H100s and a 70B model and say 64 GPUs.", "sc-gpu-count-by-assumption"),
]


@pytest.mark.parametrize(("round_id", "text", "signal"), NEGATED)
def test_weak_signal_cues_ignore_the_negated_error(
    rubric: Rubric, round_id: str, text: str, signal: str
) -> None:
    weak = {w.id: w for w in rubric.weak_signals(round_id)}
    assert not covered(weak[signal].cues, text), f"{signal} fired on the negation {text!r}"


def test_the_product_matcher_agrees_on_strong_answers(rubric: Rubric) -> None:
    """The same answers through agent/judge/matching.py (which keeps decimals and paths whole)."""
    matching = pytest.importorskip("agent.judge.matching")
    for round_id in ROUND_IDS:
        for text in (STRONG_EN[round_id], STRONG_ZH.get(round_id)):
            if not text:
                continue
            sents = matching.sentences(text)
            items = rubric.evidence(round_id)
            found = [e.id for e in items if matching.match_cues(e.cues, text, sents).found]
            assert len(found) / len(items) >= STRONG_MIN, (
                f"{round_id}: product matcher found {len(found)}/{len(items)}"
            )


# words that belong to one round's subject: a level text shown in another round must not use them
_ROUND_WORDS: dict[str, tuple[str, ...]] = {
    "capacity": ("GiB", "TP", "query heads", "GPU count"),
    "concepts": ("PagedAttention", "prefix cache", "block table"),
    "source-trace": ("logprobs", "seed", "softmax"),
    "incident": ("detect, contain", "restart the whole pool"),
}


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_level_texts_speak_of_their_own_round(rubric: Rubric, round_id: str) -> None:
    """A score's level text is shown as the reason in every round; another round's examples (a capacity
    round's unit errors under a concepts answer) read as a verdict on something the answer never said."""
    rnd = rubric.round(round_id)
    for d in DIMENSIONS:
        for level in range(1, 6):
            text = rnd.level_text(rubric.dimensions[d], level)
            for other, words in _ROUND_WORDS.items():
                if other == round_id:
                    continue
                for w in words:
                    hit = re.search(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])", text.en)
                    assert hit is None, f"{round_id} {d} {level}: {w!r} ({other}) in {text.en!r}"


def test_a_round_level_text_replaces_only_its_own_level(rubric: Rubric) -> None:
    cap, con = rubric.round("capacity"), rubric.round("concepts")
    acc = rubric.dimensions["accuracy"]
    assert "GiB" in cap.level_text(acc, 2).en and "GiB" not in con.level_text(acc, 2).en
    assert cap.level_text(acc, 3) == con.level_text(acc, 3) == next(lv.text for lv in acc.levels if lv.level == 3)


def test_a_round_may_not_give_one_level_twice(rubric: Rubric) -> None:
    from pydantic import ValidationError

    data = rubric.round("capacity").model_dump(mode="json")
    data["levels"]["accuracy"].append(dict(data["levels"]["accuracy"][0]))
    with pytest.raises(ValidationError, match="more than once"):
        type(rubric.round("capacity")).model_validate(data)
