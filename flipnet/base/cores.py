"""The cores this process may use: what a default number of workers is sized to.

`os.cpu_count()` counts the machine's cores, not the process's: a job under `taskset`,
Slurm or a container limited by a CPU quota gets fewer, and as many threads as the
machine has cores would then take turns on the few it has. So the count is the CPU
affinity (the cores the process may run on), lowered by a cgroup quota (v2
`cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) rounded up.
"""

import math
import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def usable_cores(cgroup=CGROUP):
    """The cores this process may use: its affinity, capped by its cgroup's CPU quota; 1 at least."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS and Windows have no affinity call
        cores = os.cpu_count() or 1
    quota = cgroup_quota(cgroup)
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def cgroup_quota(cgroup=CGROUP):
    """The CPU quota of the process's cgroup in cores (1.5: one and a half), or None
    where none is set or none can be read."""
    v2 = _read(cgroup / "cpu.max")
    if v2 is not None:
        quota, _, period = v2.partition(" ")
        return None if quota == "max" else _ratio(quota, period)
    quota, period = _read(cgroup / "cpu" / "cpu.cfs_quota_us"), _read(cgroup / "cpu" / "cpu.cfs_period_us")
    if quota is None or quota.startswith("-"):
        return None
    return _ratio(quota, period)


def _read(path):
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _ratio(quota, period):
    try:
        quota, period = int(quota), int(period)
    except (TypeError, ValueError):
        return None
    return quota / period if quota > 0 and period > 0 else None


MAX_SEARCH_WORKERS = 256  # threads of one search: past the cores they only take turns


def check_search_workers(workers, flag="workers"):
    """Refuse a number of search threads outside 1..MAX_SEARCH_WORKERS, in one line."""
    from flipnet.base.errors import BadInput

    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_SEARCH_WORKERS:
        raise BadInput(f"{flag} must be a whole number in 1..{MAX_SEARCH_WORKERS} (threads of the search; "
                       f"this machine lets the process use {usable_cores()} cores), got {workers!r}")
    return workers
