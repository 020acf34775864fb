"""igsolve, the peer Cram solver (Beling and Rogalski), run at its best beside flipnet.

Its best, as read from its options and measured (docs/cram.md): its endgame database
(`--edb_segments`), built once per board and kept, of boards `EDB_CELLS` cells at most,
as flipnet's 32-cell set (which the bench reads where the cache holds it, else the 30-cell
one); its own pruning (set pruning with aspiration, its default); its succinct table
(the default past 40 cells) at `TABLE_GB`, the size its largest boards here need. The database is built before the timing, in a run stopped once its search
begins, so the timed run reads it from its folder as a later question would.
"""

import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

EDB_CELLS = 32  # one slice of igsolve's database: 2^32 positions of rows x its columns
TABLE_GB = 1  # 4 GB measured slower on 4x11 and 5x9 (docs/cram.md), 1 holds what they store
SEGMENTS = 16  # slices built at most; boards of up to EDB_CELLS cells need one
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def options(rows, cols):
    """igsolve's arguments for a full rows x cols board, its fewer rows first: its
    database holds positions of the board's rows by `--edb-cols` of its columns, as many
    as fit `EDB_CELLS`."""
    rows, cols = sorted((rows, cols))
    edb_cols = min(cols, EDB_CELLS // rows)
    return ["--edb_segments", str(SEGMENTS), "--tt_size", str(TABLE_GB),
            "cram", "--edb-cols", str(edb_cols), str(rows), str(cols)]


def seconds_of(text):
    """Seconds of a Rust duration as igsolve prints it ("9.89s", "261.71ms", "15µs")."""
    found = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", text.strip())
    if not found:
        raise ValueError(f"not a duration igsolve prints: {text!r}")
    return float(found.group(1)) * UNITS[found.group(2)]


def value_of(out, label):
    """The nimber igsolve's output on one board gives."""
    value = re.search(r"Nimber of initial position: (\d+)", out)
    if not value:
        raise RuntimeError(f"igsolve said no nimber for {label}: {out.strip()[-200:]!r}")
    return int(value.group(1))


def answer_of(out, label):
    """{"value", "search_seconds"} from igsolve's output on one board."""
    value = value_of(out, label)
    search = re.search(r"Calculation time: (\S+)", out)
    if not search:
        raise RuntimeError(f"igsolve said no nimber for {label}: {out.strip()[-200:]!r}")
    return {"value": value, "search_seconds": seconds_of(search.group(1))}


def run(binary, rows, cols, folder, limit):
    """igsolve's whole command on a board, run in `folder` (where its database is kept):
    {"value", "search_seconds", "seconds", "peak_mb"}, or None past `limit` seconds. The
    peak is its own high-water mark, read from /proc while it runs (a child's ru_maxrss
    would count the memory of the process that started it)."""
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        process = subprocess.Popen([binary, *options(rows, cols)], cwd=folder, stdout=out,
                                   stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        name, peak_kb = Path(binary).name[:15], 0
        while process.poll() is None:
            if time.perf_counter() - start > limit:
                _stop(process)
                return None
            peak_kb = max(peak_kb, _high_water_kb(process.pid, name))
            time.sleep(0.005)
        seconds = time.perf_counter() - start
        if process.returncode:
            raise RuntimeError(f"igsolve ended with status {process.returncode} on {rows}x{cols}")
        out.seek(0)
        return {**answer_of(out.read(), f"{rows}x{cols}"), "seconds": seconds, "peak_mb": peak_kb / 1024 or None}


def _high_water_kb(pid, name):
    """A running program's peak resident memory so far (VmHWM), 0 before it runs `name`
    (between the fork and the exec it is a copy of its parent) or once it has ended."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != name:
            return 0
        found = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.MULTILINE)
    except OSError:
        return 0
    return int(found.group(1)) if found else 0


def build_database(binary, rows, cols, folder, limit):
    """Run igsolve on the board until its search begins (its database for the board is then
    built and kept in `folder`), and stop it: seconds taken, None past `limit` seconds."""
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    process = subprocess.Popen([binary, *options(rows, cols)], cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    watchdog = threading.Timer(limit, _stop, (process,))
    watchdog.start()
    try:
        for line in process.stdout:
            if line.startswith("Searching") or "Nimber of initial position" in line:
                return time.perf_counter() - start
        if time.perf_counter() - start >= limit:
            return None
        raise RuntimeError(f"igsolve ended before its search on {rows}x{cols} (status {process.wait()})")
    finally:
        watchdog.cancel()
        _stop(process)
        process.stdout.close()


def _stop(process):
    """Stop a program and whatever it started (its own session), and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
