"""A server process seen from outside: whether it has exited, waiting for it to, stopping and killing it.

Why a module of its own: the embedded server's lifecycle (`embedded_server`) stops servers in several ways (a
polite SIGTERM that saves, SIGKILL for one that cannot act on it) and these steps are the same in each.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil

#: How long a stopping server may take before it is killed, and a killed one before it is taken for gone.
STOP_WAIT_S = 15.0


def exited(pid: int) -> bool:
    """Gone, or a zombie nobody has reaped yet (it holds no files and serves nothing)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def wait_exit(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not exited(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def stop_pid(pid: int) -> None:
    """SIGTERM (the server saves), then SIGKILL if it has not gone within STOP_WAIT_S."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGTERM)
        if not wait_exit(pid, STOP_WAIT_S):
            kill_pid(pid)


def kill_pid(pid: int) -> None:
    """SIGKILL, for a server that cannot act on SIGTERM (deadlocked, or past a deadline), and wait until it is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)
    wait_exit(pid, STOP_WAIT_S)
