"""What the tabs show, as Markdown, HTML and table rows: pure functions of the session and report data, one
module per thing shown.

- `text.py`: safe Markdown, the colon after a label, round and dimension titles, a clock
- `progress.py`: the round, its place in the session and its clock (`progress_html`)
- `scores.py`: a round's scores with why and quotes (`assessment_md`), the judge by name, a report's totals, a
  finished session's report (`finished_report_md`), source snippets, the co-pilot's suggestions
- `review.py`: Review's score rows (`review_html`) and the override log (`log_html`)
- `insight.py`: what an answer covered and what the round lacks (`insight_md`), the next question's kind
- `delivery.py`: a spoken answer's pace, fillers and pauses (`delivery_md`)
- `banner.py`: the round-finished banner (`round_banner_md`)
- `conversation.py`: the conversation so far (`conversation_md`) and the transcript export (`transcript_md`)

Callers use them through this package (`views.insight_md`).
"""

from agent.ui.views.banner import QUOTE_CHARS, dimension_note, distinct_quotes, round_banner_md
from agent.ui.views.conversation import conversation_md, transcript_md
from agent.ui.views.delivery import delivery_md
from agent.ui.views.insight import (
    answer_covered,
    counted_ids,
    covered_ids,
    expected_items,
    insight_md,
    not_asked_yet,
    question_kind,
    question_label,
)
from agent.ui.views.problems import problem_text, problems_text
from agent.ui.views.progress import progress_html
from agent.ui.views.review import LOG_HEADERS, log_html, review_html
from agent.ui.views.scores import (
    assessment_md,
    effective_md,
    finished_report_md,
    judge_line,
    judge_name,
    report_summary_md,
    snippets_md,
    suggestions_md,
)
from agent.ui.views.text import MISSING_SHOWN, clock, colon, cut, dim_title, round_title, safe_md

__all__ = [
    "LOG_HEADERS",
    "MISSING_SHOWN",
    "QUOTE_CHARS",
    "answer_covered",
    "assessment_md",
    "clock",
    "colon",
    "conversation_md",
    "counted_ids",
    "covered_ids",
    "cut",
    "delivery_md",
    "dim_title",
    "dimension_note",
    "distinct_quotes",
    "effective_md",
    "expected_items",
    "finished_report_md",
    "insight_md",
    "judge_line",
    "judge_name",
    "log_html",
    "not_asked_yet",
    "problem_text",
    "problems_text",
    "progress_html",
    "question_kind",
    "question_label",
    "report_summary_md",
    "review_html",
    "round_banner_md",
    "round_title",
    "safe_md",
    "snippets_md",
    "suggestions_md",
    "transcript_md",
]
