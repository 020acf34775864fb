"""The `flipnet` command: argument parsing and printing only; the work lives elsewhere."""

import argparse
import json
import sys
import time

import numpy as np

from flipnet import __version__
from flipnet.errors import FlipnetError

GAMES = ("flip", "gridnim", "halfnim", "nim")
TABLE_GAMES = ("flip", "gridnim")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser():
    parser = _Parser(prog="flipnet", description="Sprague-Grundy values: exact solvers, "
                     "datasets and the neural networks of the 2016 flip game study.")
    parser.add_argument("--version", action="version", version=f"flipnet {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("solve", help="value table of every state of a board game")
    p.add_argument("game", choices=TABLE_GAMES)
    p.add_argument("--shape", required=True, help="ROWSxCOLS, e.g. 5x5 or 1x20")
    p.add_argument("-o", "--output", help="write the table (and the original split, for the "
                   "study's shapes) to this HDF5 file")
    _gridnim_options(p)
    p.add_argument("--threads", type=int, default=2)
    p.set_defaults(run=cmd_solve)

    p = sub.add_parser("value", help="value, winner and winning moves of one position")
    p.add_argument("game", choices=GAMES)
    p.add_argument("position", help="flip/gridnim: rows of 0/1 joined by '/'; halfnim: a pile "
                   "size; nim: heap sizes like 1,3,5")
    p.add_argument("--json", action="store_true", help="print JSON")
    _gridnim_options(p)
    p.add_argument("--misere", action="store_true", help="nim: the last mover loses")
    p.set_defaults(run=cmd_value)

    p = sub.add_parser("data", help="write the study's datasets: flip1d.h5 and flip2d.h5")
    p.add_argument("--out-dir", default="data")
    p.add_argument("--seed", type=int, default=None, help="split seed (default: the stored protocol seed)")
    p.add_argument("--only", choices=("1d", "2d"))
    p.set_defaults(run=cmd_data)
    return parser


def _gridnim_options(p):
    p.add_argument("--max-take", type=int, default=3, help="gridnim: stones per move at most")
    p.add_argument("--normal", action="store_true", help="gridnim: the last mover wins")


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except (FlipnetError, ValueError) as exc:
        print(f"flipnet {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"flipnet {args.command}: interrupted", file=sys.stderr)
        return 130


def make_game(name, args, shape=None):
    from flipnet.games import FlipGame, GridNim, HalfNim, Nim

    if name == "flip":
        return FlipGame(*shape)
    if name == "gridnim":
        return GridNim(*shape, max_take=args.max_take, misere=not args.normal)
    if name == "halfnim":
        return HalfNim()
    return Nim(misere=getattr(args, "misere", False))


def cmd_solve(args):
    from flipnet.atomic import check_writable
    from flipnet.games import parse_shape
    from flipnet.progress import bar
    from flipnet.solve import check_table_size, table

    game = make_game(args.game, args, parse_shape(args.shape))
    check_table_size(game)
    if args.output:
        check_writable(args.output)
    start = time.perf_counter()
    with bar(1 << game.n_cells, f"solve {game.name} {game.shape}", unit="states") as progress:
        values = table(game, progress=progress.update, threads=args.threads)
    seconds = time.perf_counter() - start
    label = "win" if game.rule == "misere" else "nim-value"
    print(f"{game.name} {game.shape} ({game.rule} play): {values.size} states in {seconds:.2f} s")
    for v, count in enumerate(np.bincount(values)):
        print(f"  {label} {v}: {count}")
    if args.output:
        _write(args.output, game, values)
        print(f"wrote {args.output}")


def _write(path, game, values, seed=None):
    from flipnet.data import write_table
    from flipnet.splits import SEED, original_split

    split = original_split(game, values, SEED if seed is None else seed)
    write_table(path, game, values, split)


def cmd_value(args):
    from flipnet.analyse import analyse
    from flipnet.games import BoardGame

    if args.game in TABLE_GAMES:
        game = make_game(args.game, args, BoardGame.shape_of(args.position))
    else:
        game = make_game(args.game, args)
    result = analyse(game, game.parse(args.position))
    if args.json:
        print(json.dumps(result.to_json()))
        return
    print(f"{result.game} ({result.rule} play): {result.position}")
    if result.rule == "normal":
        print(f"nim-value: {result.value}")
    print("the first player wins" if result.first_player_wins else "the first player loses")
    if result.winning_moves:
        print("winning moves:")
        for move, position in result.winning_moves:
            print(f"  {move} -> {position}")


def cmd_data(args):
    from pathlib import Path

    from flipnet.games import FlipGame
    from flipnet.progress import bar
    from flipnet.solve import table

    from flipnet.atomic import check_writable

    targets = {"1d": ("flip1d.h5", FlipGame(1, 20)), "2d": ("flip2d.h5", FlipGame(5, 5))}
    chosen = [(Path(args.out_dir) / name, game) for key, (name, game) in targets.items()
              if args.only in (None, key)]
    for path, _ in chosen:
        check_writable(path)
    for path, game in chosen:
        start = time.perf_counter()
        with bar(1 << game.n_cells, f"solve {game.shape}", unit="states") as progress:
            values = table(game, progress=progress.update)
        _write(path, game, values, args.seed)
        print(f"wrote {path}: {values.size} states, values 0..{values.max()}, "
              f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    raise SystemExit(main())
