"""Ctrl-C during an ingest: always noticed, never printed as a traceback, never mistaken for
a failure, and never taken halfway through publishing.

Python raises KeyboardInterrupt at whatever runs when SIGINT arrives, and three places would
lose it or misreport it:
- a finalizer (`__del__`; pyarrow's ParquetWriter closes itself there): Python prints
  "Exception ignored ... Traceback ... KeyboardInterrupt" and carries on as if the key had
  never been pressed. The unraisable hook below hands such an interrupt back to the main
  thread, where it is raised outside the finalizer.
- a DuckDB query: DuckDB takes the signal itself and raises RuntimeError("Query interrupted")
  or another error of its own, or (measured with DuckDB 2.0.1) clears it and runs the query
  to its end. `ctrl_c_pressed()` tells that error from a real failure, and
  `stop_if_ctrl_c()` stops the ingest at its next step when nothing was raised.
- publishing: once the new file is renamed into place, the index beside it must record it.
  `ctrl_c_held()` holds Ctrl-C back until that is done.
Parse workers ignore SIGINT from birth (`children_ignore_ctrl_c()`): the ingest stops them
itself."""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

REDELIVERY_DELAY_SECONDS = 0.01


class _CtrlC:
    """What this process has seen of Ctrl-C since ctrl_c_handled() began."""

    active = False  # inside ctrl_c_handled(), in the main thread
    pressed = False
    holding = False  # inside ctrl_c_held()

    def on_sigint(self, signum: int, frame: Any) -> None:
        self.pressed = True
        if not self.holding:
            raise KeyboardInterrupt


_STATE = _CtrlC()


def ctrl_c_pressed() -> bool:
    """True once Ctrl-C came during the current ctrl_c_handled() block: an error raised after
    it (DuckDB's "Query interrupted", say) is the interrupt, not a failure to report."""
    return _STATE.active and _STATE.pressed


def stop_if_ctrl_c() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came in the ctrl_c_handled() block, even though
    nothing raised it: DuckDB can take the signal, clear Python's KeyboardInterrupt and still
    run its query to the end. Called between the load's steps and before publishing."""
    if ctrl_c_pressed():
        raise KeyboardInterrupt


@contextmanager
def ctrl_c_handled() -> Iterator[None]:
    """Watch for Ctrl-C while the block runs (an ingest), and give back the SIGINT handler
    and unraisable hook a caller had (a notebook's, say) afterwards. Outside the main thread
    Python delivers no signal there: the block then runs with nothing changed."""
    if threading.current_thread() is not threading.main_thread() or _STATE.active:
        yield
        return
    previous_hook = sys.unraisablehook
    _STATE.active, _STATE.pressed = True, False
    previous_handler = signal.signal(signal.SIGINT, _STATE.on_sigint)
    sys.unraisablehook = _redeliver_interrupts(previous_hook)
    try:
        yield
    finally:
        _STATE.active = False
        _restore_sigint(previous_handler)
        sys.unraisablehook = previous_hook


@contextmanager
def ctrl_c_held() -> Iterator[Callable[[], bool]]:
    """Inside ctrl_c_handled(): Ctrl-C during the block is held back, not raised, so the block
    finishes. Yields a function saying whether one came; the caller decides what then."""
    if not _STATE.active:
        yield lambda: False
        return
    pressed_before = _STATE.pressed
    _STATE.holding = True
    try:
        yield lambda: _STATE.pressed and not pressed_before
    finally:
        _STATE.holding = False


@contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside the block ignore SIGINT from their first instruction: an
    ignored signal stays ignored across exec, and Python then leaves it so. (An initializer
    would come too late: a spawned worker imports the etl package before it runs one, and
    a Ctrl-C then printed a KeyboardInterrupt traceback from the middle of an import.) The
    block is kept short, starting processes only: a Ctrl-C in it is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        _restore_sigint(previous)


def _restore_sigint(previous: Any) -> None:
    """Put back what signal.signal() returned (None: a handler set outside Python)."""
    signal.signal(signal.SIGINT, previous if previous is not None
                  else signal.default_int_handler)


def _interrupt_main_soon() -> None:
    time.sleep(REDELIVERY_DELAY_SECONDS)
    _thread.interrupt_main()


def _redeliver_interrupts(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # Later and from another thread: called here, it would be raised inside this
            # hook. The main thread takes it at its next bytecode once the finalizer has
            # returned (should it land in one again, this hook hands it on again).
            _thread.start_new_thread(_interrupt_main_soon, ())
            return
        previous(unraisable)

    return hook


# Tests name a point of the ingest here to have it killed there (SIGKILL, as the OOM killer
# or a power cut would): tests/pipeline/test_publish.py proves the previous database survives
# a crash at each. Unset (always, outside those tests) it costs one dictionary lookup.
CRASH_AT_ENV = "ETL_CRASH_AT"


def crash_point(name: str) -> None:
    """Die here, at once and without cleaning up, when the environment asks for it."""
    if os.environ.get(CRASH_AT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)
