"""The exact engine's front door: one object, built from one frozen record of settings,
that answers every question about flip positions the Cram search answers.

`Settings` holds every choice (threads, table size, endgame database, mirror rule, sets,
wide kernels, memory and time limits, the plain recursion, progress, how often a checkpoint
is written); `Settings.from_environment` reads the FLIPNET_* variables where a program
starts (the CLI, the explorer, the API's default engine), never here below. An `Engine`
owns its plain recursion's memo and its `CramSolver` (built at its first search: Numba
loads then), so two engines in one process share nothing and each gives its own answers.
The games' theories (`position.py`) ask the engine they are given.
"""

import contextlib
import dataclasses
import time
from dataclasses import dataclass

from flipnet.base.cores import MAX_SEARCH_WORKERS
from flipnet.base.errors import FlipnetError
from flipnet.solve.cram.limits import CHECKPOINT_SECONDS, MAX_TABLE_LOG, MIN_TABLE_LOG, SETS_UP_TO, memory_limit
from flipnet.solve.cram.limits import COMPILING, SAMPLE_LANES  # noqa: F401 - the engine's names for the layers above
from flipnet.solve.parts import WORD_CELLS

ENDGAME_CHOICES = ("auto", "cached", "off")
# The settings a program's environment may set, with the variable that sets each
ENVIRONMENT = {"endgame": "FLIPNET_ENDGAME", "mirror": "FLIPNET_MIRROR", "wide_from": "FLIPNET_WIDE_FROM",
               "sets_up_to": "FLIPNET_SETS_UP_TO", "plain": "FLIPNET_PLAIN", "memory_limit": "FLIPNET_MEMORY_LIMIT",
               "checkpoint_seconds": "FLIPNET_CHECKPOINT_SECONDS"}


@dataclass(frozen=True)
class Settings:
    """How an engine searches. `workers`: threads searching each component together (None:
    the cores the process may use); `table_log`: log2 of the table's entries, fixed (None:
    grown to each question's largest component, up to `max_table_log`); `endgame`: "auto"
    loads the database when a component of 30 cells comes, building it once in the cache,
    "cached" loads one already built and never writes a file (a server), "off" searches
    without; `mirror`: the mirror rule's zeros; `sets_up_to`: the largest value a question
    may want and still be asked by sets (-1: value by value everywhere); `wide_from`: cells
    of a box from which the two-word kernels search it (65 unless a check asks for fewer);
    `memory_limit`: bytes the tables may count on at most (None: what the machine allows);
    `time_limit`: seconds a question may take (None: no limit); `plain`: small components
    by the plain recursion, no compile (False: every position searched, for timing);
    `progress`: bars on stderr; `checkpoint_seconds`: between two writes of a checkpoint."""

    workers: int | None = None
    table_log: int | None = None
    max_table_log: int = MAX_TABLE_LOG
    endgame: str = "auto"
    mirror: bool = True
    sets_up_to: int = SETS_UP_TO
    wide_from: int = WORD_CELLS + 1
    memory_limit: int | None = None
    time_limit: float | None = None
    plain: bool = True
    progress: bool = True
    checkpoint_seconds: float = CHECKPOINT_SECONDS

    def __post_init__(self):
        _whole_in("workers", self.workers, 1, MAX_SEARCH_WORKERS, optional=True)
        _whole_in("table_log", self.table_log, MIN_TABLE_LOG, MAX_TABLE_LOG, optional=True)
        _whole_in("max_table_log", self.max_table_log, MIN_TABLE_LOG, MAX_TABLE_LOG)
        _whole_in("sets_up_to", self.sets_up_to, -1, 63)
        _whole_in("wide_from", self.wide_from, 4, WORD_CELLS + 1)
        _whole_in("memory_limit", self.memory_limit, 1, None, optional=True)
        if self.endgame not in ENDGAME_CHOICES:
            raise FlipnetError(f"endgame must be one of {', '.join(ENDGAME_CHOICES)}, got {self.endgame!r}")
        for name in ("mirror", "plain", "progress"):
            if not isinstance(getattr(self, name), bool):
                raise FlipnetError(f"{name} must be True or False, got {getattr(self, name)!r}")
        _seconds("time_limit", self.time_limit, optional=True)
        _seconds("checkpoint_seconds", self.checkpoint_seconds)

    def replace(self, **changes):
        """These settings with some changed (checked again)."""
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_environment(cls, environ, **given):
        """The settings a program's environment asks for (`ENVIRONMENT`), then `given`;
        a variable that is not one of its values is refused in one line naming it."""
        read = {}
        for name, variable in ENVIRONMENT.items():
            text = environ.get(variable, "").strip()
            if text and name not in given:
                read[name] = _setting(cls, name, variable, text)
        return cls(**{**read, **given})


