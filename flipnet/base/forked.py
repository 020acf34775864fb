"""A list of independent tasks shared with forked copies of this process.

Why forks: a training run's validation and its 1-ply labelling are forward passes over
chunks of shapes, each chunk independent of the others, and they ran in one process
while the run's other core waited (flipnet runs BLAS in the calling thread:
`base/denormals.py`). A process forked at the moment of the work starts as a copy of
this one, with the current weights and the compiled functions, so nothing has to be
sent to it but the answers back. Each task is computed alone and the same way wherever
it runs, so the results are those of one process, bit for bit: sharing the work is not
a setting of the run, only a speed.

The helpers ignore Ctrl-C (the terminal sends it to every process of the group); this
process answers it in `done`, and leaving `forked_map` in any way ends the helpers.
"""

import contextlib
import multiprocessing
import signal
import traceback

import numpy as np

from flipnet.base.errors import FlipnetError


def part_bounds(n, parts):
    """[(start, stop)] of `parts` contiguous parts of n rows, the larger ones first."""
    sizes = [n // parts + (k < n % parts) for k in range(parts)]
    stops = np.cumsum(sizes)
    return [(int(stop - size), int(stop)) for size, stop in zip(sizes, stops)]


@contextlib.contextmanager
def ctrl_c_held():
    """SIGINT held back in this thread: a process forked inside starts with it blocked, so
    a Ctrl-C before it sets its own handling cannot stop it with a traceback; one that
    came meanwhile reaches this process at the end."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def ignore_ctrl_c():
    """In a forked helper: Ctrl-C is for the process that started it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def forked_map(fn, tasks, workers, done=None):
    """[fn(task) for task in tasks], the tasks cut into `workers` contiguous parts: the
    first computed here, each other one by a process forked now that sends its results
    back as it goes. `done(index, result)` is called here for every result as it arrives
    (a progress bar; it may raise to stop, which ends the helpers). Build anything `fn`
    compiles lazily before calling this, or each helper builds its own."""
    tasks = list(tasks)
    workers = max(1, min(workers, len(tasks)))
    results = [None] * len(tasks)

    def keep(index, result):
        results[index] = result
        if done is not None:
            done(index, result)

    if workers == 1:
        for index, task in enumerate(tasks):
            keep(index, fn(task))
        return results
    bounds = part_bounds(len(tasks), workers)
    context = multiprocessing.get_context("fork")
    helpers = []
    try:
        for start, stop in bounds[1:]:
            ours, theirs = context.Pipe(duplex=False)
            helper = context.Process(target=_serve, args=(fn, tasks[start:stop], theirs, ours), daemon=True)
            with ctrl_c_held():
                helper.start()
            theirs.close()
            helpers.append(_Helper(helper, ours, start, stop))
        for index in range(*bounds[0]):
            keep(index, fn(tasks[index]))
            for helper in helpers:
                helper.collect(keep, wait=False)
        for helper in helpers:
            helper.collect(keep, wait=True)
    finally:
        for helper in helpers:
            helper.end()
    return results


class _Helper:
    """A forked helper's process, the pipe its results come by, and the next index it owes."""

    def __init__(self, process, pipe, start, stop):
        self.process, self.pipe, self.next, self.stop = process, pipe, start, stop

    def collect(self, keep, wait):
        """Pass on the results that have come (all of them, with `wait`)."""
        while self.next < self.stop and (wait or self.pipe.poll()):
            try:
                status, payload = self.pipe.recv()
            except (EOFError, OSError):
                self.process.join(timeout=5)  # its exit code, once it is reaped
                raise FlipnetError(f"a helper process stopped (exit code {self.process.exitcode}) "
                                   f"with {self.stop - self.next} of its tasks undone") from None
            if status != "ok":
                raise FlipnetError(f"a helper process failed: {payload}")
            keep(self.next, payload)
            self.next += 1

    def end(self):
        self.pipe.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def _serve(fn, tasks, pipe, parents_end):
    """A helper: each task's result sent back in order; the first failure, in one line."""
    ignore_ctrl_c()
    parents_end.close()
    try:
        for task in tasks:
            try:
                result = ("ok", fn(task))
            except Exception as exc:  # noqa: BLE001 - the parent reports it in one line
                last = traceback.extract_tb(exc.__traceback__)[-1]
                pipe.send(("error", f"{type(exc).__name__}: {exc} ({last.filename}:{last.lineno})"))
                return
            pipe.send(result)
    except (BrokenPipeError, OSError):  # the parent stopped listening: nothing left to do
        return
