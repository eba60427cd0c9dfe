"""A child process ends with its parent, however the parent dies (``kill -9`` included):
the bots' pool workers (`service.workers.thinking`) and ``doko serve --workers``' workers
(`service.edge.shutdown`) would otherwise live on, handed to init, holding memory and, for
a worker, the listening socket.

Two ways, each enough alone: on Linux the kernel sends the child SIGKILL when its parent
dies (``prctl(PR_SET_PDEATHSIG)``; strictly, when the parent's thread that started the child
ends: the event loop's thread, which lives as long as the process serves), and a thread of
the child looks every `WATCH_SECONDS` whether its parent is still its parent (elsewhere, or
should the signal be missed), ending the child once it is not.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

WATCH_SECONDS = 1.0
"""How often a child's thread looks whether its parent is still its parent."""
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal the process gets when its parent dies."""


def _die_with_parent() -> None:
    """Ask the kernel (Linux) for SIGKILL when the parent process dies; elsewhere, nothing."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _watch(parent: int, seconds: float) -> None:
    """End this process once ``parent`` is no longer its parent (it died: the process was
    handed to another)."""
    while os.getppid() == parent:
        time.sleep(seconds)
    os._exit(1)


def watch_parent(parent: int, seconds: float = WATCH_SECONDS) -> None:
    """This process ends when ``parent`` (the process that started it) dies, however it dies
    (module docstring): the kernel's signal, and a thread that looks every ``seconds``. A
    parent that died before the signal was asked for is seen at once."""
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, seconds), name="parent", daemon=True).start()
