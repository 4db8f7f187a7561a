"""Ctrl-C that lands inside a finalizer is delivered, not printed and lost.

Python raises KeyboardInterrupt at whatever bytecode runs when SIGINT arrives. When that is
an object's `__del__` (pyarrow's ParquetWriter closes itself there), Python cannot raise it:
it prints "Exception ignored in ... Traceback ... KeyboardInterrupt" and carries on as if
the key had never been pressed. An ingest would then print a traceback and, worse, keep
going. The hook below hands such an interrupt back to the main thread, where it is raised
outside the finalizer and handled like any other Ctrl-C. (Parse workers ignore Ctrl-C:
see etl.stage.)"""

from __future__ import annotations

import _thread
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

REDELIVERY_DELAY_SECONDS = 0.01


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


@contextmanager
def interrupts_redelivered() -> Iterator[None]:
    """While the block runs, interrupts in finalizers are re-raised; the hook a caller had
    (a notebook's, say) is restored afterwards."""
    previous = sys.unraisablehook
    sys.unraisablehook = _redeliver_interrupts(previous)
    try:
        yield
    finally:
        sys.unraisablehook = previous
