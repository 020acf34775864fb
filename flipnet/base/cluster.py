"""Tasks on Dask distributed: this machine's cores, or any Dask cluster by its address.

Dask is an optional extra (`pip install "flipnet[distributed]"`), imported here only.
Without an address the tasks run on an embedded `LocalCluster` of worker processes sized
to the cores this process may use (`base/cores.py`); with one, on the scheduler there
(`dask scheduler` and `dask worker`, dask-jobqueue on Slurm, PBS or SGE, Kubernetes, SSH:
docs/scale.md). A worker that dies in the middle of a task has the task run again
elsewhere: that is the scheduler's own; a task here is a plain function call whose result
comes back to this process.

`run_tasks` shows a bar of tasks done, running and left; a task that fails is reported in
one line and the others go on; Ctrl-C (or SIGTERM under the `flipnet` command) cancels the
tasks not finished, which a running task sees (`cancelled`, polled by the task), keeping
the results already handed on.
"""

import contextlib
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

from flipnet.base.errors import FlipnetError, Interrupted

CONNECT_SECONDS = 10.0  # a scheduler that does not answer within this is reported, not waited for
POLL_SECONDS = 1.0  # how often a command task looks whether its client cancelled it
INSTALL = 'pip install "flipnet[distributed]"'


def distributed():
    """The `distributed` module, or a one-line error saying how to install it."""
    try:
        import distributed as dask_distributed
    except ImportError:
        raise FlipnetError(f"this needs Dask distributed, an optional extra: {INSTALL}") from None
    return dask_distributed


