"""The Practice tab: a mock interview, the question shown and spoken, the answer typed or recorded, the
round's progress and clock, the insight after each answer, the round-finished banner, the scores.

- `tab.py`: the tab's components and events (`build`)
- `sessions.py`: Start, Resume, the unfinished sessions, the session restored on reload
- `answers.py`: Send (typed or transcribed, with a spoken answer's delivery), Finish this round, Continue
- `retry.py`: Retry this answer
- `screen.py`: what the tab shows of a session (`practice_out`) and renders again on a language switch
- `speech.py`: the question spoken
"""

from agent.ui.tabs.practice.tab import build

__all__ = ["build"]
