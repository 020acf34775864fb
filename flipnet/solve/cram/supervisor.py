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
from dataclasses import dataclass

from flipnet.base import signals
from flipnet.base.progress import bar
from flipnet.solve.cram import search
from flipnet.solve.cram.limits import COMPILING, COMPILING_MORE

PROGRESS_AFTER = 2.0  # seconds of search before the progress line appears
# The progress line while Numba compiles a kernel (a new install's first search; loading
# from its cache takes a fraction of a second): a user would otherwise watch "0 pos".
STOP_GRACE = 1.0  # seconds a kernel has to answer a stop before it is left behind
# A look at the jobs comes every 0.2 s: a gap this long between two is a process stopped
# (SIGSTOP, a suspended machine), and its time is no search (the hours a checkpoint counts)
STOPPED_FROM = 3.0


class Supervisor:
    """The limits and the stops of one solver's searches, and the threads left behind."""

    def __init__(self, timeout=None, progress=True):
        self.timeout, self.progress = timeout, progress
        self.seconds = 0.0  # spent in searches, all of them (not while the process was stopped)
        self.deadline = self.limit = None  # time_limit(): the question's end, and its seconds
        self.left = []  # the kernels' threads the caller stopped waiting for
        self._compiling = None  # the run under way's `compiling`
        self.said_compiling = False  # a progress line said COMPILING once: later ones say COMPILING_MORE
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
        """One limit in seconds (None: none of its own) for every search of a question.
        `asked`: the limit as the user gave it, where `seconds` is what is left of it (a
        question that began before the solver was loaded), which a timeout's message names.
        Inside another limit (a question asked in stages, each stage a question of its own)
        it can only come sooner, and the outer one holds again after it."""
        outer = self.deadline, self.limit
        if seconds is not None:
            deadline = time.perf_counter() + seconds
            if outer[0] is None or deadline < outer[0]:
                self.deadline, self.limit = deadline, seconds if asked is None else asked
        try:
            yield
        finally:
            self.deadline, self.limit = outer

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

    def run(self, jobs, controls, stats, watch=None, settled=lambda: False, compiling=lambda: False, carry=None,
            counted=True):
        """Run each job (a kernel call, or several in turn) in a thread of its own while
        this thread shows progress, enforces the limits and turns Ctrl-C into a stop
        written to every `controls` array; `stats` are the jobs' counters. Once
        `settled()`, the jobs still running are only waited for; while `compiling()`, the
        progress line says so. `watch(done)`, if given, hears of the positions finished in
        place of the line. `carry`: the `Progress` one question's runs share (a search
        paused for each checkpoint and asked again), so that they show one progress line,
        counted from the first run's start; its caller closes it. `counted`: its seconds are
        a search's (False: a kernel loaded or compiled, not searching)."""
        run = _Run(controls, stats)
        run.threads = [threading.Thread(target=run.work, args=(job,), daemon=True) for job in jobs]
        began = time.perf_counter()
        shown = carry if carry is not None else Progress()
        shown.begin(began, run.total(search.NODES))
        done_before = run.total(search.DONE)
        with signals.deferred():
            self._compiling = compiling
            for thread in run.threads:
                thread.start()
            try:
                self._watch(run, shown, settled, compiling, watch, done_before)
            finally:
                self._leave(run)
                if carry is None:
                    shown.close()
                if counted:
                    self.seconds += time.perf_counter() - began - run.stopped
                self._compiling = None
        if watch is not None:
            watch(run.total(search.DONE) - done_before)
        if run.failed:
            raise run.failed[0]

    def _watch(self, run, shown, settled, compiling, watch, done_before):
        """Look at the jobs every 0.2 s until they end: the stops, and the progress."""
        last = time.perf_counter()
        while alive := [t for t in run.threads if t.is_alive()]:
            alive[0].join(0.2)  # one list: a worker may end between two looks
            now = time.perf_counter()
            if now - last > STOPPED_FROM:
                run.stopped += now - last
            last = now
            if settled():  # the other worker stops at its next position
                continue
            reason = self._reason_to_stop(now, now - shown.start, bool(run.asked))
            if reason:
                run.stop(reason)
            if run.asked and now - run.asked[0] > STOP_GRACE:
                self.left = [t for t in run.threads if t.is_alive()]  # the next call waits for them
                return
            if watch is not None:
                watch(run.total(search.DONE) - done_before)
            elif self.progress and now - shown.start > PROGRESS_AFTER:
                shown.show(run, compiling(), COMPILING_MORE if self.said_compiling else COMPILING)
                self.said_compiling |= shown.shown in (COMPILING, COMPILING_MORE)
        if signals.requested() and not run.asked:  # a Ctrl-C after the last look: the jobs' work
            run.stop(search.INTERRUPTED)  # may be whole, but a caller with more to do must not go on

    def _reason_to_stop(self, now, elapsed, asked):
        """Why the jobs must stop now (a STOP value), or 0."""
        if signals.requested():
            return search.INTERRUPTED
        if self._cancel.is_set():
            return search.CANCELLED
        if self.timeout is not None and elapsed > self.timeout or self.deadline is not None and now > self.deadline:
            return search.OUT_OF_TIME
        if self.pause_at is not None and now > self.pause_at and not asked:
            return search.PAUSED
        return 0

    def _leave(self, run):
        """Leaving early (a second Ctrl-C, or no answer to a stop): the jobs still running
        are stopped, waited for a moment, and kept in `left` (each holds the table and the
        scratch buffers until it ends)."""
        if not any(t.is_alive() for t in run.threads):
            return
        if not any(control[search.STOP] for control in run.controls):
            run.stop(search.INTERRUPTED)
        if not self.left:
            for thread in run.threads:
                thread.join(STOP_GRACE)
        self.left = [t for t in run.threads if t.is_alive()]


