"""The interview language a switch of the interface sets (`shared.interview_language`): unit level; the browser
flow is tests/ui/test_session_language.py."""

from __future__ import annotations

from typing import Any

import pytest

from agent.ui.tabs.shared import interview_language


@pytest.mark.parametrize(
    ("picked", "state", "follows"),
    [
        (False, None, True),  # nothing on screen
        (False, {"sid": "s1", "status": "waiting"}, False),  # a session under way keeps its own
        (False, {"sid": "s1", "status": "done"}, True),  # issue 12: a finished one kept it for the next
        (True, None, False),  # picked by hand
        (True, {"sid": "s1", "status": "done"}, False),
    ],
)
def test_the_interview_language_follows_the_interface_unless_picked_or_under_way(
    picked: bool, state: dict[str, Any] | None, follows: bool
) -> None:
    update = interview_language("zh", picked, state)
    assert (update.get("value") == "zh") if follows else ("value" not in update), update
