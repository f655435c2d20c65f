"""The interview graph: one LangGraph StateGraph for practice, co-pilot and grading.

    open_round ─▶ wait ─▶ record ─┬─▶ assess ─▶ choose ─┬─▶ wait            (follow-up, given input)
        ▲          ▲               ├─▶ wait             └─▶ score_round ─▶ open_round
        │          └───────────────┤   (interviewer turn)
        │                          ├─▶ score_round      (co-pilot closes, grade replay ends a round)
        │                          └─▶ final_report     (candidate's own questions answered)
        └─ open_round ─▶ final_report ─▶ END            (no round left)

`wait` is the only node that interrupts (practice and co-pilot); in grade mode it replays the next
recorded turn instead, so a recorded transcript goes through the same record / score nodes with
no interrupt at all. With the SQLite checkpointer every node's result is saved before the next
node starts (`durability="sync"`): the answer is on disk before it is assessed.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.graph import nodes
from agent.graph.state import GraphContext, InterviewState

Graph = CompiledStateGraph[InterviewState, GraphContext, InterviewState, InterviewState]


def _route(state: InterviewState) -> str:
    return state["route"]


def build(checkpointer: BaseCheckpointSaver[Any] | None = None) -> Graph:
    g: StateGraph[InterviewState, GraphContext, InterviewState, InterviewState] = StateGraph(
        InterviewState, context_schema=GraphContext
    )
    g.add_node("open_round", nodes.open_round)
    g.add_node("wait", nodes.wait)
    g.add_node("record", nodes.record)
    g.add_node("assess", nodes.assess)
    g.add_node("choose", nodes.choose)
    g.add_node("score_round", nodes.score_round)
    g.add_node("final_report", nodes.final_report)
    g.add_edge(START, "open_round")
    g.add_conditional_edges("open_round", _route, {"wait": "wait", "report": "final_report"})
    g.add_edge("wait", "record")
    g.add_conditional_edges(
        "record",
        _route,
        {"assess": "assess", "wait": "wait", "score": "score_round", "report": "final_report"},
    )
    g.add_edge("assess", "choose")
    g.add_conditional_edges("choose", _route, {"wait": "wait", "score": "score_round"})
    g.add_edge("score_round", "open_round")
    g.add_edge("final_report", END)
    return g.compile(checkpointer=checkpointer)
