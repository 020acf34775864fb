"""A long solve in pieces: the root's children up to symmetry, each asked only what the
root's value needs, and the root's value the mex of theirs.

Children that are one position up to the eight symmetries of a rectangle (its rotations
and reflections, the transposed board among them) are one piece. The root's value is
found as one search finds it, value after value: for v = 0, 1, ... each piece not yet
known is asked "is your value v?" (`ask_piece`: its parts' values but the largest's
computed, the largest asked only that), until a piece says yes (v is a child's value: on
to v + 1) or every piece has said no (the root's value is v). With the winning moves
wanted, every piece is asked about 0, since each child of value 0 is one.

What a piece proves reaches the pieces after it through the engine's table: on this
machine every piece is asked of the command's own engine (its threads search each piece
together, as one search's do), and on a Dask cluster (`base/cluster.py`) each worker
process keeps an engine for the pieces it is given (`worker_state`). So on one machine
the pieces cost what one search costs; across machines, each worker's table holds what
its own pieces proved. Each answer goes into the checkpoint's record (`--checkpoint FILE`,
checkpoint.py) as it comes: the same command, here or on another machine, asks only what
is not recorded. A worker killed in the middle of a piece has it asked again elsewhere
(the scheduler's own doing). The record holds a piece's value or the values it does not
have, a few dozen bytes a piece, true of the board alone.
"""

import hashlib
import time
from pathlib import Path

from flipnet.base.errors import DamagedFile, FlipnetError, Interrupted
from flipnet.solve.cram.symmetry import canonical, images  # noqa: F401 - images: a piece's symmetric children
from flipnet.solve.parts import WORD_CELLS
from flipnet.solve.result import Move, Result


def pieces_of(game, state):
    """{piece: [moves that leave it]}: the root's children up to symmetry, each by its
    canonical text, in the order of their first move."""
    pieces = {}
    for move in game.legal_moves(state):
        pieces.setdefault(canonical(game.format(game.play(state, move))), []).append(move)
    return pieces


def nearest_the_centre(game, pieces):
    """The pieces in the order one search asks its options: the domino nearest the board's
    centre first (a question that one yes settles asks fewest that way)."""
    middle = ((game.rows - 1) / 2, (game.cols - 1) / 2)

    def distance(piece):
        cells = game.cells(pieces[piece][0])
        return sum(abs(r - middle[0]) + abs(c - middle[1]) for r, c in cells)
    return sorted(pieces, key=distance)


def ask_piece(engine, text, target, place=None):
    """{"value": v} where the piece's value was found whole, else {"is": whether it is
    `target`}, with its "positions" and "seconds", asked of `engine` (on a cluster, the one
    its worker keeps: `engine.piece_task`). `place`: a directory where the piece keeps a
    checkpoint of its own search until it is answered, so that one stopped in the middle
    goes on from it."""
    from flipnet.games.flip import FlipGame

    game = FlipGame.for_position(text)
    state = game.parse(text)
    own = piece_checkpoint(place, text) if place is not None else None
    search, started = engine.search(), time.perf_counter()
    before = search.report()["positions"]
    if own is not None:
        engine.use_checkpoint(engine.checkpoint(own, text))
        if search.shared is None:  # the cluster's workers hand each other their facts there
            from flipnet.solve.cram.shared import SharedFacts

            search.shared = SharedFacts(place)
    try:
        if game.n_cells <= WORD_CELLS:
            answer = {"is": search.value_is(state, game.rows, game.cols, target)}
        else:  # a board past one word: its whole value
            answer = {"value": int(search.value(game.cells(state)))}
    finally:
        if own is not None:
            search.use_checkpoint(None)
    if own is not None:
        own.unlink(missing_ok=True)
        search.shared.give(search, time.perf_counter() - started)
    return {**answer, "positions": search.report()["positions"] - before,
            "seconds": round(time.perf_counter() - started, 3)}


def piece_checkpoint(place, text):
    """The file of a piece's own checkpoint in the directory `place`."""
    return Path(place) / f"piece-{hashlib.sha256(text.encode()).hexdigest()[:16]}.ckpt"


