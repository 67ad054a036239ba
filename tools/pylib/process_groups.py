"""Stopping a child process that leads its own process group, and everything in that group.

Shared by the Python drivers (tern-benchmarks/scripts/bench_compare.py,
tern-interop/peers/run_matrix.py), which start their servers and load generators with
subprocess.Popen(..., start_new_session=True) so that one signal reaches the process and all of
its children. Standard library only. The drivers put this folder on sys.path to import it.
"""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Optional


def stop_process_group(
    process: subprocess.Popen, term_wait_s: float, kill_wait_s: Optional[float] = None
) -> None:
    """SIGTERMs the group led by `process`, waits up to `term_wait_s` for the leader, then SIGKILLs.

    Does nothing if the leader has already exited. After SIGKILL it waits `kill_wait_s` seconds for
    the leader (None: as long as it takes). A group that vanished before the SIGTERM is not an
    error.
    """
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=term_wait_s)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=kill_wait_s)
