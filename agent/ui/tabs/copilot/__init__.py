"""The Co-pilot tab, for a human interviewer: a plan (with the self-check round added after it when its box
is ticked, as in Practice), the candidate's answers recorded, suggested follow-ups with the evidence they
target, draft scores to accept or override.

- `tab.py`: the tab's components and events (`build`)
- `sessions.py`: Start (a redo of a session of the interviewer's), Resume and the unfinished sessions
- `turns.py`: Save answer, Ask, Close the round, a suggested follow-up picked
- `decisions.py`: Accept the draft score, Save override, and what their buttons say
- `screen.py`: what the tab shows of a session (`copilot_out`) and renders again on a language switch
"""

from agent.ui.tabs.copilot.tab import build

__all__ = ["build"]