def _setting(cls, name, variable, text):
    """The setting `name` as the environment variable `variable` writes it, checked."""
    if name in ("mirror", "plain"):
        value = _on_off(variable, text)
    elif name == "endgame":
        value = {"on": "auto", "off": "off", "cached": "cached"}.get(text) or \
            _refused(variable, text, "give on, off or cached")
    elif name == "memory_limit":
        value = memory_limit(text)
    elif name == "checkpoint_seconds":
        value = _number(variable, text, "a number of seconds")
    else:
        value = _number(variable, text, "a whole number", int)
    try:
        cls(**{name: value})
    except FlipnetError as exc:  # "NAME must be ...": said of the variable
        _refused(variable, text, str(exc).split(" ", 1)[1].split(", got")[0])
    return value


def _whole_in(name, value, low, high, optional=False):
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise FlipnetError(f"{name} must be a whole number {bound}{', or None' if optional else ''}, got {value!r}")


def _seconds(name, value, optional=False):
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise FlipnetError(f"{name} must be a number of seconds above 0{', or None' if optional else ''}, "
                           f"got {value!r}")


def _refused(variable, text, why):
    raise FlipnetError(f"{variable}={text!r}: {why}")


def _on_off(variable, text):
    if text not in ("on", "off"):
        _refused(variable, text, "give on or off")
    return text == "on"


def _number(variable, text, what, kind=float):
    try:
        return kind(text)
    except ValueError:
        raise FlipnetError(f"{variable}={text!r} is not {what}") from None


