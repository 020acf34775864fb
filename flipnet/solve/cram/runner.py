"""Running the search's kernels: on the solver's worker threads, one kernel at a time,
watched by `supervisor` (progress, time limits, Ctrl-C, cancel) and stopped in one line
(`KernelRunner`); with a checkpoint, paused every so often to write it (`CheckpointedRuns`).
Both are parts of `solver.CramSolver`, on the state it holds (its table, controls,
counters and buffers a worker, `supervisor`, `checkpoint`)."""

import contextlib
import sys
import threading
import time

import numpy as np
from numba import typeof

from flipnet.base.cores import check_search_workers
from flipnet.base.errors import Cancelled, FlipnetError, Interrupted, TimedOut
from flipnet.base.progress import shown as progress_shown
from flipnet.solve.cram import search
from flipnet.solve.cram.supervisor import Progress


def _compiling(kernel):
    """Whether Numba is still compiling `kernel` (a dispatcher has no overloads until it is
    compiled or loaded from its cache); a plain Python function never is."""
    return not getattr(kernel, "overloads", True)


class Paused(Exception):
    """The searches paused for a checkpoint (never leaves the solver)."""


class KernelRunner:
    """The kernels' contexts and runs, the solver's counters, threads and limits."""

    @property
    def ctx(self):
        return self.ctx_of(0)

    def ctx_of(self, worker):
        """The kernels' context of one worker: the shared database, table and controls, its
        own counters and buffers."""
        return self._context(self.endgame, self.tt, self.tt_log, self.control, self._worker_stats[worker],
                             self._worker_scratch[worker], self.paths, worker)

    def wide_ctx_of(self, worker):
        """`ctx_of` for a kernel of wide components (`search.WideContext`): the wide table too."""
        return search.WideContext(*self.ctx_of(worker), self.wide_tt, self.wide_log,
                                  *self._worker_scratch[worker][2:])

    def _context(self, endgame, table, tt_log, control, stats, scratch, paths, worker):
        """A kernel's context (`search.SearchContext`)."""
        return search.SearchContext(endgame.data, endgame.boxes, self.kayles, table, tt_log, control, stats,
                                    *scratch[:2], paths, worker)

    def counts(self):
        """The search's counters (search.NODES, ...) summed over the workers."""
        return np.sum(self._worker_stats, axis=0)

    @property
    def timeout(self):
        """Seconds one search may take (None: no limit)."""
        return self.supervisor.timeout

    @timeout.setter
    def timeout(self, seconds):
        self.supervisor.timeout = seconds

    @property
    def seconds(self):
        """Seconds spent searching, all searches together."""
        return self.supervisor.seconds

    def report(self):
        """What the search has done so far, for the user."""
        s = self.counts()
        return {"positions": int(s[search.NODES]), "table_hits": int(s[search.TT_HITS]),
                "database_hits": int(s[search.DB_HITS]), "stored": int(s[search.STORES]),
                "seconds": round(self.seconds, 3)}

    def cancel(self):
        """From another thread: stop the question under way (its searches end with
        `Cancelled`) until the next question begins (`begin_question`)."""
        self.supervisor.cancel()

    def begin_question(self):
        self.supervisor.begin_question()

    def compiling(self):
        return self.supervisor.compiling()

    @contextlib.contextmanager
    def time_limit(self, seconds, asked=None):
        """One limit in seconds (None: none) for every search a question takes (its value,
        then each component's moves, and the mapping of its table), where `timeout` limits
        each search alone; `asked`: the limit as given, where `seconds` is what is left of
        it. Inside it, a missing endgame database is not built (that takes longer than most
        limits): the search goes on without it, and a timeout says so."""
        with self.supervisor.time_limit(seconds, asked):
            try:
                yield
            finally:
                self._without_endgame = False

    def use_workers(self, workers):
        """Search each component with `workers` threads from the next call on (1 to
        MAX_WORKERS; more than the usable cores only take turns on them). As many as now:
        nothing to change, and nothing waited for (every `flipnet.value` names its workers,
        a position the recursion answers too, which a kernel left behind compiling kept
        waiting for half a minute in the explorer)."""
        check_search_workers(workers)
        if workers == self.workers:
            return
        with self._busy:
            self._wait_for_left()
            self.workers = workers
            self.control[search.SHARED] = int(workers > 1)
            if self.paths.shape[0] < workers:
                self.paths = search.paths(workers)
            while len(self._worker_stats) < workers:
                self._worker_stats.append(np.zeros(8, np.int64))
                self._worker_scratch.append(search.scratch())

    def _run(self, kernel, *args, watch=None):
        """Run a search kernel in a worker thread; progress, time limit and Ctrl-C here.
        `watch(positions done)`, if given, replaces the progress line. One kernel at a
        time: they share the table and the scratch buffers, so a second caller waits,
        and so does the next caller after a kernel left behind."""
        with self._busy:
            self._wait_for_left()
            self._run_alone(kernel, *args, watch=watch)

    def _calls(self, kernel, args):
        """(arguments, context) of each worker's call: with several, on a question's
        components (not on a batch of positions), each but the first writes its answers to
        an array of its own."""
        ctx_of = self.wide_ctx_of if kernel in (search.wide_values, search.wide_moves) else self.ctx_of
        if self.workers == 1 or kernel not in (search.nimbers_of, search.moves_to, search.value_is, search.wide_values,
                                               search.wide_moves):
            return [(args, ctx_of(0))]
        return [(args, ctx_of(0))] + [((*args[:-1], np.empty_like(args[-1])), ctx_of(k))
                                      for k in range(1, self.workers)]

    def _run_once(self, kernel, *args, watch=None, since=None, carry=None):
        """Run a kernel on the workers; a stop counts the positions searched since `since`
        (the counters' value then; default: this run's start). `carry`: what the runs of one
        question share (`Supervisor.run`)."""
        calls = self._calls(kernel, args)
        answered, first = [], threading.Lock()

        def job(k):
            def run():
                call_args, ctx = calls[k]
                if kernel(*call_args, ctx):
                    with first:
                        if not answered:
                            answered.append(k)
                            if len(calls) > 1:
                                self.control[search.STOP] = search.ANSWERED  # the others stop
            return run

        nodes_before = int(self.counts()[search.NODES]) if since is None else since
        if _compiling(kernel):
            self._load(kernel, calls[0], carry)
        self.supervisor.run([job(k) for k in range(len(calls))], [self.control], self._worker_stats, watch,
                            settled=lambda: bool(answered), compiling=lambda: _compiling(kernel), carry=carry)
        if answered:
            if answered[0]:  # another worker's answers
                args[-1][...] = calls[answered[0]][0][-1]
            stopped = int(self.control[search.STOP])
            self.control[search.STOP] = 0
            if stopped != search.INTERRUPTED:
                return
            # a Ctrl-C that came as the work ended: the answer is whole, but a caller with more
            # to ask (the pieces, a dataset) stops here rather than at a kernel too short to hear it
        self._raise_stopped(int(self.control[search.STOP]), int(self.counts()[search.NODES]) - nodes_before)

    def _load(self, kernel, call, carry):
        """Load `kernel` for the types of `call`'s arguments from Numba's cache (about 25 ms
        in a new process), or compile it (up to a minute), on a worker thread watched as a
        search is (the progress line says it compiles; Ctrl-C, a cancel and the time limit
        are heard), before the search's clock starts: the seconds a search reports are its
        own, as igsolve's are."""
        call_args, ctx = call
        signature = tuple(typeof(a) for a in (*call_args, ctx))
        self.supervisor.run([lambda: kernel.compile(signature)], [self.control], self._worker_stats,
                            compiling=lambda: _compiling(kernel), carry=carry, counted=False)
        reason = int(self.control[search.STOP])
        if reason:
            self._raise_stopped(reason, 0)

    def _wait_for_left(self):
        """`Supervisor.wait_for_left`, and a question stopped meanwhile ends as a search
        stopped before its first position (the explorer: a cancel during the first
        compile left every later question, a small one too, waiting for it, 31 s)."""
        reason = self.supervisor.wait_for_left()
        if reason:
            self._raise_stopped(reason, 0)

    def _raise_stopped(self, reason, searched):
        """The one-line error of a search stopped before its answer, for `reason` (a STOP
        value) after `searched` positions."""
        count = f"{searched:,} position{'' if searched == 1 else 's'} searched"
        if reason == search.OUT_OF_TIME:
            why = count
            if not searched and self.supervisor.left:  # still compiling: let a process of its own finish that
                if self.compile_in_background is not None:
                    self.compile_in_background(self.endgame.boxes.size > 0)
                why = ("the search had not begun: Numba compiles it the first time, up to a minute; "
                       "that goes on in the background, so a call in a minute starts at once")
            if self._without_endgame:
                why += ("; without the endgame database, which is not built yet: `flipnet endgame` "
                        "builds it once, in about 20 s")
            limit = self.supervisor.limit if self.supervisor.limit is not None else self.timeout
            raise TimedOut(f"no answer within --timeout {limit:g} s ({why})")
        if reason == search.CANCELLED:
            raise Cancelled(f"cancelled after {count}")
        if reason == search.PAUSED:
            self.control[search.STOP] = 0
            raise Paused(count)
        if reason == search.OVER_BUDGET:
            raise FlipnetError(f"no answer within the search budget of {int(self.control[search.NODE_LIMIT]):,} "
                               f"positions: this position is too large for the solver")
        raise Interrupted(f"interrupted after {count}")


