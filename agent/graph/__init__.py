"""The interview as a LangGraph state machine: practice, co-pilot and grading share one graph.

Public API (from `session.py`, `retry.py`, `clock.py` and `view.py`): start a session, answer, retry, ask
(co-pilot), look, list, grade.
"""

from agent.graph.clock import Rejoined, rejoin, start_round_clock
from agent.graph.errors import PlanError, SessionBusy, SessionError, SessionNotFound
from agent.graph.report import Comparison, FilledNarrative, SessionReport
from agent.graph.retry import retry_answer
from agent.graph.session import (
    answer,
    ask,
    close_round,
    find_session,
    get_session,
    grade_with_graph,
    list_sessions,
    start_session,
)
from agent.graph.view import SessionSummary, SessionView, Suggestion

__all__ = [
    "Comparison",
    "FilledNarrative",
    "PlanError",
    "Rejoined",
    "SessionBusy",
    "SessionError",
    "SessionNotFound",
    "SessionReport",
    "SessionSummary",
    "SessionView",
    "Suggestion",
    "answer",
    "ask",
    "close_round",
    "find_session",
    "get_session",
    "grade_with_graph",
    "list_sessions",
    "rejoin",
    "retry_answer",
    "start_round_clock",
    "start_session",
]