class Engine:
    """Exact values of flip positions by one engine's plain recursion and search. Its
    questions share its tables: the optimal player asks one a move, a dataset one a
    position. Thread-safe as its search is (one kernel at a time). `flipnet.value` and
    `flipnet.values` ask it through `engine=`; it also keeps a long solve's checkpoint
    (`checkpoint`, `use_checkpoint`, `save_checkpoint`), says where one stands
    (`standing`), solves in pieces (`in_pieces`) and says what it searched (`report`).

    >>> import flipnet
    >>> engine = flipnet.Engine(flipnet.EngineSettings(workers=1, endgame="off"))
    >>> flipnet.value("1111/1111/1111", engine=engine, moves=False).value
    1
    >>> engine.report()["by"], engine.searching   # 12 cells: the recursion, no compiled search
    ('plain recursion', False)
    """

    def __init__(self, settings=None):
        from flipnet.solve.small import Plain

        self.settings = Settings() if settings is None else settings
        self.plain = Plain(endgame=None if self.settings.endgame == "off" else self._endgame_for_plain)
        self._search = None  # the CramSolver, built at the first question the recursion leaves
        self._workers = None  # threads asked for before the search was built
        self._limits = []  # time limits open before the search was built, entered when it is

    def __repr__(self):
        return f"Engine({self.settings!r})"

    @property
    def searching(self):
        """Whether this engine's search has been built (its first large question came)."""
        return self._search is not None

    def search(self):
        """The engine's `CramSolver`, built at first use: it loads Numba (0.2-0.7 s), which
        no small position needs."""
        if self._search is None:
            self._search = self._built()
        if self._workers is not None:
            self._search.use_workers(self._workers)
            self._workers = None
        for limit in self._limits:
            if not limit["entered"]:
                limit["entered"] = True
                left = None if limit["seconds"] is None else max(limit["seconds"] - (time.perf_counter() -
                                                                                    limit["since"]), 1e-3)
                limit["stack"].enter_context(self._search.time_limit(left, asked=limit["seconds"]))
        return self._search

    def _built(self):
        from flipnet.base.cores import usable_cores
        from flipnet.solve.cram.solver import CramSolver
        from flipnet.solve.cram.standing import in_a_line
        from flipnet.solve.cram.warm import start_in_background

        s = self.settings
        built = CramSolver(tt_log=s.table_log or MIN_TABLE_LOG, grow_table=s.table_log is None,
                           workers=min(s.workers or usable_cores(), usable_cores()), progress=s.progress,
                           auto_endgame=s.endgame != "off", mirror=s.mirror, wide_from=s.wide_from,
                           sets_up_to=s.sets_up_to, memory_limit=s.memory_limit, standing_line=in_a_line,
                           compile_in_background=start_in_background)
        built.builds_endgame = s.endgame == "auto"
        built.max_table_log = s.max_table_log
        return built

    def _endgame_for_plain(self):
        """The endgame database for the plain recursion: the search's where it has loaded
        one (one map of the file), else the one the cache holds (a stat and a map: no
        kernel); None where none is built (the search builds it when it needs it)."""
        from flipnet.solve.cram.endgame import Endgame

        if self._search is not None and self._search.endgame.boxes.size:
            return self._search.endgame
        return Endgame.load_or_build() if Endgame.is_built() else None

    def load_endgame(self):
        """Load the endgame database now (building it once where the settings allow), not
        when the first component of 30 cells comes: a benchmark's timings leave it out."""
        self.search().use_endgame()

    def exact(self, ask):
        """ask(answerer) of a flip position's cells: by the plain recursion when its
        components are small (and the settings allow it), else by the search."""
        answer = self.by_recursion(ask)
        return ask(self.search()) if answer is None else answer

    def by_recursion(self, ask):
        """ask(the plain recursion), or None where a component is too large for it (or the
        settings leave it out). No answer is None itself."""
        from flipnet.solve.small import TooLarge

        if not self.settings.plain:
            return None
        try:
            return ask(self.plain)
        except TooLarge:
            return None

    def use_workers(self, workers):
        """Search with `workers` threads from the next question on, at most the cores the
        process may use: more would only take turns on them, each searching ahead what
        the others may not need (on two cores, 4 threads took 12-13% longer than 2:
        docs/cram.md, step 8)."""
        from flipnet.base.cores import check_search_workers, usable_cores

        check_search_workers(workers)
        workers = min(workers, usable_cores())
        if self._search is not None:
            self._search.use_workers(workers)
        else:
            self._workers = workers

    @contextlib.contextmanager
    def time_limit(self, seconds=None):
        """One limit in seconds (None: the settings' `time_limit`) for every search a
        question takes: its value, each component's moves, the mapping of its table.
        Counted from here, also where the search is built later inside it."""
        seconds = self.settings.time_limit if seconds is None else seconds
        if self._search is not None:
            with self._search.time_limit(seconds):
                yield
            return
        with contextlib.ExitStack() as stack:
            limit = {"seconds": seconds, "since": time.perf_counter(), "stack": stack, "entered": False}
            self._limits.append(limit)
            try:
                yield
            finally:
                self._limits.remove(limit)

    def values_of_states(self, states, rows, cols):
        """Values of many positions of one board of at most one word, in one search call."""
        import numpy as np

        return self.search().values_of_states(np.asarray(states, np.uint64), rows, cols)

    def values_of_sample(self, states, rows, cols, budget=0, progress=None):
        """Values of a sample's positions dealt to SAMPLE_LANES lanes, each from an empty
        table and no database (`CramSolver.values_of_sample`): -1 over the budget."""
        return self.search().values_of_sample(states, rows, cols, budget, progress)

    def lane_settings(self):
        """What a lane's values depend on besides its positions (`value_lane`)."""
        return self.search().lane_settings()

    def use_checkpoint(self, checkpoint):
        """Keep the facts of the searches in `checkpoint` (`cram.checkpoint.Checkpoint`),
        starting from those it holds."""
        self.search().use_checkpoint(checkpoint)

    def save_checkpoint(self):
        """Write the checkpoint once more (a finished solve's facts, its value among them);
        (facts, bytes), or None where no search ran."""
        if self._search is None:
            return None
        checkpoint = self._search.checkpoint
        if checkpoint is None or checkpoint.facts_identity is None:
            return None
        return self._search.save_checkpoint()

    def checkpoint(self, path, board, only_read=False):
        """A `Checkpoint` of `board` at `path`, written as often as the settings say."""
        from flipnet.solve.cram.checkpoint import Checkpoint

        return Checkpoint(path, board, only_read=only_read, seconds=self.settings.checkpoint_seconds)

    def standing(self, path, board=None):
        """Where the solve kept in the checkpoint at `path` stands (`cram.standing`)."""
        from flipnet.solve.cram.standing import standing

        return standing(path, board, self.settings)

    def in_pieces(self, game, state, scheduler=None, workers=None, checkpoint=None, place=None, progress=None,
                  moves=True):
        """(Result, report) of a flip board by its children (`cram.pieces`), each asked
        only what the root's value needs: here by this engine (`workers` threads each), or
        on the Dask scheduler at `scheduler`, whose workers each keep an engine of these
        settings (`workers` threads a piece, default 1). `checkpoint`: the record of what
        the pieces said, read first and written at each answer; `place`: a directory where
        each piece keeps a checkpoint of its own search; `moves`: the winning moves too."""
        from flipnet.solve.cram.pieces import ask_piece, in_this_process, on_a_cluster, solve_in_pieces

        if scheduler is None:
            if workers is not None:
                self.use_workers(workers)
            if checkpoint is not None:  # the pieces' facts beside their record
                self.use_checkpoint(checkpoint)
            run_round = in_this_process(lambda piece, target: ask_piece(self, piece, target, place))
            try:
                return solve_in_pieces(game, state, run_round, checkpoint, moves, progress)
            finally:
                if checkpoint is not None and not self._search.supervisor.left:  # the facts beside the record
                    self.save_checkpoint()
        from flipnet.base.cluster import connected

        settings = self.settings.replace(workers=workers or 1, progress=False)
        with connected(scheduler) as client:
            return solve_in_pieces(game, state, on_a_cluster(client, piece_task, settings, place), checkpoint, moves,
                                   progress)

    def report(self):
        """What this engine has searched: the search's counters once it ran, else the plain
        recursion's, else None."""
        if self._search is not None:
            return self._search.report()
        return self.plain.report()

    def cancel(self):
        """From another thread: stop the question under way (`CramSolver.cancel`)."""
        if self._search is not None:
            self._search.cancel()

    def begin_question(self):
        if self._search is not None:
            self._search.begin_question()

    def compiling(self):
        """What the search is compiling for the first time, or None."""
        return self._search.compiling() if self._search is not None else None


