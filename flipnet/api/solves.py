"""Long solves of one flip board: `long_solve` keeps what its search proves in a checkpoint
file as it goes (the same call goes on from it after a stop) or splits the board into
pieces, each child asked only what the root's value needs (here, or as tasks on a Dask
cluster); `standing` reads where a kept solve stands. The command line's
`value --checkpoint`, `--pieces` and `--status` are these calls, printed."""

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from flipnet import games
from flipnet.api import arguments
from flipnet.api.positions import _asked, _limited, default_engine
from flipnet.base.cores import MAX_SEARCH_WORKERS
from flipnet.base.errors import BadInput, BadType
from flipnet.solve.engine import Engine, work_text, writer_text
from flipnet.solve.position import Result, analyse

__all__ = ["LongSolve", "long_solve", "standing", "work_text", "writer_text"]  # the last two: a record as read


@dataclass(frozen=True)
class LongSolve:
    """A long solve's answer and what it cost.

    `result`: as `flipnet.value`'s. `search`: what this run searched (the engine's report;
    {} where nothing was). `saved`: (facts, bytes) the checkpoint holds at the end, None
    where the board was answered without a search (small components, lines, the mirror
    rule: the file is then not written) or no file was given. `facts_read`: facts the file
    held at the start. `work`: every run's work with the file, this one included
    ({"runs", "positions", "seconds"}). `pieces`: for a solve in pieces, the answers the
    file records at the end and `pieces_read` those it held at the start."""
    result: Result
    search: dict
    checkpoint: Path | None = None
    saved: tuple[int, int] | None = None
    facts_read: int = 0
    work: dict | None = None
    pieces: int = 0
    pieces_read: int = 0


def long_solve(position, checkpoint: str | Path | None = None, *, pieces: bool = False, scheduler: str | None = None,
               piece_checkpoints: str | Path | None = None, moves: bool = True, timeout: float | None = None,
               workers: int | None = None, progress: Callable[[int], AbstractContextManager] | None = None,
               engine: Engine | None = None) -> LongSolve:
    """The value (and winning moves, `moves`) of one flip board in normal play, by a solve
    that survives its stops.

    `checkpoint`: a file where the search keeps the facts it proves about the largest
    components, written as it goes (the engine's `checkpoint_seconds`) and when stopped;
    the same call goes on from it, and a file of another board or search is refused.
    `pieces`: ask each child of the board (up to symmetry) only what the root's value
    needs, here (`workers` threads) or on the Dask scheduler at `scheduler` (tcp://HOST:8786;
    `workers` threads a piece there), the file keeping what each said;
    `piece_checkpoints`: with a scheduler, a directory every worker can write where each
    piece keeps a checkpoint of its own search. `progress(total)`: with pieces, a context
    manager for a bar of `total` questions (its `update(n)` called as they end).
    `timeout`: seconds for one search (not with pieces: stop those with Ctrl-C).

    >>> import flipnet, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "4x6.ckpt")
    >>> first = flipnet.long_solve("111111/111111/111111/111011", path, moves=False)
    >>> first.result.value, first.saved[0] > 0, first.work["runs"]
    (3, True, 1)
    >>> again = flipnet.long_solve("111111/111111/111111/111011", path, moves=False)
    >>> again.facts_read == first.saved[0], again.work["runs"]
    (True, 2)
    """
    timeout = arguments.seconds(timeout)
    workers = arguments.whole("workers", workers, 1, MAX_SEARCH_WORKERS)
    engine = default_engine() if engine is None else engine
    if not isinstance(engine, Engine):
        raise BadType(f"engine is a flipnet.Engine, not {type(engine).__name__}")
    text, board, state = _board(position, "long_solve")
    if (scheduler is not None or piece_checkpoints is not None) and not pieces:
        raise BadInput(f"{'scheduler' if scheduler is not None else 'piece_checkpoints'} is for the pieces of a solve: "
                       f"give pieces=True too")
    kept = _kept(engine, checkpoint, text) if checkpoint is not None else None
    if pieces:
        return _in_pieces(engine, board, state, kept, scheduler, piece_checkpoints, workers, moves, timeout, progress)
    if kept is not None:
        engine.use_checkpoint(kept)
    engine = _asked(engine, board, workers)
    with _limited(engine, board, timeout):
        result = analyse(board, state, moves=arguments.moves_wanted(moves), engine=engine)
    search = engine.report() or {}
    if kept is None:
        return LongSolve(result, search)
    saved = engine.save_checkpoint()
    if kept.work is not None and search:
        search = {**search, "all_runs": kept.work}  # every run with the file, this one included
    return LongSolve(result, search, kept.path, saved, kept.facts_read, kept.work or kept.work_before)