class Record:
    """What is known of each piece: its value, or the values it does not have, with the
    positions and seconds its questions took; written to the checkpoint at each answer."""

    def __init__(self, pieces, checkpoint=None):
        self.pieces, self.checkpoint = pieces, checkpoint
        self.known = dict(checkpoint.pieces()) if checkpoint is not None else {}
        self.recorded = sum(1 for piece in self.known if piece in pieces)
        strange = next((piece for piece, known in self.known.items() if piece not in pieces or
                        known.get("value", 0) > piece.count("1") // 2), None)
        if strange is not None:
            raise DamagedFile(f"checkpoint {checkpoint.path} is damaged: it records {strange}, which is no child of "
                              f"{checkpoint.board} or has fewer cells than its value asks")

    def value(self, piece):
        return self.known.get(piece, {}).get("value")

    def open_for(self, piece, target):
        """Whether the piece must still be asked about `target`."""
        known = self.known.get(piece, {})
        return "value" not in known and target not in known.get("not", ())

    def add(self, piece, target, answer):
        known = dict(self.known.get(piece, {"positions": 0, "seconds": 0.0}))
        known["positions"] += answer["positions"]
        known["seconds"] = round(known["seconds"] + answer["seconds"], 3)
        if "value" in answer or answer["is"]:
            known.pop("not", None)
            known["value"] = answer.get("value", target)
        else:
            known["not"] = sorted({*known.get("not", ()), target})
        self.known[piece] = known
        if self.checkpoint is not None:
            self.checkpoint.save_pieces(self.known)


def solve_in_pieces(game, state, run_round, checkpoint=None, moves=True, progress=None):
    """(Result, report) of the root `state` of a flip `game` by its pieces.
    `run_round(questions, answered, enough)`
    asks [(piece, target)] on this machine or a cluster, calling answered(piece, answer)
    as each comes, until enough() (`in_this_process`, `on_a_cluster`). `checkpoint`
    (checkpoint.Checkpoint): its record is read first and written at each answer. With
    `moves`, every child of value 0 is found (the winning moves). `progress(total)`: a bar
    of questions asked. Ctrl-C keeps what is recorded."""
    text = game.format(state)
    pieces = pieces_of(game, state)
    order = nearest_the_centre(game, pieces)
    record = Record(pieces, checkpoint)
    asked, started, target = [0], time.perf_counter(), 0
    bar = progress(None) if progress else None

    def answered(piece, answer):
        record.add(piece, target, answer)
        asked[0] += 1
        if bar is not None:
            bar.update()

    try:
        while True:
            every = moves and target == 0  # each child of value 0 is a winning move
            found = lambda: any(record.value(piece) == target for piece in pieces)  # noqa: E731
            if not found() or every:
                run_round([(piece, target) for piece in order if record.open_for(piece, target)], answered,
                          (lambda: False) if every else found)
            if not found():
                break
            target += 1
    except (Interrupted, KeyboardInterrupt) as exc:
        kept = (f"{checkpoint.path} keeps what {len(record.known)} of {len(pieces)} pieces said: the same command "
                f"goes on from there" if checkpoint is not None else "give --checkpoint FILE to keep what the pieces "
                "said")
        said = str(exc).split("; ")[0] if isinstance(exc, Interrupted) else "interrupted"
        raise Interrupted(f"{said}; {kept}") from None
    finally:
        if bar is not None:
            bar.close()
    piece_of = {move: piece for piece, moves_ in pieces.items() for move in moves_}
    winning = [Move(game.format_move(move), game.format(game.play(state, move)))
               for move in game.legal_moves(state) if record.value(piece_of[move]) == 0] if moves else []
    known = [record.known[piece] for piece in pieces if piece in record.known]
    report = {"by": "pieces", "pieces": len(pieces), "recorded": record.recorded, "run": asked[0],
              "positions": sum(k["positions"] for k in known), "seconds": round(time.perf_counter() - started, 3),
              "piece_seconds": round(sum(k["seconds"] for k in known), 3)}
    return Result(game.name, game.rule, text, target, winning_moves=winning), report


def in_this_process(ask):
    """`run_round` of a solve on this machine: the questions asked one after the other, each
    by all of the engine's threads, until enough."""
    def run_round(questions, answered, enough):
        for piece, target in questions:
            if enough():
                return
            answered(piece, ask(piece, target))
    return run_round


def on_a_cluster(client, task, settings, place=None):
    """`run_round` of a solve on a Dask cluster: a round's questions as tasks at once
    (`task(piece, target, settings, place)` on a worker); once enough, the rest are
    cancelled. A failed question is one line naming the piece."""
    from flipnet.base.cluster import distributed

    dask = distributed()

    def run_round(questions, answered, enough):
        futures = {client.submit(task, piece, target, settings, place, pure=False): piece
                   for piece, target in questions}
        pending = set(futures)
        try:
            while pending and not enough():
                done = dask.wait(list(pending), return_when="FIRST_COMPLETED").done
                for future in done:
                    pending.discard(future)
                    if future.status != "finished":
                        raise FlipnetError(f"piece {futures[future]}: {future.exception()}")
                    answered(futures[future], future.result())
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None
        finally:
            if pending:
                client.cancel(list(pending))
    return run_round