def endgame_database(directory=None, cells=None, log=None, progress=None, full_check=True, or_larger=False):
    """The endgame database in `directory` (default: the cache), checked (in full with
    `full_check`), built there first where it is missing: boxes of at most `cells` cells (28,
    30 or 32; None: the one kept there, else 28). `or_larger`: a set of larger boxes kept
    there will do. `log(line)`, `progress(done, total)`: what a build says."""
    from flipnet.solve.cram.endgame import BOX_SETS, Endgame

    if cells and or_larger and Endgame.is_built(directory):
        held = Endgame.load_or_build(directory, log=log, full_check=full_check)
        if held.largest_box >= cells:
            return held
    boxes = BOX_SETS[cells] if cells else None
    return Endgame.load_or_build(directory, boxes=boxes, log=log, progress=progress, full_check=full_check)


def work_text(work):
    """A checkpoint's record of work as a person reads it (`cram.checkpoint.work_text`)."""
    from flipnet.solve.cram.checkpoint import work_text as text

    return text(work)


def writer_text(writer):
    """The flipnet that wrote a checkpoint's facts, as a person reads it."""
    from flipnet.solve.cram.checkpoint import writer_text as text

    return text(writer)


def piece_task(piece, target, settings, place=None):
    """A task on a Dask worker: a piece of a solve asked of the engine that worker keeps for
    its pieces (made of `settings` at its first, within the worker's memory), so that what
    one piece proves serves the later ones there (`cram.pieces.ask_piece`)."""
    from flipnet.base.cluster import worker_memory, worker_state
    from flipnet.solve.cram.pieces import ask_piece

    memory = worker_memory()
    kept = settings if memory is None else settings.replace(memory_limit=min(memory, settings.memory_limit or memory))
    engine = worker_state(("engine", kept), lambda: Engine(kept)) or Engine(kept)
    return ask_piece(engine, piece, target, place)


def value_lane(masks, rows, cols, budget, settings):
    """A task: one lane's values (-1 over the budget) and its seconds, valued as
    `Engine.values_of_sample` values a lane, by a solver of `settings` (`lane_settings`)."""
    import numpy as np

    from flipnet.solve.cram import search
    from flipnet.solve.cram.solver import CramSolver

    solver = CramSolver(progress=False, tt_log=settings["tt_log"], mirror=settings["mirror"])
    solver.control[search.SETS] = settings["sets"]
    out, stats = np.zeros(masks.size, np.int64), np.zeros(8, np.int64)
    start = time.perf_counter()
    if not solver.value_lane(masks, rows, cols, budget, out, solver.lane_controls(), stats):
        raise RuntimeError("the lane's search was stopped")
    return out, time.perf_counter() - start


def check_nimbers(values, cells, allow_unknown=False):
    """Refuse a nimber that no position of that many cells has (`cram.solver.check_nimbers`)."""
    from flipnet.solve.cram.solver import check_nimbers as check

    check(values, cells, allow_unknown)


def compile_database_builder():
    """Compile the endgame database's builder now, or load it from Numba's cache (a wheel
    carries it, so that its first database is built without a compile)."""
    import numpy as np

    from flipnet.solve.cram.box_values import fill_box_values

    fill_box_values(np.zeros(8, np.uint8), 2, 2)


def compile_search(with_endgame):
    """Compile the search's kernels now, or load them from Numba's cache (`cram.warm`): a
    server does it while a person reads its page."""
    from flipnet.solve.cram.warm import compile_kernels

    compile_kernels(with_endgame=with_endgame)
