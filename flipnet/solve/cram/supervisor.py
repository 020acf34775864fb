"""The threads a search runs in, and the thread that watches them.

A search kernel runs in a thread of its own (two, with two workers) while the calling
thread shows progress on stderr, enforces the limits (`timeout` for one search, a
question's `time_limit` for all of its searches), and turns Ctrl-C and `cancel` into a
stop written to the kernels' control words, which they read at every position. A kernel
that has not begun (Numba compiling it) cannot read its stop: after STOP_GRACE seconds
the caller leaves it behind, and the next run waits for it to end, since it holds the
table and the scratch buffers; a question stopped while it waits stops waiting.
"""

import contextlib
import threading
import time

from flipnet.base import signals
from flipnet.base.progress import bar
from flipnet.solve.cram import search

PROGRESS_AFTER = 2.0  # seconds of search before the progress line appears
# The progress line while Numba compiles a kernel (a new install's first search; loading
# from its cache takes a fraction of a second): a user would otherwise watch "0 pos".
COMPILING = "compiling the solver (once, about half a minute)"
STOP_GRACE = 1.0  # seconds a kernel has to answer a stop before it is left behind


class Supervisor:
    """The limits and the stops of one solver's searches, and the threads left behind."""

    def __init__(self, timeout=None, progress=True):
        self.timeout, self.progress = timeout, progress
        self.seconds = 0.0  # spent in searches, all of them
        self.deadline = self.limit = None  # time_limit(): the question's end, and its seconds
        self.left = []  # the kernels' threads the caller stopped waiting for
        self._compiling = None  # the run under way's `compiling`
        self._cancel = threading.Event()
        self.pause_at = None  # when the searches pause for a checkpoint (perf_counter), or None

    def cancel(self):
        """From another thread: stop the question under way until the next one begins."""
        self._cancel.set()

    def begin_question(self):
        """A new question: a `cancel` of the last one is forgotten. Its asker calls this
        where no cancel can slip in between its own check and this (explore/questions.py),
        not when the question's first search begins, which would forget a cancel asked in
        the meantime."""
        self._cancel.clear()

    @contextlib.contextmanager
    def time_limit(self, seconds, asked=None):
        """One limit in seconds (None: none) for every search of a question. `asked`: the
        limit as the user gave it, where `seconds` is what is left of it (a question that
        began before the solver was loaded), which a timeout's message names."""
        if seconds is not None:
            self.deadline, self.limit = time.perf_counter() + seconds, seconds if asked is None else asked
        try:
            yield
        finally:
            self.deadline = self.limit = None

    def compiling(self):
        """Whether the search waits for Numba (the kernel under way, or one left behind: a
        kernel that has begun hears its stop, so one left behind is still compiling), for
        a progress report from another thread."""
        running = self._compiling
        return bool(self.left) or (running is not None and running())

    def stopped_by(self):
        """Why the question under way must stop before its search (a STOP value: a Ctrl-C,
        a cancel, its time limit), or 0: the work before a search (mapping a table,
        waiting for a kernel left behind) stops too."""
        if signals.requested():
            return search.INTERRUPTED
        if self._cancel.is_set():
            return search.CANCELLED
        if self.deadline is not None and time.perf_counter() > self.deadline:
            return search.OUT_OF_TIME
        return 0

    def wait_for_left(self):
        """Let a kernel left behind end: it stops at once when it begins, since the stop
        it was asked for is still set. That may be a compile of half a minute, which a
        question that is stopped meanwhile does not wait out: then the reason
        (`stopped_by`), else 0 once they have ended."""
        for thread in self.left:
            while thread.is_alive():
                thread.join(0.2)
                reason = self.stopped_by()
                if reason:
                    return reason
        self.left = []
        return 0

    def run(self, jobs, controls, stats, watch=None, settled=lambda: False, compiling=lambda: False, carry=None):
        """Run each job (a kernel call, or several in turn) in a thread of its own while
        this thread shows progress, enforces the limits and turns Ctrl-C into a stop
        written to every `controls` array; `stats` are the jobs' counters. Once
        `settled()`, the jobs still running are only waited for; while `compiling()`, the
        progress line says so. `carry`: a dict one question's runs share (a search paused
        for each checkpoint and asked again), so that they show one progress line, counted
        from the first run's start; its caller closes `carry["line"]`."""
        failed, asked = [], []  # asked: when a stop was first asked for (not a kernel's own budget stop)

        def stop(reason):
            for control in controls:
                control[search.STOP] = reason
            if reason and not asked:
                asked.append(time.perf_counter())

        def work(run):
            try:
                run()
            except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
                failed.append(exc)
                stop(search.INTERRUPTED)

        stop(0)

        def total(counter):
            return sum(int(s[counter]) for s in stats)

        workers = [threading.Thread(target=work, args=(run,), daemon=True) for run in jobs]
        start = began = time.perf_counter()
        nodes_before, done_before = total(search.NODES), total(search.DONE)
        line = shown = None
        if carry is not None:  # the question's first run's start, and its line if one is shown
            start, nodes_before = carry.setdefault("start", start), carry.setdefault("nodes", nodes_before)
            line, shown = carry.get("line"), carry.get("shown")
        with signals.deferred():
            self._compiling = compiling
            for worker in workers:
                worker.start()
            try:
                while alive := [w for w in workers if w.is_alive()]:
                    alive[0].join(0.2)  # one list: a worker may end between two looks
                    now = time.perf_counter()
                    elapsed = now - start
                    if settled():  # the other worker stops at its next position
                        continue
                    if signals.requested():
                        stop(search.INTERRUPTED)
                    if self._cancel.is_set():
                        stop(search.CANCELLED)
                    if self.timeout is not None and elapsed > self.timeout or \
                            self.deadline is not None and now > self.deadline:
                        stop(search.OUT_OF_TIME)
                    if self.pause_at is not None and now > self.pause_at and not asked:
                        stop(search.PAUSED)
                    if asked and now - asked[0] > STOP_GRACE:
                        self.left = [w for w in workers if w.is_alive()]  # the next call waits for them
                        break
                    if watch is not None:
                        watch(total(search.DONE) - done_before)
                    elif self.progress and elapsed > PROGRESS_AFTER:
                        if line is None:  # the rate counts from here, not from the count already reached
                            shown = COMPILING if compiling() else "search"
                            line = bar(None, shown, unit="pos", initial=total(search.NODES) - nodes_before)
                            if carry is not None:
                                carry.update(line=line, shown=shown)
                        elif shown == COMPILING and not compiling():
                            shown = "search"
                            line.set_description_str(shown, refresh=False)
                            line.reset()  # the rate counts from the search's start
                            if carry is not None:
                                carry["shown"] = shown
                        line.n = total(search.NODES) - nodes_before
                        if carry is not None and carry.get("standing") and shown == "search":
                            # where the proof stands, in place of the table's and the database's hits
                            line.set_description_str(f"search ({carry['standing']})", refresh=False)
                            line.set_postfix_str("", refresh=False)
                        else:
                            line.set_postfix(table_hits=total(search.TT_HITS), db_hits=total(search.DB_HITS),
                                             refresh=False)
                        line.refresh()
                if signals.requested() and not asked:  # a Ctrl-C after the last look: the jobs' work
                    stop(search.INTERRUPTED)  # may be whole, but a caller with more to do must not go on
            finally:
                if any(w.is_alive() for w in workers):  # leaving early (a second Ctrl-C, or no answer to a stop)
                    if not any(control[search.STOP] for control in controls):
                        stop(search.INTERRUPTED)
                    if not self.left:
                        for w in workers:
                            w.join(STOP_GRACE)
                    # one still running keeps the table and the scratch buffers until it ends
                    self.left = [w for w in workers if w.is_alive()]
                if line is not None and carry is None:
                    line.close()
                self.seconds += time.perf_counter() - began
                self._compiling = None
        if watch is not None:
            watch(total(search.DONE) - done_before)
        if failed:
            raise failed[0]
