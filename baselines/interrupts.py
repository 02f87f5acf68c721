"""Ctrl-C around checkpoint writes: a save that a second Ctrl-C cuts short leaves no usable file.

The trainer and the league share these (one source for both): ignore SIGINT while the final save
runs, or block it so that a Ctrl-C stays pending until the caller is ready for it. Signal handlers
and masks can only be set on the main thread; elsewhere every function here does nothing.
"""

from __future__ import annotations

import signal
import threading
from typing import Any


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def ignore_sigint(hold: bool = False) -> Any:
    """Ignore SIGINT from now on; return the handler to restore (None off the main thread). ``hold``:
    block it instead (:func:`hold_sigint`), so that a Ctrl-C stays pending for the caller to release."""
    if not _on_main_thread():
        return None
    if hold and hasattr(signal, "pthread_sigmask"):
        hold_sigint()
        return None
    return signal.signal(signal.SIGINT, signal.SIG_IGN)


def hold_sigint() -> None:
    """Block SIGINT: a Ctrl-C now stays pending (not lost) until :func:`release_sigint`."""
    if hasattr(signal, "pthread_sigmask") and _on_main_thread():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def release_sigint() -> None:
    """Unblock SIGINT: a Ctrl-C held meanwhile is raised now (KeyboardInterrupt)."""
    if hasattr(signal, "pthread_sigmask") and _on_main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def restore_sigint(handler: Any) -> None:
    """Put back a handler :func:`ignore_sigint` returned (nothing to do for None)."""
    if handler is not None:
        signal.signal(signal.SIGINT, handler)