class CheckpointedRuns:
    """A solver's runs kept in a checkpoint: written every so often and when stopped."""

    def use_checkpoint(self, checkpoint):
        """Keep the searches' largest facts in `checkpoint` (`checkpoint.Checkpoint`) as
        they go and when stopped, starting from those it holds; None: no more."""
        self.checkpoint, self._restored = checkpoint, None

    def _run_alone(self, kernel, *args, watch=None):
        """Run a kernel; with a checkpoint, pause it every so often to write one, and ask
        again (the table keeps what it found, so it goes on from there)."""
        if self.shared is not None:  # what the cluster's other workers proved since the last search
            self.shared.take(self)
        if self.checkpoint is None:
            return self._run_once(kernel, *args, watch=watch)
        if self._restored is None or self._restored[0] is not self.tt or self._restored[1] is not self.wide_tt:
            self.checkpoint.bind(self.endgame, self.control[search.MIRROR])
            self.checkpoint.restore(self.tt, self.tt_log, self.stats, self.wide_tt, self.wide_log)
            if self._restored is None and self.supervisor.progress:  # once a solve, not at each table grown
                print(f"flipnet: {self.checkpoint.start_text()}", file=sys.stderr)
            self._restored = (self.tt, self.wide_tt)
        since = int(self.counts()[search.NODES])  # a stop counts the positions of every run since
        carry = Progress()  # the runs of this question show one progress line
        try:
            while True:
                self.supervisor.pause_at = time.perf_counter() + self.checkpoint.seconds
                try:
                    self._run_once(kernel, *args, watch=watch, since=since, carry=carry)
                    return
                except Paused:
                    self.save_checkpoint()
                    if self.supervisor.progress and progress_shown():  # only for a line someone sees
                        carry.standing = self._where_it_stands(kernel, args)
                except FlipnetError as exc:
                    if self.supervisor.left:  # a kernel still writes the table: its facts cannot be read now
                        raise
                    facts, _ = self.save_checkpoint()
                    raise type(exc)(f"{exc}; {self.checkpoint.path} keeps what it found ({facts:,} facts; "
                                    f"{self.checkpoint.work_text()}): the same command goes on from "
                                    f"there") from None
                finally:
                    self.supervisor.pause_at = None
        finally:
            carry.close()

    def _where_it_stands(self, kernel, args):
        """`standing.in_a_line` of the one component a kernel call searches, None for several."""
        if kernel is search.nimbers_of and args[0].size == 1:
            bits, h, w = int(args[0][0]), int(args[1][0]), int(args[2][0])
        elif kernel is search.wide_values and args[0].size == 1:
            bits, h, w = int(args[0][0]) | int(args[1][0]) << 64, int(args[2]), int(args[3])
        else:
            return None
        if self.standing_line is None:
            return None
        try:
            return self.standing_line(self, bits, h, w)
        except Exception as exc:  # noqa: BLE001 - a line of progress never ends a solve of days
            return f"its standing not read: {type(exc).__name__}"

    def save_checkpoint(self):
        """Write the checkpoint: the tables' largest facts, and the positions and seconds this
        solver has searched; (facts, bytes)."""
        return self.checkpoint.save(self.tt, self.wide_tt, int(self.counts()[search.NODES]), self.seconds)
