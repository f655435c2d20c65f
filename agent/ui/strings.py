"""Every piece of UI text, in English and Chinese: data in one place, looked up by key.

Rubric content (round titles, dimension names, questions, follow-ups) comes from rubrics/ and the
interview graph; these are only the app's own labels and messages.
"""

from __future__ import annotations

from agent.rubric.model import Lang

STRINGS: dict[str, dict[Lang, str]] = {
    # frame
    "app_title": {"en": "vLLM Interview Coach", "zh": "vLLM 面试教练"},
    "app_intro": {
        "en": "Mock interviews for LLM-inference-serving roles, scored against the rubric with quoted evidence.",
        "zh": "面向 LLM 推理服务岗位的模拟面试，按评分标准打分，每个分数都有引用证据。",
    },
    "ui_language": {"en": "Interface language", "zh": "界面语言"},
    "signed_in_as": {"en": "Signed in as **{user}**.", "zh": "当前用户：**{user}**。"},
    "tab_practice": {"en": "Practice", "zh": "练习"},
    "tab_copilot": {"en": "Co-pilot", "zh": "面试官助手"},
    "tab_review": {"en": "Review", "zh": "复核"},
    "tab_reports": {"en": "Reports", "zh": "报告"},
    "raw_json": {"en": "Raw session (JSON)", "zh": "会话原始数据（JSON）"},
    # session set-up
    "plan": {"en": "Plan", "zh": "面试计划"},
    "plan_full": {"en": "Full mock: five rounds, 90 min", "zh": "完整模拟：五轮，90 分钟"},
    "plan_project": {"en": "Project-experience interview", "zh": "项目经历面试"},
    "plan_redo": {"en": "Redo the two weakest rounds of a session", "zh": "重做某次面试最弱的两轮"},
    "plan_round": {"en": "{title} ({minutes} min)", "zh": "{title}（{minutes} 分钟）"},
    "plan_self_check": {
        "en": "Self-check: four questions, {minutes} min",
        "zh": "自检：四道题，{minutes} 分钟",
    },
    "plan_plus_self_check": {"en": "{plan} + self-check", "zh": "{plan} + 自检"},
    "add_self_check": {"en": "Add the self-check round", "zh": "加上自检轮"},
    "add_self_check_info": {
        "en": "Four self-check questions after the last round ({minutes} min), graded like the other rounds",
        "zh": "最后一轮之后回答四道自检题（{minutes} 分钟），和其他轮一样评分",
    },
    "session_language": {"en": "Interview language", "zh": "面试语言"},
    "previous_session": {"en": "Previous session (for a redo)", "zh": "上一次面试编号（重做时填写）"},
    "start": {"en": "Start", "zh": "开始"},
    "session_id": {"en": "Session id (keep it to resume)", "zh": "会话编号（保存以便继续）"},
    "resume_id": {"en": "Resume a session by id", "zh": "按编号继续会话"},
    "resume": {"en": "Resume", "zh": "继续"},
    "started": {"en": "Session {sid} started.", "zh": "会话 {sid} 已开始。"},
    "resumed": {"en": "Session {sid} resumed.", "zh": "会话 {sid} 已继续。"},
    "restored": {
        "en": "Welcome back: session {sid} continues where you left it.",
        "zh": "欢迎回来：会话 {sid} 从你离开的地方继续。",
    },
    "unfinished": {"en": "Continue an unfinished session", "zh": "继续未完成的会话"},
    "unfinished_item": {"en": "{plan} · {when} UTC · {sid}", "zh": "{plan} · {when}（UTC）· {sid}"},
    "confirm_replace": {
        "en": "A session is under way. Leave it and open another? It stays saved: you can continue it later "
        "from the list of unfinished sessions.",
        "zh": "当前有一个进行中的会话。要离开它并打开另一个吗？它会被保存，之后可以在“继续未完成的会话”中继续。",
    },
    "no_session": {"en": "Start or resume a session first.", "zh": "请先开始或继续一个会话。"},
    "need_session_id": {"en": "Enter a session id.", "zh": "请输入会话编号。"},
    "need_previous": {
        "en": "A redo needs the id of a previous session of yours.",
        "zh": "重做需要填写你之前某次面试的编号。",
    },
    # practice
    "question": {"en": "Question", "zh": "问题"},
    "question_audio": {"en": "Question, spoken", "zh": "问题语音"},
    "no_question": {"en": "No question yet.", "zh": "还没有问题。"},
    "answer": {
        "en": "Your answer (typed, or transcribed and edited)",
        "zh": "你的回答（可输入，或语音转写后编辑）",
    },
    "answer_placeholder": {
        "en": "Type the answer, or record it below and correct the transcript here before sending. "
        "Ctrl+Enter sends.",
        "zh": "直接输入回答；或在下方录音，转写结果会出现在这里，发送前可以修改。按 Ctrl+Enter 发送。",
    },
    "record": {"en": "Record or upload the answer", "zh": "录音或上传回答"},
    "transcribe": {"en": "Transcribe", "zh": "转写"},
    "send": {"en": "Send answer", "zh": "发送回答"},
    "finish_round": {"en": "Finish this round", "zh": "结束本轮"},
    "retry": {"en": "Retry this answer", "zh": "重答这一题"},
    "retry_cancel": {"en": "Keep my answer as it was", "zh": "保留原来的回答"},
    "retry_label": {"en": "Retry", "zh": "重答"},
    "retry_hint": {
        "en": "Answer this question again: your last answer is in the box to rework. Send replaces it; "
        "the earlier attempt is kept and compared.",
        "zh": "请重新回答这个问题：上一次的回答已放在输入框里，可以在此基础上修改。发送后以新回答为准，上一次作答会保留并用于对比。",
    },
    "nothing_to_retry": {
        "en": "There is no answer to retry in this round.",
        "zh": "本轮没有可以重答的回答。",
    },
    "retry_compare": {
        "en": "Compared with your earlier attempt: {before} → {now} expected items",
        "zh": "与上一次作答相比：期望要点 {before} → {now} 项",
    },
    "retry_gained": {"en": "New this time", "zh": "这次新覆盖"},
    "retry_lost": {"en": "Covered before, not this time", "zh": "上次覆盖、这次没有"},
    "transcribed": {
        "en": "Transcribed {seconds:.1f} s of audio ({engine}). Check the text, edit it, then send.",
        "zh": "已转写 {seconds:.1f} 秒音频（{engine}）。请检查并修改文字后再发送。",
    },
    "no_speech": {
        "en": "No speech was recognised in the recording. Record again, or type the answer.",
        "zh": "录音中没有识别到语音。请重新录音，或直接输入回答。",
    },
    "no_audio": {"en": "Record or upload audio first.", "zh": "请先录音或上传音频。"},
    "voice_unavailable": {
        "en": "Voice is unavailable: {why}. Typing always works.",
        "zh": "语音功能不可用：{why}。输入文字始终可用。",
    },
    "tts_unavailable": {"en": "The question could not be spoken: {why}", "zh": "无法朗读问题：{why}"},
    "progress": {
        "en": "Round {i} of {n} · {title}",
        "zh": "第 {i} / {n} 轮 · {title}",
    },
    "progress_done": {"en": "Session finished: the report is below.", "zh": "本次面试已结束，报告见下方。"},
    "over_time": {"en": "over time", "zh": "已超时"},
    "round_scores": {"en": "Round scores: {title}", "zh": "本轮得分：{title}"},
    "draft_scores": {"en": "Draft scores: {title}", "zh": "草拟得分：{title}"},
    "final_report": {"en": "Final report", "zh": "最终报告"},
    "dimension": {"en": "Dimension", "zh": "维度"},
    "score": {"en": "Score", "zh": "分数"},
    "why": {"en": "Why", "zh": "依据"},
    "quotes": {"en": "Quotes from the answer", "zh": "回答中的引用"},
    "missing": {"en": "Missing evidence", "zh": "缺失的证据"},
    "flags": {"en": "Flags", "zh": "标记"},
    "total": {"en": "Total", "zh": "总分"},
    "judge": {"en": "Judge", "zh": "评分模型"},
    "sources": {"en": "vLLM source to check against", "zh": "可对照的 vLLM 源码"},
    "sources_unavailable": {
        "en": "Source snippets unavailable: {why}",
        "zh": "无法显示源码片段：{why}",
    },
    "no_sources": {"en": "No matching source snippet.", "zh": "没有匹配的源码片段。"},
    "index_not_built": {
        "en": "No vLLM source index is built yet: run `interview index build` to show source snippets here.",
        "zh": "尚未建立 vLLM 源码索引：运行 `interview index build` 后，这里会显示源码片段。",
    },
    "timer_hint": {"en": "elapsed / budget", "zh": "已用 / 预算"},
    "rounds_bar": {"en": "Rounds done in this session", "zh": "本次面试已完成的轮次"},
    "clock_bar": {"en": "Time used of this round's budget", "zh": "本轮时间预算的已用部分"},
    "more": {"en": "{n} more", "zh": "另外 {n} 条"},
    # co-pilot
    "copilot_intro": {
        "en": "You interview; the co-pilot listens. Type, paste or record each answer and save it, then pick the "
        "next follow-up.",
        "zh": "由你提问，助手旁听。输入、粘贴或录下候选人的每个回答并保存，然后选择下一个追问。",
    },
    "candidate_answer": {"en": "Candidate's answer", "zh": "候选人的回答"},
    "save_answer": {"en": "Save answer", "zh": "保存回答"},
    "suggestions": {"en": "Suggested follow-ups", "zh": "建议追问"},
    "no_suggestions": {
        "en": "No suggestion yet: save the candidate's answer first.",
        "zh": "暂无建议：请先保存候选人的回答。",
    },
    "pick_followup": {"en": "Pick a follow-up", "zh": "选择追问"},
    "next_question": {"en": "Next question to ask (edit freely)", "zh": "下一个问题（可修改）"},
    "ask": {"en": "Ask", "zh": "提问"},
    "close_round": {"en": "Close the round", "zh": "结束本轮"},
    "waiting_for": {"en": "Waiting for: {who}", "zh": "等待：{who}"},
    "who_candidate": {"en": "the candidate's answer", "zh": "候选人回答"},
    "who_interviewer": {"en": "your next question", "zh": "你的下一个问题"},
    "accept_draft": {"en": "Accept the draft score", "zh": "接受草拟分数"},
    "accepted_reason": {"en": "accepted as drafted", "zh": "接受草拟分数"},
    "no_draft": {"en": "There is no draft score yet.", "zh": "还没有草拟分数。"},
    "question_answered": {"en": "answered", "zh": "已回答"},
    "accept_on": {
        "en": "Accept the draft {score}/5 · {round} · {dimension}",
        "zh": "接受草拟分数 {score}/5 · {round} · {dimension}",
    },
    "override_on": {"en": "Save override · {round} · {dimension}", "zh": "保存修改 · {round} · {dimension}"},
    "accept_refused": {
        "en": "Not accepted: {round} · {dimension} has your override {human}/5 ({reviewer}, log row {id}); "
        "accepting the draft {judge}/5 would undo it. To go back to the draft score, save an override of "
        "{judge} with a reason.",
        "zh": "未接受：{round} · {dimension} 已有你的修改 {human}/5（{reviewer}，日志第 {id} 行）；"
        "接受草拟分数 {judge}/5 会撤销这次修改。如要改回草拟分数，请以 {judge} 分保存一次修改并填写理由。",
    },
    "accept_already": {
        "en": "Already in the log: {round} · {dimension} stands at {score}/5 (log row {id}); nothing added.",
        "zh": "日志中已有：{round} · {dimension} 当前为 {score}/5（日志第 {id} 行），未新增记录。",
    },
    "copilot_finished": {
        "en": "To interview again, start a new session. The scores can still be accepted or overridden here "
        "or in Review.",
        "zh": "如要再次面试，请开始新的会话。分数仍可在此处或复核页中接受或修改。",
    },
    # review / overrides
    "review_intro": {
        "en": "Open a graded report (JSON), a transcript (graded on opening) or one of your sessions.",
        "zh": "打开一个评分报告（JSON）、一份记录（打开时评分）或你的某个会话。",
    },
    "report_file": {"en": "Report or transcript (JSON)", "zh": "报告或面试记录（JSON）"},
    "open_session": {"en": "Open session", "zh": "打开会话"},
    "open_session_id": {"en": "Session id", "zh": "会话编号"},
    "opened": {"en": "Opened {id} ({kind}).", "zh": "已打开 {id}（{kind}）。"},
    "kind_report": {"en": "graded report", "zh": "评分报告"},
    "kind_transcript": {"en": "transcript, graded now", "zh": "面试记录，已即时评分"},
    "kind_session": {"en": "session report", "zh": "会话报告"},
    "kind_session_partial": {
        "en": "session under way: its answers so far, graded now",
        "zh": "进行中的会话：按目前的回答即时评分",
    },
    "kind_upload_stored": {
        "en": "the stored session's report; the uploaded file's scores are not used",
        "zh": "已保存会话的报告；不使用上传文件中的分数",
    },
    "upload_not_yours": {
        "en": "This report is of session {id}, which is not yours: only its owner or a reviewer may open it "
        "or override its scores.",
        "zh": "该报告属于会话 {id}，不是你的会话：只有会话的所有者或复核人可以打开它或修改其分数。",
    },
    "upload_key": {
        "en": "It names no stored session: its overrides are yours alone, kept under {where}.",
        "zh": "它不对应任何已保存的会话：其改分只属于你，记录在 {where} 下。",
    },
    "not_yours_now": {
        "en": "Session {id} is no longer yours to review.",
        "zh": "会话 {id} 已不在你的复核范围内。",
    },
    "nothing_to_grade": {"en": "The session has no answer yet.", "zh": "该会话还没有回答。"},
    "bad_file": {"en": "Cannot open this file: {why}", "zh": "无法打开该文件：{why}"},
    "no_report": {"en": "Open a report first.", "zh": "请先打开一个报告。"},
    "scores_table": {"en": "Scores: judge and effective", "zh": "分数：模型评分与生效分数"},
    "col_round": {"en": "Round", "zh": "轮次"},
    "col_dimension": {"en": "Dimension", "zh": "维度"},
    "col_judge": {"en": "Judge", "zh": "模型评分"},
    "col_effective": {"en": "Effective", "zh": "生效分数"},
    "col_by": {"en": "Overridden by", "zh": "改分人"},
    "col_rationale": {"en": "Rationale", "zh": "评分理由"},
    "col_quotes": {"en": "Quotes", "zh": "引用"},
    "override": {"en": "Override a score", "zh": "修改分数"},
    "round": {"en": "Round", "zh": "轮次"},
    "new_score": {"en": "Your score", "zh": "你的评分"},
    "reason": {"en": "Reason (required)", "zh": "理由（必填）"},
    "reviewer": {"en": "Reviewer name (required)", "zh": "复核人姓名（必填）"},
    "save_override": {"en": "Save override", "zh": "保存修改"},
    "override_saved": {
        "en": "Saved: {round} · {dimension}: judge {judge} → {human} by {reviewer} (log row {id}).",
        "zh": "已保存：{round} · {dimension}：模型 {judge} → {human}，复核人 {reviewer}（日志第 {id} 行）。",
    },
    "override_failed": {
        "en": "Not saved: {why}. Your entry is kept in the form; try again.",
        "zh": "未保存：{why}。表单内容已保留，请重试。",
    },
    "need_reason": {"en": "Give a reason.", "zh": "请填写理由。"},
    "need_reviewer": {"en": "Give the reviewer's name.", "zh": "请填写复核人姓名。"},
    "need_round_dim": {"en": "Choose a round and a dimension.", "zh": "请选择轮次和维度。"},
    "need_login": {
        "en": "Overrides need a signed-in reviewer.",
        "zh": "修改分数需要已登录的复核人。",
    },
    "override_log": {"en": "Override log for this report", "zh": "本报告的改分日志"},
    "log_id": {"en": "Row", "zh": "行号"},
    "log_when": {"en": "When (UTC)", "zh": "时间（UTC）"},
    "log_judge": {"en": "Judge", "zh": "模型评分"},
    "log_human": {"en": "Human", "zh": "人工评分"},
    "log_reviewer": {"en": "Reviewer", "zh": "复核人"},
    "log_reason": {"en": "Reason", "zh": "理由"},
    "log_empty": {"en": "No override yet.", "zh": "还没有改分记录。"},
    "log_unverified": {
        "en": "The override log could not be verified, so overrides may be missing from the scores shown here"
        " ({problem}). Run `interview override verify` and restore the log from a backup.",
        "zh": "改分记录校验未通过，这里显示的分数可能缺少改分（{problem}）。请运行 `interview override verify`，并从备份恢复记录。",
    },
    "scores_hint": {
        "en": "Each row: round, dimension, judge score → effective score. Open a row for the override, the "
        "judge's rationale and the quotes.",
        "zh": "每行依次为：轮次、维度、模型评分 → 生效分数。展开一行可查看人工修改、评分理由和引用。",
    },
    "overridden_by": {"en": "overridden by {reviewer}", "zh": "{reviewer} 已修改"},
    "override_detail": {"en": "Override", "zh": "人工修改"},
    "rationale": {"en": "Judge's rationale", "zh": "评分理由"},
    "no_quotes": {"en": "No quote for this dimension.", "zh": "该维度没有引用。"},
    "stale": {
        "en": "made against another judge score or rubric version",
        "zh": "基于不同的模型评分或评分标准版本",
    },
    # reports
    "my_sessions": {"en": "My finished sessions", "zh": "我已完成的会话"},
    "refresh": {"en": "Refresh", "zh": "刷新"},
    "open": {"en": "Open", "zh": "打开"},
    "use_review": {"en": "Use the report open in Review", "zh": "使用复核页中打开的报告"},
    "radar": {"en": "Five dimensions per round (effective scores)", "zh": "每轮五个维度（生效分数）"},
    "history": {"en": "Attempts", "zh": "历次面试"},
    "col_session": {"en": "session", "zh": "会话"},
    "col_plan": {"en": "plan", "zh": "计划"},
    "col_when": {"en": "updated (UTC)", "zh": "更新时间（UTC）"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_totals": {"en": "round totals", "zh": "各轮总分"},
    "compare": {"en": "Compare two attempts", "zh": "对比两次面试"},
    "attempt_a": {"en": "Earlier attempt", "zh": "较早的一次"},
    "attempt_b": {"en": "Later attempt", "zh": "较晚的一次"},
    "col_a": {"en": "earlier", "zh": "较早"},
    "col_b": {"en": "later", "zh": "较晚"},
    "col_change": {"en": "change", "zh": "变化"},
    "no_common_rounds": {
        "en": "The two attempts have no round in common.",
        "zh": "两次面试没有相同的轮次。",
    },
    "download_json": {"en": "Download JSON", "zh": "下载 JSON"},
    "download_md": {"en": "Download Markdown", "zh": "下载 Markdown"},
    "download_package": {"en": "Download evidence package (zip)", "zh": "下载证据包（zip）"},
    "download_package_page": {"en": "Evidence package page (HTML)", "zh": "证据包页面（HTML）"},
    "package_hint": {
        "en": "The evidence package is for a coach to read offline: one printable page with the questions as "
        "asked, your assumption table, the capacity formulas re-derived, the score sheet with overrides, "
        "disputed evidence, the full transcript and what to do next time; the zip adds package.json and its "
        "schema.",
        "zh": "证据包供教练离线阅读：一页可打印的页面，包含实际提问、你的假设表、重新推导的容量公式、含人工修改的评分表、"
        "有争议的证据、完整记录和下次的改进行动；zip 另含 package.json 及其结构定义。",
    },
    "risks": {"en": "Risks (never hidden by the total)", "zh": "风险（总分不掩盖）"},
    "next_actions": {"en": "Next actions", "zh": "下一步练习"},
    "effective_section": {"en": "Effective scores (after overrides)", "zh": "生效分数（含人工修改）"},
    "override_line": {
        "en": "{round} · {dimension}: judge {judge} → {human} ({reviewer}, {when}): {reason}",
        "zh": "{round} · {dimension}：模型 {judge} → {human}（{reviewer}，{when}）：{reason}",
    },
    # per-answer insight, the round-finished banner, the conversation
    "insight_title": {"en": "What this answer showed", "zh": "这次回答体现了什么"},
    "insight_covered": {"en": "Covered by this answer", "zh": "本次回答覆盖了"},
    "insight_none": {
        "en": "Nothing new from the expected items in this answer.",
        "zh": "本次回答没有覆盖新的期望要点。",
    },
    "insight_lacks": {
        "en": "The round still lacks ({n} of {total})",
        "zh": "本轮仍缺少（{total} 项中的 {n} 项）",
    },
    "insight_lacked": {
        "en": "The round ended without ({n} of {total})",
        "zh": "本轮结束时仍缺少（{total} 项中的 {n} 项）",
    },
    "insight_all": {"en": "Every expected item of the round is covered.", "zh": "本轮的期望要点已全部覆盖。"},
    "insight_next": {"en": "Next: {label}", "zh": "接下来：{label}"},
    "followup_of": {"en": "Follow-up {k} of {n}", "zh": "追问 {k}/{n}"},
    "followup_plain": {"en": "Follow-up", "zh": "追问"},
    "given_label": {"en": "The inputs you asked for", "zh": "你问到的题设"},
    "project_question": {"en": "Question {k} of {n}", "zh": "第 {k}/{n} 题"},
    "round_finished": {"en": "Round finished: {title} — {total}/25", "zh": "本轮结束：{title} — {total}/25"},
    "round_finished_last": {
        "en": "That was the last round: the full report is below.",
        "zh": "这是最后一轮，完整报告见下方。",
    },
    "continue": {"en": "Continue to the next round", "zh": "进入下一轮"},
    "round_held": {
        "en": "Round finished. Read your scores above, then continue when you are ready.",
        "zh": "本轮已结束。请先看上方的得分，准备好后再进入下一轮。",
    },
    "dim_note": {
        "en": "Showed {covered} of {total} things expected here.",
        "zh": "覆盖了 {total} 项期望要点中的 {covered} 项。",
    },
    "dim_note_missing": {"en": "Next time add: {item}", "zh": "下次补充：{item}"},
    "dim_note_all": {"en": "Everything expected here is in the answer.", "zh": "这一项期望的内容都有了。"},
    "no_quote": {"en": "no quote", "zh": "无引用"},
    "conversation": {"en": "The conversation so far", "zh": "目前的对话"},
    "you": {"en": "You", "zh": "你"},
    "candidate": {"en": "Candidate", "zh": "候选人"},
    "transcript_heading": {"en": "Transcript", "zh": "完整记录"},
    "earlier_attempt": {"en": "Earlier attempt, retried", "zh": "上一次作答（已重答）"},
    "interviewer": {"en": "Interviewer", "zh": "面试官"},
    "flag_meanings": {"en": "What the flags mean", "zh": "标记的含义"},
    # delivery figures of a spoken answer (agent/voice/delivery.py), beside its insight
    "delivery_title": {"en": "How you spoke", "zh": "表达情况"},
    "delivery_not_scored": {
        "en": "Delivery, from the recording's timing: not part of the five content scores.",
        "zh": "这些是根据录音时间计算的表达数据，不计入五个维度的内容评分。",
    },
    "delivery_rate": {"en": "Pace", "zh": "语速"},
    "delivery_rate_value": {
        "en": "{rate:.0f} {unit} a minute over {seconds:.0f} s of speech",
        "zh": "每分钟 {rate:.0f} {unit}（说话 {seconds:.0f} 秒）",
    },
    "delivery_unit_words": {"en": "words", "zh": "词"},
    "delivery_unit_characters": {"en": "characters", "zh": "字"},
    "delivery_fast": {
        "en": "fast: above about {fast:.0f} {unit} a minute is hard to follow; slow down for the key points",
        "zh": "偏快：超过每分钟约 {fast:.0f} {unit}就不容易听清，讲关键点时放慢一些",
    },
    "delivery_slow": {
        "en": "slow: below about {slow:.0f} {unit} a minute; a little faster keeps the listener with you",
        "zh": "偏慢：低于每分钟约 {slow:.0f} {unit}，稍快一些更能抓住听者",
    },
    "delivery_steady": {
        "en": "steady: about {slow:.0f}–{fast:.0f} {unit} a minute is easy to follow",
        "zh": "适中：每分钟约 {slow:.0f}–{fast:.0f} {unit}容易听清",
    },
    "delivery_too_short": {
        "en": "too short to measure",
        "zh": "回答太短，无法计算",
    },
    "delivery_fillers": {"en": "Filler words", "zh": "口头禅"},
    "delivery_fillers_none": {"en": "none heard", "zh": "没有听到"},
    "delivery_fillers_value": {"en": "{n} ({which})", "zh": "{n} 次（{which}）"},
    "delivery_fillers_rate": {"en": "{per_min:.1f} a minute", "zh": "每分钟 {per_min:.1f} 次"},
    "delivery_fillers_many": {
        "en": "frequent: a short silence works better than a filler",
        "zh": "偏多：停顿一下比说口头禅更好",
    },
    "delivery_fillers_en_note": {
        "en": "the transcriber leaves out many “um” and “uh”, so this may be lower than what you said",
        "zh": "转写时常会略去英文的 “um”“uh”，实际次数可能更多",
    },
    "delivery_pauses": {"en": "Long pauses ({s:.0f} s or more)", "zh": "长停顿（{s:.0f} 秒及以上）"},
    "delivery_pauses_none": {"en": "none", "zh": "没有"},
    "delivery_pauses_value": {
        "en": "{n}, the longest {longest:.1f} s: a pause to think is fine; say so (“let me think”) so "
        "the silence reads as thought",
        "zh": "{n} 次，最长 {longest:.1f} 秒：思考时停顿没关系，可以先说一句“我想一下”",
    },
    "delivery_pauses_unknown": {
        "en": "not measured: the transcriber gave no timestamps",
        "zh": "无法计算：转写服务没有提供时间戳",
    },
}


def t(key: str, lang: Lang, **fields: object) -> str:
    """The text for `key` in `lang`, with `fields` filled in."""
    text = STRINGS[key][lang]
    return text.format(**fields) if fields else text
