"""Child processes that die with their parent.

A parse worker or the explorer's SQL worker must not outlive the process that started it:
when the parent is killed (SIGKILL, the OOM killer) nobody would stop it, and it would go on
parsing or querying for nothing. On Linux the child asks the kernel for SIGKILL when its
parent thread exits (prctl PR_SET_PDEATHSIG); elsewhere a daemon thread polls the parent's
pid and exits the child when it changes."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0


def die_with_parent(parent: int | None = None) -> None:
    """Call first thing in a child process: it is killed when its parent dies. parent: the
    pid the parent had when it started the child (os.getpid() there), so that a parent that
    died before this call is noticed too; None: the current parent.

    Linux sends the signal when the parent *thread* that started the child ends: start such
    children from a thread that lives as long as they should (the main thread)."""
    parent = os.getppid() if parent is None else parent
    if os.getppid() != parent:
        os._exit(1)
    if sys.platform.startswith("linux") and _prctl_deathsig():
        # The parent may have died between the check above and prctl: no signal would come.
        if os.getppid() != parent:
            os._exit(1)
        return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="die-with-parent").start()


def _prctl_deathsig() -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)
