"""The interviewer's own lines and the session's messages, in both languages.

Rubric content (prompts, follow-ups, given facts) comes from rubrics/; these are only the glue
sentences around it.
"""

from __future__ import annotations

from agent.rubric.model import Lang

_W: dict[str, dict[Lang, str]] = {
    "given": {"en": "Given (you asked): {facts}", "zh": "补充题设（你问到了）：{facts}"},
    "nothing_to_retry": {
        "en": "There is no answer to retry in this round: an answer can be retried until its round closes.",
        "zh": "本轮没有可以重答的回答：回答只能在本轮结束前重答。",
    },
    "candidate_questions": {
        "en": "That is the end of the five rounds. You have five minutes: what would you like to ask us?",
        "zh": "五轮到此结束。还有 5 分钟，你有什么想问我们的？",
    },
    "over_budget": {
        "en": "Over the time budget: {used:.1f} of {minutes} min used; the round was closed.",
        "zh": "超出时间预算：用时 {used:.1f} 分钟（预算 {minutes} 分钟），本轮已结束。",
    },
    "over_budget_graded": {
        "en": "Over the time budget: {used:.1f} of {minutes} min used.",
        "zh": "超出时间预算：用时 {used:.1f} 分钟（预算 {minutes} 分钟）。",
    },
    "time_up": {
        "en": "Time is up for {round} ({minutes} min): the round is closed.",
        "zh": "{round}（{minutes} 分钟）时间到，本轮结束。",
    },
    "asked_unprompted": {
        "en": "The candidate asked for missing inputs without prompting: {facts}",
        "zh": "候选人未经提示主动询问了缺失输入：{facts}",
    },
    "empty": {
        "en": "The answer is empty. Type your answer and send it again; the question stays open.",
        "zh": "回答为空。请输入回答后再发送；问题仍然有效。",
    },
    "too_long": {
        "en": "The answer is {n:,} characters; the limit for one round is {limit:,}. "
        "Shorten it and send it again; the question stays open.",
        "zh": "回答有 {n:,} 个字符，超过单轮上限 {limit:,}。请缩短后重新发送；问题仍然有效。",
    },
    "not_text": {
        "en": "The answer is not text ({why}). Send plain text; the question stays open.",
        "zh": "回答不是文本（{why}）。请发送纯文本；问题仍然有效。",
    },
    "done": {
        "en": "This session is finished; its report is ready. Start a new session to practise again.",
        "zh": "本次面试已结束，报告已生成。如需再练，请开始新的面试。",
    },
    "copilot_only": {
        "en": "Only a co-pilot session takes the interviewer's questions; in practice the agent asks.",
        "zh": "只有辅助面试（co-pilot）模式接受面试官提问；练习模式由系统提问。",
    },
    "no_answer_yet": {
        "en": "The candidate has not answered in this round yet; nothing to close.",
        "zh": "本轮候选人还没有回答，无法结束本轮。",
    },
    "empty_question": {
        "en": "The question is empty; the session still waits for the interviewer.",
        "zh": "问题为空；仍在等待面试官提问。",
    },
    "close_suggestion": {
        "en": "Close this round (no listed follow-up targets missing evidence).",
        "zh": "结束本轮（没有针对缺失证据的追问了）。",
    },
    "next_question": {"en": "Next question", "zh": "下一题"},
    "no_snippets": {
        "en": "Source snippets are unavailable for this answer: {why}",
        "zh": "本次回答无法检索源码片段：{why}",
    },
    "asked_for": {"en": "the candidate asked for: {fact}", "zh": "候选人问到：{fact}"},
    "index_not_built": {
        "en": "No vLLM source index is built yet (run `interview index build`): this answer is graded without source snippets.",
        "zh": "尚未建立 vLLM 源码索引（运行 `interview index build`）：本次回答在没有源码片段的情况下评分。",
    },
}


def say(key: str, lang: Lang, **fields: object) -> str:
    text = _W[key][lang]
    return text.format(**fields) if fields else text
