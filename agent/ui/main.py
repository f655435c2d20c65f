"""`python -m agent.ui [--host H] [--port P]` and `python -m agent.ui --add-user NAME [--reviewer]`.

Safe defaults: binds 127.0.0.1. Any other host needs users (INTERVIEW_USERS or
`<data dir>/users.txt`); without them the app refuses to start.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent.ui.auth import (
    AuthError,
    ClientAddressMiddleware,
    LoginThrottle,
    add_reviewer,
    add_user,
    is_loopback,
    load_users,
    make_auth,
    users_path,
)
from agent.util.loopback import direct_to_loopback

if TYPE_CHECKING:
    import gradio as gr

MAX_FILE_SIZE = "50mb"
ANALYTICS_EVERY = 100
"""Gradio sums up the events it keeps (up to 10,000, in a pandas DataFrame) for the timings on the API page;
by default after every event, which cost each event 2 ms at first and 7 ms once 10,000 are kept: once
every this many events is enough (`GRADIO_ANALYTICS_CACHE_FREQUENCY`, which an operator may still set)."""
AUTH_MESSAGE = (
    "vLLM Interview Coach. After 5 failed sign-ins for a name or from an address, each further try "
    "waits longer (1 s, 2 s, 4 s, … at most 5 minutes); the login page then says only that the "
    "credentials were refused."
)


def launch_kwargs(
    host: str, port: int | None, users: Mapping[str, str], *, throttle: LoginThrottle | None = None
) -> dict[str, Any]:
    """`gr.Blocks.launch` arguments. With users: a login, throttled per name and address (`throttle`,
    a fresh `LoginThrottle` by default), the address taken by `ClientAddressMiddleware`."""
    from starlette.middleware import Middleware

    from agent.ui import assets

    return {
        # Gradio's look at its own page once it runs (3 s, then "localhost is not accessible" and the app
        # stops) is left out: it failed on a busy machine; serve.sh and deploy/team.sh wait for the page.
        "_frontend": False,
        "server_name": host,
        "server_port": port,
        "auth": make_auth(users, throttle) if users else None,
        "app_kwargs": {"middleware": [Middleware(ClientAddressMiddleware)]} if users else None,
        "auth_message": AUTH_MESSAGE if users else None,
        "max_file_size": MAX_FILE_SIZE,
        "css": assets.css(),
        "head": assets.head(),
        "footer_links": ["api"],
        "i18n": assets.gradio_i18n(),
    }


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agent.ui", description="vLLM Interview Coach: the Gradio app")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others need users)"
    )
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="the interface language at start")
    p.add_argument(
        "--add-user", metavar="NAME", help="add a user to <data dir>/users.txt (password from stdin)"
    )
    p.add_argument(
        "--reviewer",
        action="store_true",
        help="with --add-user: the user may also review (override) other users' sessions "
        "(<data dir>/reviewers.txt; or INTERVIEW_REVIEWERS=name,name)",
    )
    return p


def _migrate_on_start() -> None:
    """With the shared database (INTERVIEW_DATABASE_URL): check its schema is up to date before serving, reading
    only; a schema behind this code is migrated when the app's role may (replicas starting at once take turns),
    else the app exits saying to run `interview db migrate --url <owner URL>`."""
    from agent import db

    try:
        url = db.database_url()
        if url:
            from agent.db.migrate import ensure

            ensure(url)
    except db.DatabaseError as e:
        sys.exit(f"error: {e}")


def queued(app: gr.Blocks) -> gr.Blocks:
    """`app` with its queue: four events at a time, the API page's timings summed up every
    `ANALYTICS_EVERY` events."""
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(ANALYTICS_EVERY))
    app.queue(default_concurrency_limit=4)
    return app


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    if args.add_user:
        password = (
            getpass.getpass(f"password for {args.add_user}: ") if sys.stdin.isatty() else sys.stdin.readline()
        )
        try:
            path = add_user(args.add_user, password.rstrip("\n"))
            if args.reviewer:
                print(f"{args.add_user} is a reviewer ({add_reviewer(args.add_user)})")
        except AuthError as e:
            sys.exit(f"error: {e}")
        print(f"added {args.add_user} to {path}")
        return
    if args.reviewer:
        sys.exit("error: --reviewer goes with --add-user NAME")
    direct_to_loopback([args.host])
    _migrate_on_start()
    try:
        users = load_users()
    except AuthError as e:
        sys.exit(f"error: {e}")
    if not is_loopback(args.host) and not users:
        sys.exit(
            f"error: refusing to listen on {args.host} without a login. Add users with "
            f"`python -m agent.ui --add-user NAME` ({users_path()}) or INTERVIEW_USERS='name:password', "
            "or bind 127.0.0.1."
        )
    from agent.ui.app import Services, build_app
    from agent.ui.sources import warm_sources

    warm_sources()  # the source index loads while the page is opened, not on the first answer
    app = queued(build_app(Services(require_login=bool(users), users=users), ui_lang=args.lang))
    launch: Any = app.launch
    launch(**launch_kwargs(args.host, args.port, users))


if __name__ == "__main__":
    main()
