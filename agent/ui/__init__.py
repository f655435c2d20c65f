"""The Gradio app: practice (text and voice), interviewer co-pilot, review with overrides, reports.

`python -m agent.ui --host 127.0.0.1 --port 7860`; see `agent.ui.main`.
"""

from agent.ui.app import Services, build_app
from agent.ui.main import main

__all__ = ["Services", "build_app", "main"]
