"""Servers that die with their parent, even a parent killed with SIGKILL.

`JudgeServer.start()` first starts this watchdog as the leader of a new process group, then the vLLM
server in that group; `stop()` ends the group, watchdog included. If the process that started them
dies first, whatever the cause (a test run stopped by a timeout, SIGKILL, a crash), the watchdog
sees it and ends the group: SIGTERM, then SIGKILL after a grace period. Without it the server, in its
own group and reparented to init, would run on for good.

    python -m agent.judge.runtime.watchdog --parent PID [--grace S]

It notices at once on Linux, where the kernel sends it a parent-death signal (prctl
PR_SET_PDEATHSIG), and within `--poll` seconds elsewhere, by watching its parent pid change. The
signal also comes when only the *thread* that started it ends, so the watchdog acts on the parent
pid alone: a server started from a worker thread lives as long as its process.

`die_with_parent` gives the same to a process for itself (`python -m agent.judge.runtime` under
serve.sh): SIGTERM when its parent goes, by a thread that watches the parent pid.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

WATCHDOG_MODULE = "agent.judge.runtime.watchdog"
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
DEFAULT_GRACE_S = 5.0
DEFAULT_POLL_S = 0.5


def set_parent_death_signal(signum: int) -> bool:
    """Linux: have the kernel send `signum` to this process when its parent thread ends (prctl
    PR_SET_PDEATHSIG). False where there is no such call or it fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def group_members(pgid: int) -> list[int] | None:
    """Live (not zombie) processes of process group `pgid`, from /proc; None without /proc."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    members = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def end_own_group(grace: float) -> None:
    """SIGTERM to this process's group (it ignores it itself); once the others are gone, return, else
    after `grace` seconds SIGKILL the whole group, itself included."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pgid, me = os.getpgrp(), os.getpid()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        members = group_members(pgid)
        if members is not None and not [p for p in members if p != me]:
            return
        time.sleep(0.1)
    os.killpg(pgid, signal.SIGKILL)


class _ParentSignal(Exception):
    """The parent-death signal came (the parent thread ended; the parent process may live on)."""


def wait_for_parent_death(parent: int, poll: float = DEFAULT_POLL_S) -> None:
    """Return once `parent` is no longer this process's parent: it died (or was gone already)."""
    waiting = True

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        if waiting:  # wake the sleep below; once it has returned the signal changes nothing
            raise _ParentSignal

    signal.signal(signal.SIGUSR1, on_signal)
    set_parent_death_signal(signal.SIGUSR1)
    while True:
        try:
            while os.getppid() == parent:
                time.sleep(poll)
            waiting = False
            return
        except _ParentSignal:
            continue  # look at the parent pid again


def die_with_parent(poll: float = DEFAULT_POLL_S) -> None:
    """Send SIGTERM to this process within `poll` seconds of its parent process ending (its SIGTERM
    handler decides what that does): a daemon thread watches the parent pid. A process whose parent
    is already gone (pid 1) is left as it is."""
    parent = os.getppid()
    if parent == 1:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        print(f"[judge-runtime] parent process {parent} is gone: stopping", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {WATCHDOG_MODULE}",
        description="End this process group when process PARENT is no longer this one's parent.",
    )
    parser.add_argument("--parent", type=int, required=True, help="pid of the process that started it")
    parser.add_argument(
        "--grace", type=float, default=DEFAULT_GRACE_S, help="seconds from SIGTERM to SIGKILL"
    )
    parser.add_argument("--poll", type=float, default=DEFAULT_POLL_S)
    args = parser.parse_args(argv)
    wait_for_parent_death(args.parent, args.poll)
    print(
        f"[judge-watchdog] process {args.parent} that started this server is gone: ending process group "
        f"{os.getpgrp()}",
        file=sys.stderr,
        flush=True,
    )
    end_own_group(args.grace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
