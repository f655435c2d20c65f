"""Retry after a reload compares with what the earlier attempt really covered (a blind tester saw "0 → 14":
the page's memory of the last answer's items was gone after the reload, so the comparison started from 0)."""

from __future__ import annotations

from types import SimpleNamespace

from agent.ui.context import AppContext
from agent.ui.tabs.practice import answers, retry, sessions

FIRST = (
    "Paged KV maps logical token positions to non-contiguous physical blocks allocated on demand; the tail "
    "block wastes a little and the block table is metadata."
)
BETTER = FIRST + (
    " Continuous batching reschedules at every step boundary, bounded by the token budget and the KV blocks "
    "the manager can allocate. Prefix caching hashes full blocks as a chain with extra keys and reuses KV."
)




def test_retry_after_a_reload_compares_with_the_earlier_attempt(ctx: AppContext) -> None:
    request = SimpleNamespace(username=None, session_hash="page-1")
    state = sessions.start_practice(ctx, "concepts", "en", "", {}, "en", "tab:me", request)[0]  # type: ignore[arg-type]
    live = answers.send_answer(ctx, FIRST, state, None, "en", "tab:me", request)[0]  # type: ignore[arg-type]
    assert live["mine"], "the first answer covers something"
    # the page is reloaded: a fresh browser state, the session read back from the store
    back = sessions.restore_practice(ctx, live["sid"], {}, "en", "tab:me", request)[0]  # type: ignore[arg-type]
    assert sorted(back["mine"]) == sorted(live["mine"])
    again = retry.start_retry(ctx, back, "en", "tab:me", request)[0]  # type: ignore[arg-type]
    assert again.get("retrying")
    done = answers.send_answer(ctx, BETTER, again, None, "en", "tab:me", request)[0]  # type: ignore[arg-type]
    assert sorted(done["insight"]["earlier"]) == sorted(live["mine"])