@contextlib.contextmanager
def connected(scheduler=None, workers=None, threads_per_task=1):
    """A Dask client: to the scheduler at `scheduler` (an address such as
    tcp://10.0.0.5:8786), else to a `LocalCluster` of `workers` processes (default: the
    usable cores over `threads_per_task`), one task at a time each. Closed on leaving,
    and the local cluster with it (its workers and their tasks' processes end)."""
    dask_distributed = distributed()
    for name in ("distributed", "tornado"):  # a dying worker is the engine's business: one line is ours
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if scheduler is not None:
        _check_address(scheduler)
        seconds = connect_seconds()
        try:
            client = dask_distributed.Client(scheduler, timeout=seconds)
        except (OSError, TimeoutError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            why = "" if reason.startswith("Timed out") else f" ({reason})"
            raise FlipnetError(f"no Dask scheduler answers at {scheduler} within {seconds:g} s{why}") from None
        with client:
            yield client
        return
    from flipnet.base.cores import usable_cores

    count = workers or max(1, usable_cores() // max(1, threads_per_task))
    with _deaf_to_ctrl_c():
        cluster = dask_distributed.LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                                dashboard_address=":0", silence_logs=logging.CRITICAL)
    with cluster, dask_distributed.Client(cluster) as client:
        yield client


@contextlib.contextmanager
def _deaf_to_ctrl_c():
    """SIGINT ignored while the local workers start, so that they inherit it: a Ctrl-C at
    the terminal goes to the whole process group, and this process, which hears it, stops
    the workers itself (each would otherwise print a traceback of its own). A task's
    command sets its own handlers, so it still stops on Ctrl-C, as a run alone would."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals are the main thread's; a library call from another has none to change
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def connect_seconds():
    """How long to wait for a scheduler: FLIPNET_CONNECT_SECONDS, else CONNECT_SECONDS."""
    text = os.environ.get("FLIPNET_CONNECT_SECONDS")
    try:
        seconds = float(text) if text else CONNECT_SECONDS
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise FlipnetError(f"FLIPNET_CONNECT_SECONDS={text!r}: give a number of seconds above 0")
    return seconds


def _check_address(address):
    """Refuse an address the engine cannot read, before a client is made of it (a client
    that failed on one waits 20 s as it is collected)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise FlipnetError(f"--scheduler {address}: not an address of a Dask scheduler ({exc}); "
                           f"give one like tcp://HOST:8786") from None


def cancelled():
    """Inside a task: whether the client that submitted it no longer wants it (it
    cancelled it, or went away), read from the worker's own state, no client needed."""
    try:
        worker = distributed().get_worker()
    except ValueError:  # not in a worker: called directly, with no client to cancel it
        return False
    task = worker.state.tasks.get(worker.get_current_task())
    return task is None or task.state in ("cancelled", "released", "forgotten")


def run_tasks(client, fn, tasks, label, on_done, progress=None):
    """Run fn(*args) for each (key, args) of `tasks` on `client`, calling on_done(key,
    result) here as each finishes. Returns {key: one-line error} of the tasks that failed.
    Ctrl-C: the tasks not finished are cancelled (a running one sees it with `cancelled`)
    and Interrupted raised; the ones handed on are kept. `progress`: a tqdm bar counting
    finished tasks."""
    dask_distributed = distributed()
    run_id = uuid.uuid4().hex[:8]  # another sweep's tasks on the same scheduler keep keys of their own
    futures = {client.submit(fn, *args, key=f"{label}-{key}-{run_id}", pure=False): key for key, args in tasks}
    failed = {}
    pending = set(futures)
    told = None  # the bar's last (running, failed)
    try:
        while pending:
            try:
                done = dask_distributed.wait(list(pending), timeout=1, return_when="FIRST_COMPLETED").done
            except TimeoutError:  # none finished within a second: the bar's counts move on
                done = ()
            for future in done:
                key = futures[future]
                pending.discard(future)
                if future.status == "finished":
                    on_done(key, future.result())
                else:
                    failed[key] = _one_line(future.exception())
                if progress is not None:
                    progress.update()
            if progress is not None and (shown := (_running(client, pending), len(failed))) != told:
                told = shown  # a new figure only: a log of hours is not a line a second
                progress.set_postfix(running=shown[0], failed=shown[1])
    except KeyboardInterrupt:
        client.cancel(list(pending))
        raise Interrupted(f"interrupted: {len(futures) - len(pending) - len(failed)} of {len(futures)} "
                          f"tasks done and kept, the rest cancelled") from None
    return failed


def _running(client, pending):
    """How many of the pending tasks a worker is running now."""
    keys, threads = {future.key for future in pending}, client.nthreads()
    return sum(min(threads.get(worker, 1), sum(key in keys for key in held))  # the rest wait in its queue
               for worker, held in client.processing().items())


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return (text[-1] if text else type(exc).__name__)[:500]


def command_task(argv, inputs=None, outputs=(), stdout=False):
    """A task: `flipnet *argv` in a fresh directory holding `inputs` ({relative path:
    bytes}); the files `outputs` it wrote there as {relative path: bytes}, and with
    `stdout` what it printed, under the key "-". It ends the command (SIGTERM, a clean
    stop) when its client cancels it, and the command ends with the worker that runs it
    (FLIPNET_DIE_WITH_PARENT). Run in a Dask worker, the command may use the memory the
    worker was given (FLIPNET_MEMORY_LIMIT, which the Cram solver's tables keep to)."""
    with tempfile.TemporaryDirectory(prefix="flipnet-task-") as place, \
            tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        place = Path(place)
        for relative, data in (inputs or {}).items():
            (place / relative).parent.mkdir(parents=True, exist_ok=True)
            (place / relative).write_bytes(data)
        for relative in outputs:
            (place / relative).parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "FLIPNET_PROGRESS": "0", "FLIPNET_DIE_WITH_PARENT": str(os.getpid()),
               **_memory_limit()}
        proc = subprocess.Popen([sys.executable, "-m", "flipnet", *argv], cwd=place, env=env,
                                stdin=subprocess.DEVNULL, stdout=out if stdout else subprocess.DEVNULL, stderr=err)
        try:
            while True:
                try:
                    proc.wait(POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    if cancelled():
                        proc.send_signal(signal.SIGTERM)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        if proc.returncode:
            err.seek(0)
            lines = err.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(lines[-1] if lines else f"flipnet {argv[0]} ended with status {proc.returncode}")
        missing = [path for path in outputs if not (place / path).is_file()]
        if missing:
            raise RuntimeError(f"flipnet {argv[0]} wrote no {missing[0]}")
        files = {path: (place / path).read_bytes() for path in outputs}
        if stdout:
            out.seek(0)
            files["-"] = out.read()
        return files


def _memory_limit():
    """{"FLIPNET_MEMORY_LIMIT": bytes} of the Dask worker running this task, where it has
    a limit ("auto": the machine's memory over its worker processes); else {}."""
    try:
        limit = distributed().get_worker().memory_manager.memory_limit
    except (ValueError, AttributeError):  # not in a worker, or an engine that does not say
        return {}
    return {"FLIPNET_MEMORY_LIMIT": str(int(limit))} if limit else {}


def worker_state(key, make):
    """What the Dask worker running this task keeps for its later tasks under `key` (made
    by `make()` at its first), or None where no worker runs it (called here, directly)."""
    try:
        worker = distributed().get_worker()
    except ValueError:
        return None
    kept = worker.__dict__.setdefault("_flipnet_kept", {})
    if key not in kept:
        kept[key] = make()
    return kept[key]


def worker_memory():
    """Bytes the Dask worker running this task may use, or None (no worker, or no limit)."""
    limit = _memory_limit().get("FLIPNET_MEMORY_LIMIT")
    return int(limit) if limit else None
