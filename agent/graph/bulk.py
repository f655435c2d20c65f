"""Bulk grading in a worker process, so a large upload never holds the app's GIL.

Grading a whole transcript (a report or transcript uploaded to Review, a stored session without its
report) is `grade_with_graph`, pure Python for seconds on end: in the app's own process it slows every
other user's answer. `grade_in_worker` runs the same call in one worker process of the app (spawned,
not forked: the app's threads and open connections stay behind), one upload at a time, and returns
the same report. The worker is started on first use and kept; it grades with the environment of the
call (judge URL, model, data dir), so it scores as the app would.

If the worker dies mid-grade (killed, out of memory, a crash in native code), that call raises
`GradingWorkerError`: the upload is not graded, nothing stored is touched (grading writes nothing), and
the next call starts a fresh worker. An error grading raises (a bad transcript, a judge that cannot
grade) comes back as the same exception. The worker ends with the app: at exit, and within a second of
the app dying any other way (SIGKILL included), by watching its parent pid.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from agent.contracts.report import Report
from agent.contracts.transcript import Transcript
from agent.graph.errors import SessionError

PARENT_POLL_S = 0.5


class GradingWorkerError(SessionError):
    """The worker process stopped before it finished grading: that upload is not graded, nothing else
    is lost, and the next upload gets a fresh worker."""


class GradingError(SessionError):
    """An error in the worker whose own exception could not be sent back (its type and message)."""


class GradingWorker:
    """One spawned process that grades transcripts one at a time (`grade`); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None

    @property
    def pid(self) -> int | None:
        """The worker's pid while it runs (None before the first grade or after `close`)."""
        p = self._proc
        return p.pid if p is not None and p.is_alive() else None

    def grade(self, transcript: Transcript) -> Report:
        """`grade_with_graph(transcript)` in the worker process."""
        with self._lock:
            proc, conn = self._started()
            try:
                conn.send((_judge_env(), transcript))
                # the answer, or the worker's end: whichever comes first
                multiprocessing.connection.wait([conn, proc.sentinel])
                if not conn.poll():
                    raise EOFError
                ok, value = conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError) as e:
                code = self._stop(proc, conn)
                raise GradingWorkerError(
                    f"the grading worker stopped before it finished ({_exit_text(code)}): nothing "
                    "was graded or stored; try again, or split a very large file"
                ) from e
            if ok:
                return value
            raise value

    def close(self) -> None:
        """Stop the worker (a later `grade` starts another)."""
        with self._lock:
            if self._proc is not None and self._conn is not None:
                self._stop(self._proc, self._conn)

    def _started(self) -> tuple[BaseProcess, Connection]:
        if self._proc is not None and self._conn is not None and self._proc.is_alive():
            return self._proc, self._conn
        if self._proc is not None and self._conn is not None:
            self._stop(self._proc, self._conn)
        ctx = multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(
            target=_serve, args=(theirs, os.getpid()), name="coach-grading-worker", daemon=True
        )
        proc.start()
        theirs.close()  # only the worker holds its end: the worker sees EOF when this process goes
        self._proc, self._conn = proc, mine
        return proc, mine

    def _stop(self, proc: BaseProcess, conn: Connection) -> int | None:
        conn.close()
        if proc.is_alive():
            proc.kill()
        proc.join(10)
        self._proc = self._conn = None
        return proc.exitcode


def _judge_env() -> dict[str, str]:
    return dict(os.environ)


def _exit_text(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(0)


def _serve(conn: Connection, parent: int) -> None:
    """The worker's loop: (environment, transcript) in, (True, report) or (False, exception) out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the app, which stops this process
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    from agent.graph.session import grade_with_graph

    while True:
        try:
            env, transcript = conn.recv()
        except (EOFError, OSError):
            return
        os.environ.clear()
        os.environ.update(env)
        result: tuple[bool, Any]
        try:
            result = (True, grade_with_graph(transcript))
        except Exception as e:  # sent back to the caller, raised there
            result = (False, _sendable(e))
        try:
            conn.send(result)
        except (EOFError, OSError):
            return


def _sendable(e: Exception) -> Exception:
    try:
        pickle.loads(pickle.dumps(e))
    except Exception:
        return GradingError(f"{type(e).__name__}: {e}")
    return e


_DEFAULT = GradingWorker()


def grade_in_worker(transcript: Transcript) -> Report:
    """`grade_with_graph(transcript)` in this process's grading worker (see the module's docstring)."""
    return _DEFAULT.grade(transcript)


def default_worker() -> GradingWorker:
    return _DEFAULT
