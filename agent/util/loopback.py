"""Requests to this machine's own addresses go straight to them, never through a proxy.

An HTTP proxy named in the environment (HTTP_PROXY, ALL_PROXY) is honoured by httpx, urllib and the OpenAI
client, for every address NO_PROXY does not list. Where it is set and NO_PROXY is not (many company
machines), the app's own look at its page, the judge on 127.0.0.1 and a local index would all be sent to the
proxy, which cannot reach them: Gradio's start-up call to its own page waited forever and no button ever
answered. The entry points add the loopback names, and the address the app binds, to NO_PROXY.

Standard library only, like the rest of agent.util.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, MutableMapping

LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("", "0.0.0.0", "::")
"""Bind addresses that are no one host: the app is reached on loopback there."""


def direct_to_loopback(extra: Iterable[str] = (), env: MutableMapping[str, str] | None = None) -> list[str]:
    """Add the loopback names and `extra` hosts (wildcard bind addresses left out) to NO_PROXY and no_proxy
    in `env` (the process environment by default), keeping what they held. Returns the hosts added."""
    env = os.environ if env is None else env
    want = [*LOOPBACK, *(h for h in extra if h not in WILDCARDS and h not in LOOPBACK)]
    added: list[str] = []
    for name in ("NO_PROXY", "no_proxy"):
        held = [h.strip() for h in env.get(name, "").split(",") if h.strip()]
        if "*" in held:  # nothing goes through the proxy already
            continue
        new = [h for h in want if h not in held]
        env[name] = ",".join([*held, *new])
        added.extend(h for h in new if h not in added)
    return added
