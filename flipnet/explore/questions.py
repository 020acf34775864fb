"""Questions for the exact solver, one at a time: the solver is one (one table, one set of
search threads), so a new question cancels the one under way, which ends within a fraction
of a second and leaves the solver to the next. A question runs in a thread of its own; its
asker waits a moment for the answer, and else polls it for progress (positions searched,
seconds, and the answer so far where the work hands one on: a position's value before its
moves' values) or cancels it. A question past the server's time limit ends with an error."""

import itertools
import threading
import time

from flipnet.base.errors import Cancelled, FlipnetError, bug_report
from flipnet.base.process import resident_bytes

KEPT = 32  # finished questions kept for their askers to read
# Resident memory past which the solver gives back its tables and the database's pages
# after a question (the next large board starts from an empty table): a 7x8 board with
# 46 full cells left the server at 1.48 GB
KEEP_BELOW = 600 << 20


class Question:
    def __init__(self, number, key, work):
        self.number, self.key, self._work = number, key, work
        self.status, self.answer, self.error = "running", None, None
        self.bug = False  # its error is flipnet's, not the request's: the server answers 500
        self.started = time.perf_counter()
        self.seconds = None
        self.positions = 0
        self._solver, self._before = None, 0  # the solver's count of positions as it began
        self.partial = None  # the answer so far, handed on by the work (`share`)
        self._done = threading.Event()

    def share(self, partial):
        """The work's answer so far, which a poll of the running question returns."""
        self.partial = partial

    def run(self, gate, lock, solver):
        """On the solver once the previous question has left it (`gate`): that one was
        cancelled before this one began. Under `lock` a cancel either comes before this
        question begins (then it never does) or after its solver forgets the last cancel."""
        with gate:
            with lock:
                begins = self.status == "running"
                if begins:
                    solver.begin_question()
            if begins:
                self._solver, self._before = solver, solver.report()["positions"]
                try:
                    self.answer, self.status = self._work(self.share), "done"
                except Cancelled:
                    self.status = "cancelled"
                except FlipnetError as exc:
                    self.status, self.error = "error", str(exc).splitlines()[0]
                except Exception as exc:  # noqa: BLE001 - a bug, told to the page in one line
                    self.status, self.error, self.bug = "error", bug_report(exc, debug=False), True
                self.positions = solver.report()["positions"] - self._before
                resident = resident_bytes()
                if resident is not None and resident > KEEP_BELOW:
                    solver.release_memory()
        self.seconds = time.perf_counter() - self.started
        self._done.set()

    def wait(self, seconds):
        self._done.wait(seconds)

    def to_json(self):
        out = {"question": self.number, "status": self.status}
        if self._done.is_set():
            out.update(positions=self.positions, seconds=round(self.seconds, 3))
        else:  # still on the solver (a cancelled one too, for a moment)
            out["positions"] = self._solver.report()["positions"] - self._before if self._solver is not None else 0
            out["seconds"] = round(time.perf_counter() - self.started, 3)
            if self._solver is not None and self._solver.compiling():  # a new install's first search
                from flipnet.solve.engine import COMPILING

                out["compiling"] = COMPILING  # what the page shows instead of "0 positions searched"
            if self.partial is not None and self.status == "running":
                out["partial"] = self.partial
        if self.status == "done":
            out["answer"] = self.answer
        if self.error:
            out["error"] = self.error
        return out


class Questions:
    """The server's exact questions (see the module's docstring)."""

    def __init__(self, solver):
        self.solver = solver
        self._gate = threading.Lock()  # held by the question on the solver
        self._lock = threading.Lock()  # guards the list below
        self._numbers = itertools.count(1)
        self._kept = {}
        self._current = None

    def ask(self, key, work):
        """The question `key` (running or just answered, if the last one asked), else a new
        one that cancels the one under way."""
        with self._lock:
            current = self._current
            if current is not None and current.key == key and current.status in ("running", "done"):
                return current
            if current is not None and current.status == "running":
                self._cancel(current)
            question = Question(next(self._numbers), key, work)
            self._kept[question.number] = question
            for number in sorted(self._kept)[:-KEPT]:
                del self._kept[number]
            self._current = question
        threading.Thread(target=question.run, args=(self._gate, self._lock, self.solver), daemon=True).start()
        return question

    def get(self, number):
        with self._lock:
            return self._kept_question(number)

    def cancel(self, number):
        with self._lock:
            question = self._kept_question(number)
            if question.status == "running":
                self._cancel(question)
            return question

    def _kept_question(self, number):
        if number not in self._kept:
            raise FlipnetError(f"no question {number} here (answered long ago, or never asked)")
        return self._kept[number]

    def _cancel(self, question):
        question.status = "cancelled"  # if it has not reached the solver yet, it never will
        self.solver.cancel()