def standing(checkpoint: str | Path, board: str | None = None, *, engine: Engine | None = None) -> dict:
    """Where the solve kept in `checkpoint` stands, read while it runs too (nothing is
    searched): its board, the facts and pieces it keeps, every run's work, who wrote its
    facts, and what they prove of each component's value (`components`: a value, or the
    least it can be with the children settled and open). `board`, if given, must be the
    file's own.

    >>> import flipnet, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "4x6.ckpt")
    >>> flipnet.long_solve("111111/111111/111111/111011", path, moves=False).result.value
    3
    >>> kept = flipnet.standing(path)
    >>> kept["board"], kept["work"]["runs"], kept["components"][0]["value"]
    ('111111/111111/111111/111011', 1, 3)
    """
    engine = default_engine() if engine is None else engine
    if board is not None:
        board = _board(board, "standing")[0]
    return engine.standing(_path(checkpoint), board)


def _board(position, what):
    """(text, game, state) of a flip board in normal play: the game a long solve searches."""
    if not isinstance(position, str):
        raise BadType(f"{what} takes a flip board as text ('1101/0111'), not {type(position).__name__}")
    text = position.strip()
    board = games.for_position("flip", text)
    return text, board, board.parse(text)


def _path(path):
    """A checkpoint's path, refused in one line where it cannot be one."""
    if not isinstance(path, (str, PathLike)):
        raise BadType(f"checkpoint is a file's path, not {type(path).__name__}")
    if Path(path).is_dir():
        raise BadInput(f"checkpoint {path} is a directory, not a checkpoint file")
    return Path(path)


def _kept(engine, path, text):
    """The checkpoint of `text` at `path`, checked before the work: a file there can be
    written, the disk has room, and a file already there is of this board."""
    kept = engine.checkpoint(_path(path), text)
    kept.check_place()
    return kept


def _in_pieces(engine, board, state, kept, scheduler, piece_checkpoints, workers, moves, timeout, progress):
    from flipnet.base.files import ensure_dir

    if timeout is not None:
        raise BadInput("timeout limits one search; pieces run many: stop them with Ctrl-C (a checkpoint keeps the "
                       "pieces done)")
    if piece_checkpoints is not None and scheduler is None:
        raise BadInput("piece_checkpoints is for the pieces on a cluster (a scheduler): here the pieces keep their "
                       "facts in the checkpoint")
    place = ensure_dir(piece_checkpoints).resolve() if piece_checkpoints is not None else None
    read = len(kept.pieces()) if kept is not None else 0
    try:
        result, report = engine.in_pieces(board, state, scheduler=scheduler, workers=workers, checkpoint=kept,
                                          place=place, moves=moves, progress=progress)
    finally:
        if place is not None and place.is_dir():
            for facts in place.glob("facts-*.npz"):  # what the workers handed each other: of this solve only
                facts.unlink(missing_ok=True)
            if not any(place.iterdir()):
                place.rmdir()  # no piece left a search of its own to go on from
    if kept is None:
        return LongSolve(result, report)
    return LongSolve(result, report, kept.path, pieces=len(kept.pieces()), pieces_read=read)
