"""Let teardown finish.

A second Ctrl-C in the middle of removing a lab would leave half of it behind; so while
wirespeed undoes its changes, SIGINT and SIGTERM are held and delivered right after.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

HELD = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    # Signal handlers can only be set from the main thread; elsewhere there is nothing to hold.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in HELD}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if pending:
            os.kill(os.getpid(), pending[0])  # now the original handler raises it