class _Run:
    """One run's jobs: their threads, counters, control words, the failures they hand on
    and when a stop was first asked for (not a kernel's own budget stop)."""

    def __init__(self, controls, stats):
        self.controls, self.stats, self.threads = controls, stats, []
        self.failed, self.asked = [], []
        self.stopped = 0.0  # seconds the process was stopped while they ran
        self.stop(0)

    def stop(self, reason):
        for control in self.controls:
            control[search.STOP] = reason
        if reason and not self.asked:
            self.asked.append(time.perf_counter())

    def work(self, job):
        try:
            job()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            self.failed.append(exc)
            self.stop(search.INTERRUPTED)

    def total(self, counter):
        return sum(int(s[counter]) for s in self.stats)


@dataclass
class Progress:
    """The progress line of a question's runs: since when and from which count of positions
    it counts (the first run's), the bar once shown, what it says (COMPILING or "search"),
    and where a checkpointed proof stands (`standing.in_a_line`), shown in its place."""

    start: float = None
    nodes: int = None
    line: object = None
    shown: str = None
    standing: str = None

    def begin(self, now, nodes):
        if self.start is None:  # the question's first run
            self.start, self.nodes = now, nodes

    def show(self, run, compiling, saying=COMPILING):
        """The line, drawn the first time; the rate counts from then, and again once the
        compile is over. `saying`: what a compile is called (the first one of a solver's
        lines says how long it takes; a later kernel's only that it compiles)."""
        done = run.total(search.NODES) - self.nodes
        if self.line is None:
            self.shown = saying if compiling else "search"
            self.line = bar(None, self.shown, unit="pos", initial=done)
        elif self.shown in (COMPILING, COMPILING_MORE) and not compiling:
            self.shown = "search"
            self.line.set_description_str(self.shown, refresh=False)
            self.line.reset()
        self.line.n = done
        if self.standing and self.shown == "search":  # in place of the table's and the database's hits
            self.line.set_description_str(f"search ({self.standing})", refresh=False)
            self.line.set_postfix_str("", refresh=False)
        else:
            self.line.set_postfix(table_hits=run.total(search.TT_HITS), db_hits=run.total(search.DB_HITS),
                                  refresh=False)
        self.line.refresh()

    def close(self):
        if self.line is not None:
            self.line.close()
