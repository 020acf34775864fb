"""Where a result came from: the flipnet version and commit that made it, and the CPU it
ran on (a network's weights are bit-for-bit the same on the same kind of CPU only).

A run's results carry this record, and the manifest of the shipped models copies it, so
a figure can always be traced to the code that produced it.
"""

import datetime
import importlib.metadata
import platform
import subprocess
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def commit():
    """The checkout's commit, with '+changes' when flipnet's files differ from it; None
    outside a git checkout (an installed copy)."""
    def git(*args):
        done = subprocess.run(["git", "-C", str(PACKAGE.parent), *args], capture_output=True,
                              text=True, timeout=30)
        return done.stdout.strip() if done.returncode == 0 else None

    try:
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", str(PACKAGE))
    except (OSError, subprocess.SubprocessError):
        return None
    if head is None:
        return None
    return head + ("+changes" if changed else "")


def cpu():
    """The CPU's model name as the kernel reports it (platform's guess elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def version():
    """flipnet's version as installed (None when it runs from a copy pip never installed)."""
    try:
        return importlib.metadata.version("flipnet")
    except importlib.metadata.PackageNotFoundError:
        return None


def provenance():
    """The record of who made a result: version, commit, CPU, Python and the date."""
    return {"flipnet": version(), "commit": commit(), "cpu": cpu(),
            "python": platform.python_version(), "date": datetime.date.today().isoformat()}
