"""A long solve in pieces: the root's children, each valued on its own as a task on Dask
distributed (this machine's cores, or a cluster by its scheduler's address:
`base/cluster.py`), and the root's value the mex of theirs.

A piece is the command `flipnet value flip CHILD --no-moves --json`, run by whichever
worker takes it, within that worker's memory (FLIPNET_MEMORY_LIMIT) and with the endgame
database of its machine. Children that are one position up to the eight symmetries of a
rectangle (its rotations and reflections, the transposed board among them) are one piece.
The pieces share nothing: a worker killed in the middle of one has it run again elsewhere
(the scheduler's own doing), and each finished piece's value goes into the checkpoint's
record (`--checkpoint FILE`, checkpoint.py) as it comes back, so the same command, here or
on another machine, values only the pieces not recorded. The record is a few dozen bytes
a piece and true of the board alone: a child's value does not depend on the search or
the database that found it.

What it costs: every child's exact value, where one search of the root stops once the
mex is proven (a root of value 0 needs each child shown not to be 0, not its value). What
it gives: searches of their own, each on its own machine's cores and memory, and a second
computation of a value one search found, sharing none of its table.
"""

import contextlib
import hashlib
import json
import time
from pathlib import Path

from flipnet.base.errors import DamagedFile, FlipnetError, Interrupted
from flipnet.solve.position import Move, Result


def images(text):
    """The board's text under the eight symmetries of a rectangle."""
    rows = text.split("/")
    cols = ["".join(row[c] for row in rows) for c in range(len(rows[0]))]
    found = []
    for grid in (rows, cols):  # the board and its transpose
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                lines = grid[::-1] if flip_rows else grid
                found.append("/".join(line[::-1] if flip_cols else line for line in lines))
    return found


def canonical(text):
    """One text for a position and all its images: the least of them."""
    return min(images(text))


def pieces_of(game, state):
    """{piece: [moves that leave it]}: the root's children up to symmetry, each by its
    canonical text, in the order of their first move."""
    pieces = {}
    for move in game.legal_moves(state):
        pieces.setdefault(canonical(game.format(game.play(state, move))), []).append(move)
    return pieces


def value_piece(text, workers, place=None):
    """A task: {"value", "positions", "seconds"} of one piece, by the flipnet command.
    `place`: a directory where the piece keeps a checkpoint of its own search
    (`piece_checkpoint`), so that a piece stopped in the middle (Ctrl-C, a session's end)
    goes on from it when it runs again; it is deleted once the piece is recorded."""
    from flipnet.base.cluster import command_task

    started = time.perf_counter()
    own = piece_checkpoint(place, text) if place is not None else None
    argv = ["value", "flip", text, "--no-moves", "--json", "--workers", str(workers)]
    printed = command_task(argv + (["--checkpoint", str(own)] if own else []), stdout=True)["-"]
    answer = json.loads(printed)
    value, cells = answer.get("nim_value"), text.count("1")
    if not isinstance(value, int) or not 0 <= value <= cells // 2:
        raise RuntimeError(f"the piece {text} was given the value {value!r}, which {cells} cells do not allow")
    if own is not None:
        own.unlink(missing_ok=True)
    return {"value": value, "positions": int(answer.get("search", {}).get("positions", 0)),
            "seconds": round(time.perf_counter() - started, 3)}


def piece_checkpoint(place, text):
    """The file of a piece's own checkpoint in the directory `place`."""
    return Path(place) / f"piece-{hashlib.sha256(text.encode()).hexdigest()[:16]}.ckpt"


def pieces_place(checkpoint):
    """Where the pieces run here keep their own checkpoints: a directory beside the
    solve's checkpoint file."""
    return checkpoint.path.with_name(checkpoint.path.name + ".pieces")


def solve_in_pieces(game, state, scheduler=None, workers=1, checkpoint=None, progress=None, place=None):
    """(Result, report) of the root `state` of a flip `game` by its pieces: the value, and
    the winning moves (those leaving a piece of value 0), on the Dask scheduler at
    `scheduler`, else on this machine's cores, `workers` threads a piece. `checkpoint`
    (checkpoint.Checkpoint): its record of finished pieces is read first and written as
    each piece comes back. Ctrl-C keeps what is recorded; a failed piece is one line.
    `place`: a directory every worker can write, where each piece keeps a checkpoint of
    its own search (`value_piece`). `progress(total)`: a tqdm bar of pieces done, opened
    once the record is read."""
    from flipnet.base.cluster import connected, distributed, run_tasks

    distributed()  # installed, or one line saying how, before any work
    text = game.format(state)
    pieces = pieces_of(game, state)
    record = checkpoint.pieces() if checkpoint is not None else {}
    strange = next((piece for piece, answer in record.items()
                    if piece not in pieces or answer["value"] > piece.count("1") // 2), None)
    if strange is not None:
        raise DamagedFile(f"checkpoint {checkpoint.path} is damaged: it records {strange} of value "
                          f"{record[strange]['value']}, which is no child of {text} or has fewer cells")
    recorded = len(record)
    todo = [(piece, (piece, workers, place)) for piece in pieces if piece not in record]
    started = time.perf_counter()

    def done(piece, answer):
        record[piece] = answer
        if checkpoint is not None:
            checkpoint.save_pieces(record)

    try:
        if todo:
            with connected(scheduler, None, workers) as client, \
                    (progress(len(pieces)) if progress else contextlib.nullcontext()) as shown:
                if shown is not None:
                    shown.update(recorded)
                failed = run_tasks(client, value_piece, todo, "piece", done, shown)
            if failed:
                piece, error = next(iter(failed.items()))
                kept = f"; {checkpoint.path} keeps the {len(record)} done" if checkpoint is not None else ""
                raise FlipnetError(f"piece {piece}: {error} ({len(failed)} of {len(todo)} pieces failed{kept})")
    except Interrupted as exc:
        kept = (f"{checkpoint.path} keeps {len(record)} of {len(pieces)} pieces: the same command goes on from there"
                if checkpoint is not None else "give --checkpoint FILE to keep the finished pieces")
        raise Interrupted(f"{exc}; {kept}") from None
    values = {piece: record[piece]["value"] for piece in pieces}
    value = next(v for v in range(len(pieces) + 1) if v not in values.values())
    piece_of = {move: piece for piece, moves in pieces.items() for move in moves}
    winning = [Move(game.format_move(move), game.format(game.play(state, move)))
               for move in game.legal_moves(state) if values[piece_of[move]] == 0]  # in the board's order
    report = {"by": "pieces", "pieces": len(pieces), "recorded": recorded, "run": len(todo),
              "positions": sum(record[piece]["positions"] for piece in pieces),
              "seconds": round(time.perf_counter() - started, 3),
              "piece_seconds": round(sum(record[piece]["seconds"] for piece in pieces), 3)}
    return Result(game.name, game.rule, text, value, winning_moves=winning), report
