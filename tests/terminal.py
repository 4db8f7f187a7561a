"""Children that a test stops with Ctrl-C start as a terminal starts a foreground command:
SIGINT at its default, not blocked.

A process passes on to its children a SIGINT it ignores or blocks, and a Python child keeps
it so (an ignored SIGINT stays ignored). A test that sends SIGINT to a child it started
would then wait for nothing, whatever the product does; tests/conftest.py fails any test
that leaves SIGINT so, and this makes the children of the Ctrl-C tests independent of it."""

from __future__ import annotations

import sys

_PRELUDE = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
            "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
            "os.execv(sys.argv[1], sys.argv[1:])")


def as_from_a_terminal(argv: list[str]) -> list[str]:
    """argv (a program's path first), run by exec from a prelude that resets SIGINT: the
    process the test starts becomes argv's program, same pid, ready for Ctrl-C."""
    return [sys.executable, "-c", _PRELUDE, *argv]
