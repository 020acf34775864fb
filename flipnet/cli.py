"""The `flipnet` command: its arguments, and what each command prints; each command calls
the API or the stage that owns its work (games, solve, datasets, nn, play, report,
explore), where its input is checked. The one rule kept here is the error contract's door:
a FlipnetError is the user's (one line, exit 2), anything else a bug (exit 1)."""

import argparse
import contextlib
import os
import re
import sys
import time
from pathlib import Path

from flipnet import __version__, games
from flipnet.base import signals
from flipnet.base.checks import check_seconds, check_seed
from flipnet.base.cores import check_search_workers
from flipnet.base.errors import BadInput, FlipnetError, Interrupted, TimedOut, bug_report

GAME_NAMES = tuple(sorted(games.GAMES))  # the games' registry, read: a new game is offered at once
TABLE_GAMES = tuple(name for name in GAME_NAMES if issubclass(games.GAMES[name], games.BoardGame))  # boards
MEX_RULES = ("soft", "hard")  # one ply's two ways of reading the children (nn/evaluation/evaluate.py)
MODEL_HELP = ("a model's name (results/NAME.npz if trained here, else the shipped one: flipnet models; "
              "'best' is the best 2D model), or a file's path, written with a '/' or '.npz' (./mlp2d, x.npz)")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2, and a value is read as
    written or refused: a number in plain digits (Python's int() would take '1_0' as 10),
    a flag's text never empty (`-o ""` is not "no file")."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def add_argument(self, *args, **kwargs):
        takes_value = kwargs.get("action") in (None, "store", "append") and kwargs.get("nargs") != 0
        if kwargs.get("type") in STRICT:
            kwargs["type"] = STRICT[kwargs["type"]]
        elif takes_value and kwargs.get("type") is None and args and args[0].startswith("-"):
            kwargs["type"] = _text
        return super().add_argument(*args, **kwargs)


def _strict_int(text):
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise ValueError(text)  # argparse's own line: "invalid int value: 'TEXT'"
    return int(text)


def _strict_float(text):
    if "_" in text:
        raise ValueError(text)
    return float(text)


def _text(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value: give one, or leave the flag out")
    return text


_strict_int.__name__, _strict_float.__name__ = "int", "float"  # argparse names the type in its error
STRICT = {int: _strict_int, float: _strict_float}


def build_parser(train_flags=True):
    """The parser of every command. `train`'s flags come from the training settings, whose
    import loads PyTensor (0.3 s of a 1 s start): main() asks for them for `train` only."""
    parser = _Parser(prog="flipnet", description="Sprague-Grundy values: exact solvers, "
                     "datasets and the neural networks of the 2016 flip game study.")
    parser.add_argument("--version", action="version", version=f"flipnet {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _parse_solve(sub)
    _parse_value(sub)
    _parse_data(sub)
    _parse_train(sub, train_flags)
    _parse_sweep(sub, train_flags)
    _parse_train_nim(sub)
    _parse_survey_nim(sub)
    _parse_play(sub)
    _parse_gui(sub)
    _parse_arena(sub)
    _parse_train_es(sub)
    _parse_evaluate(sub)
    _parse_by_size(sub)
    _parse_predict(sub)
    _parse_compare(sub)
    _parse_endgame(sub)
    _parse_bench(sub)
    _parse_models(sub)
    _parse_explore(sub)
    return parser


def _parse_solve(sub):
    p = sub.add_parser("solve", help="value table of every state of a board game")
    p.add_argument("game", choices=TABLE_GAMES)
    p.add_argument("--shape", required=True, help="ROWSxCOLS, e.g. 5x5 or 1x20")
    p.add_argument("-o", "--output", help="write the table (and the original split, for the "
                   "study's shapes) to this HDF5 file")
    _rule_options(p)
    p.add_argument("--threads", type=int, default=2, help="worker threads (1 or more)")
    p.set_defaults(run=cmd_solve)


def _parse_value(sub):
    p = sub.add_parser("value", help="value, winner and winning moves of one position")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("position", nargs="?", help="flip/gridnim: rows of 0/1 joined by '/'; halfnim: a pile "
                   "size; nim: heap sizes like 1,3,5; '-': one position a line from standard input, "
                   "one JSON line each")
    p.add_argument("--file", metavar="FILE", help="one position a line from FILE, one JSON line each "
                   "(a bad line is reported with its number; the rest go on)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-moves", action="store_true", help="the value only, not the winning moves "
                   "(on a large board the moves cost another search)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="give up after this long (flip): the value and the winning moves together")
    p.add_argument("--checkpoint", metavar="FILE", help="flip: keep what the search proves about the largest "
                   "components in FILE as it goes and when stopped; the same command goes on from it (docs/cram.md)")
    p.add_argument("--workers", type=int, metavar="N", default=None,
                   help="threads that search each component of a flip board together (default, and at most: "
                   "the cores the process may use; the same value and moves with any N, only the time differs; "
                   "with --pieces, threads a piece, default 1)")
    p.add_argument("--pieces", action="store_true", help="flip: value each child of the board (up to symmetry) "
                   "as a task of its own on this machine's cores, or a cluster by --scheduler; the value is the "
                   "mex of theirs, and --checkpoint keeps each piece done (docs/scale.md)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --pieces: a Dask scheduler (tcp://HOST:8786) whose "
                   "workers value the pieces")
    p.add_argument("--piece-checkpoints", metavar="DIR", help="with --pieces: a directory every worker can write, "
                   "where each piece keeps a checkpoint of its own search (default with --checkpoint FILE and no "
                   "--scheduler: FILE.pieces)")
    _rule_options(p)
    p.set_defaults(run=cmd_value)


def _parse_data(sub):
    p = sub.add_parser("data", help="write datasets: the study's tables (default), or a "
                       "sampled dataset of larger boards (--only flip6x6, flip7x7)")
    p.add_argument("--out-dir", help="default: the data directory ($FLIPNET_DATA, a checkout's data/, else "
                   "~/.cache/flipnet/data), where load_dataset and the recipes look")
    p.add_argument("--seed", type=int, default=None, help="split or sampling seed (default: 2016)")
    p.add_argument("--only", help="one dataset by name: flip1d, flip2d, flip6x6, flip7x7")
    p.add_argument("--workers", type=int, metavar="N", default=2,
                   help="threads that value a sampled dataset's positions (default 2; the same file with "
                   "any N: the positions are dealt to two lanes, each valued alone, so at most 2 run at once)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="value a sampled dataset's lanes as tasks on this Dask "
                   "scheduler (tcp://HOST:8786; docs/scale.md): the same file")
    p.set_defaults(run=cmd_data)


def _parse_train(sub, train_flags):
    p = sub.add_parser("train", help="train a network by a named recipe (--list shows them)")
    p.add_argument("recipe", nargs="?", help="conv1d, mlp2d, conv1d-fast, ... (see --list)")
    p.add_argument("--list", action="store_true", help="print the recipes, one line each")
    if train_flags:
        from flipnet.nn.training.config import add_flags
        add_flags(p)
    p.add_argument("--resume", action="store_true", help="continue from results/NAME.ckpt.npz "
                   "when it exists (an interrupted run ends where it would have)")
    p.add_argument("--overwrite", action="store_true", help="start over a run whose results exist")
    p.set_defaults(run=cmd_train)


def _parse_sweep(sub, train_flags):
    p = sub.add_parser("sweep", help="recipes over several seeds, each run a task on Dask distributed "
                       "(this machine's cores, or a cluster by --scheduler)")
    p.add_argument("recipe", nargs="*", help="recipes of flipnet train (--list there names them)")
    p.add_argument("--run", dest="commands", action="append", default=[], metavar="COMMAND",
                   help="also any flipnet command with {seed} in it, e.g. \"arena nim --seed {seed} --out "
                   "results/arena-seed{seed}.json\" (the files its --out, --results, --weights or -o name come "
                   "back); repeat it for several")
    p.add_argument("--seeds", required=True, metavar="SEEDS", help="seeds like 1-5, 1,3,7 or 1-3,9: each "
                   "seed's run is written where `flipnet train RECIPE --seed S --out RECIPE-seedS` would")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler (tcp://HOST:8786) whose workers "
                   "run the tasks (default: worker processes on this machine, one per usable core)")
    p.add_argument("--jobs", type=int, metavar="N", help="without --scheduler: worker processes here "
                   "(default: the usable cores over the cores one run takes)")
    p.add_argument("--overwrite", action="store_true", help="run again the seeds whose files exist")
    if train_flags:
        from flipnet.nn.training.config import add_flags
        add_flags(p)
    p.set_defaults(run=cmd_sweep)


def _parse_train_nim(sub):
    p = sub.add_parser("train-nim", help="train the C++ NIM perceptron (HalfNim, n < 128)")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--seed", type=int, default=None, help="initial weights (default: 52, see README)")
    p.add_argument("--database-seed", type=int, default=0, help="random moves of losing piles")
    p.add_argument("--weights", default="results/nimWeights.txt", help="where to write the weights (default: "
                   "results/nimWeights.txt, which play and gui then read; `make train-nim` writes the shipped file)")
    p.add_argument("--results", default="results/nim.json", help="the report; a checkpoint "
                   "(.ckpt.npz) is kept beside it")
    p.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    p.set_defaults(run=cmd_train_nim)


def _parse_survey_nim(sub):
    p = sub.add_parser("survey-nim", help="train the NIM perceptron from many initial-weight "
                       "seeds and count each one's misses")
    p.add_argument("--seeds", default="0:100", help="FROM:TO, the seeds FROM..TO-1 (default 0:100)")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--database-seed", type=int, default=0, help="random moves of losing piles")
    p.add_argument("--out", help="also keep the results in this JSON file, seed by seed")
    p.add_argument("--resume", action="store_true", help="skip the seeds --out already holds")
    p.add_argument("--json", action="store_true", help="print the misses of every seed as JSON")
    p.set_defaults(run=cmd_survey_nim)


def _parse_play(sub):
    p = sub.add_parser("play", help="play a game in the console against an agent")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("--ai", default=None, help="the opponent: random, optimal (perfect), difficulty:P; nim: "
                   "random-row, lowest, nonzero-nimsum (the course template's players), normal-nimsum, "
                   "student-es, feature-es; neural; network[:MODEL] (a trained flip model) "
                   "(default: neural for halfnim, else optimal)")
    p.add_argument("--start", help="the starting position (halfnim: 2-127, asked if not given)")
    p.add_argument("--first", choices=("you", "ai"), help="who moves first (asked if not given; "
                   "halfnim: the AI, as in the original)")
    _game_options(p)
    p.add_argument("--seed", type=int, help="seed of the AI's random choices")
    p.set_defaults(run=cmd_play)


def _parse_gui(sub):
    p = sub.add_parser("gui", help="play HalfNim in a window against the NIM perceptron")
    p.add_argument("game", choices=("halfnim",))
    p.add_argument("--start", help="blocks at the start (2-127)")
    p.add_argument("--ai", default="neural", help="neural, perfect or random")
    p.add_argument("--weights", help="NIM perceptron weights (default: results/nimWeights.txt if trained here, else the shipped ones)")
    p.add_argument("--seed", type=int)
    p.set_defaults(run=cmd_gui)


def _parse_arena(sub):
    p = sub.add_parser("arena", help="matches between agents: a win-rate table")
    p.add_argument("game", choices=GAME_NAMES)
    p.add_argument("--agents", required=True, help="comma-separated, e.g. random,optimal,difficulty:0.5")
    p.add_argument("--matches", type=int, default=100, help="per pair")
    p.add_argument("--against", metavar="AGENT", help="one of the agents: every other plays it only")
    p.add_argument("--starts", choices=("alternate", "first"), default="alternate",
                   help="who starts: in turn (default), or always the row's agent (the student's matches)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--out", help="also write the table as JSON to this file")
    _game_options(p)
    p.set_defaults(run=cmd_arena)


def _parse_train_es(sub):
    p = sub.add_parser("train-es", help="evolve flipnet's Nim policy (weights of five features) from match "
                       "results against the course template's random player")
    p.add_argument("--heaps", default="1,3,5,7,9")
    p.add_argument("--normal", action="store_true", help="normal play (default: misere)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", type=int, default=40, help="matches per fitness evaluation")
    p.add_argument("--generations", type=int, default=200, help="default 1000 / lambda")
    p.add_argument("--out", default="results/es.json")
    p.set_defaults(run=cmd_train_es)


def _parse_evaluate(sub):
    p = sub.add_parser("evaluate", help="error rates of a trained model on a table's split or a "
                       "sampled dataset of a larger board")
    p.add_argument("model_file", help=MODEL_HELP)
    p.add_argument("--data", help="default: the dataset it was trained on; data/flip7x7.h5 for a "
                   "larger board (size-free models)")
    p.add_argument("--bucket", type=int, help="default: the bucket it was trained on")
    p.add_argument("--one-ply", action="store_true", help="value the shapes the model never met by "
                   "one ply of lookahead (the mex over its own values of their options)")
    p.add_argument("--mex", choices=MEX_RULES, default="soft", help="with --one-ply: the most likely mex "
                   "of the children's distributions (soft, the default) or the mex of their most likely "
                   "values (hard)")
    p.add_argument("--with", dest="partners", nargs="+", default=[], metavar="MODEL",
                   help="more component models: evaluate the ensemble (geometric mean of their "
                        "shape distributions)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="with --one-ply: value the new shapes on N processes, one core each "
                        "(forked; the same figures)")
    p.add_argument("--out", help="also write the figures as JSON to this file")
    p.set_defaults(run=cmd_evaluate)


def _parse_by_size(sub):
    p = sub.add_parser("by-size", help="a convmem2d network's errors by shape size: on shapes it "
                       "was taught beside the new shapes of validation positions")
    p.add_argument("model_file", help=f"a convmem2d run: {MODEL_HELP}")
    p.add_argument("--data", help="default: the dataset it was trained on")
    p.add_argument("--bucket", type=int, help="default: the bucket it was trained on")
    p.add_argument("--sample", type=int, default=20_000, help="taught shapes read, drawn from the "
                   "table (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="seed of that draw (default 0)")
    p.add_argument("--beyond", metavar="SAMPLE", help="instead: the shapes of a sampled larger "
                   "board's positions that do not fit the training board, valued exactly by the "
                   "Cram solver, the network beside the training table's guess by size and an upper "
                   "reference fitted on these shapes' exact values")
    p.add_argument("--density", type=float, help="with --beyond: the positions drawn "
                   "at this density (default 0.5)")
    p.add_argument("--out", help="also write the figures as JSON to this file")
    p.set_defaults(run=cmd_by_size)


def _parse_predict(sub):
    p = sub.add_parser("predict", help="a trained model's nim-value for one position")
    p.add_argument("model_file", help=MODEL_HELP)
    p.add_argument("position", help="rows of 0/1 joined by '/' (any board for a size-free model)")
    p.add_argument("--one-ply", action="store_true", help="a component model: one ply of lookahead "
                   "(the mex of its own values of the children) on shapes it never met")
    p.add_argument("--mex", choices=MEX_RULES, default="soft", help="with --one-ply: soft or hard "
                   "(as for evaluate)")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="seconds the exact "
                   "search for the true value may take (default 30); past them the prediction is shown alone")
    p.set_defaults(run=cmd_predict)


def _parse_compare(sub):
    p = sub.add_parser("compare", help="the paper's claims beside flipnet's measured figures")
    p.add_argument("--claims", help="the sources' claims (default: the shipped paper.json)")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--data-dir", help="for the class distribution plot (default: the data directory)")
    p.add_argument("--out", default="results/compare.md", help="the table and notes, Markdown")
    p.add_argument("--figures", default="results/figures", help="where the PNG plots go")
    p.add_argument("--readme", help="also rewrite the compare block of this README")
    p.add_argument("--no-shipped", dest="shipped", action="store_false", help="read --results-dir "
                   "only (by default a figure missing there is read from the shipped results, "
                   "data/results/, and its row says so)")
    p.set_defaults(run=cmd_compare)


def _parse_endgame(sub):
    p = sub.add_parser("endgame", help="build (or check) the Cram solver's endgame database")
    p.add_argument("--dir", help="where to keep it (default: $FLIPNET_CACHE or ~/.cache/flipnet)")
    p.add_argument("--cells", type=int, choices=(28, 30),
                   help="boxes of at most 28 cells (453 MB, seconds) or 30 (3.5 GB, under a minute, for 6x7 "
                        "and larger); default: keep the database there, else build 28")
    p.set_defaults(run=cmd_endgame)


def _parse_bench(sub):
    p = sub.add_parser("bench", help="timings beside reference implementations, as ratios")
    p.add_argument("--only", nargs="+", help="sections to run: solve, train1d, train2d, cram, cram-large, "
                   "cram-workers (default: all but cram-large and cram-workers, which take hours and minutes)")
    p.add_argument("--out", help="also write the timings as JSON")
    p.add_argument("--boards", metavar="RxC,...", help="time only these full boards of the Cram sections "
                   "(e.g. 5x8,4x11; default: all of them)")
    p.add_argument("--igsolve", metavar="PATH", help="an igsolve binary (Beling and Rogalski's Cram solver) to "
                   "time beside flipnet's whole commands, one thread each (absent: its column says so)")
    p.add_argument("--limit", type=float, metavar="SECONDS", help="stop each Cram board's command after this "
                   "many seconds and report it so (default: 1800 for the cram section, 7200 for cram-large)")
    p.set_defaults(run=cmd_bench)


def _parse_models(sub):
    p = sub.add_parser("models", help="the trained models that ship with flipnet, with their figures")
    p.add_argument("--check", action="store_true", help="check every shipped file against the "
                   "manifest's sha256")
    p.add_argument("--retrained", metavar="NAME", help="whether results/NAME.npz, trained again, is "
                   "the shipped model bit for bit (its figures beside the shipped ones where not)")
    p.add_argument("--ship", nargs="+", metavar="NAME", help="for maintainers: put these trained runs "
                   "of results/ into data/models/ and the manifest")
    p.add_argument("--ship-results", nargs="+", metavar="FILE", help="for maintainers: put these results "
                   "files of results/ (the arena, seeds, timings) into data/results/ and the manifest")
    p.set_defaults(run=cmd_models)


def _parse_explore(sub):
    p = sub.add_parser("explore", help="a local web page: a board you edit by clicking, every move's "
                       "value, its components, a network beside the truth, and games to play")
    p.add_argument("position", nargs="?", default="11111/11111/11111/11111/11111",
                   help="the flip position to open (default: the full 5x5 board)")
    p.add_argument("--port", type=int, default=8765, help="default 8765; 0 takes any free port")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this "
                   "machine only)")
    p.add_argument("--no-browser", dest="browser", action="store_false", help="do not open a browser")
    p.add_argument("--model", default="best", help="the network shown beside the exact values (a name: "
                   "flipnet models lists them; default best)")
    p.add_argument("--limit", type=float, default=120.0, metavar="SECONDS",
                   help="seconds an exact question may take before it ends (default 120)")
    p.add_argument("--bench", type=int, metavar="EDITS", help="instead: time EDITS edits of a 5x5 board and as many "
                   "7x7 positions, as the page asks, in a warm server (make bench)")
    p.set_defaults(run=cmd_explore)


def _rule_options(p):
    p.add_argument("--misere", action="store_true", default=None,
                   help="the last mover loses (grid Nim's default)")
    p.add_argument("--normal", dest="misere", action="store_false",
                   help="the last mover wins (flip's and Nim's default)")
    p.add_argument("--max-take", type=int, default=None, help="gridnim: stones per move at most (3)")


def _game_options(p):
    """The board or heaps of the game, and the files trained agents read."""
    p.add_argument("--shape", help="flip/gridnim board, ROWSxCOLS (default 1x20 / 4x4)")
    p.add_argument("--heaps", help="nim: heap sizes (default 1,3,5,7,9)")
    _rule_options(p)
    p.add_argument("--es", help="trained ES agent (default: results/es.json if trained here, else the "
                   "shipped one)")
    p.add_argument("--model", help="flip: the network agent's model, a name or a path (with '/' or '.npz') (default: the "
                   "shipped best model for the board; flipnet models lists them)")
    p.add_argument("--one-ply", action="store_true", help="flip: the network agent values the shapes "
                   "its model never met by one ply of lookahead")
    p.add_argument("--weights", help="NIM perceptron weights (default: results/nimWeights.txt if trained here, else the shipped ones)")


def main(argv=None):
    signals.install()  # first: Ctrl-C during the imports below ends in one line too
    argv = sys.argv[1:] if argv is None else list(argv)
    word = argv[0] if argv and not argv[0].startswith("-") else None
    command = f"flipnet {word}" if word else "flipnet"
    try:
        args = build_parser(train_flags=word in ("train", "sweep")).parse_args(argv)
        return args.run(args) or 0
    except Interrupted as exc:
        return _fail(command, exc, _stopped_status(), prefix="")
    except FlipnetError as exc:  # the user's to fix; anything else that escapes is a bug
        return _fail(command, exc, 2)
    except MemoryError:
        return _fail(command, "out of memory", 2)
    except BrokenPipeError:  # the reader went away (`flipnet ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # the machine, not flipnet: a full disk, a permission, a limit
        where = getattr(exc, "filename", None) or _cache_written(exc)
        return _fail(command, f"{exc.strerror or exc}{f' ({where})' if where else ''}", 2)
    except KeyboardInterrupt:
        return _fail(command, "interrupted", _stopped_status(), prefix="")
    except Exception as exc:  # Ctrl-C inside a compiled function's Python part, or a bug
        if _caused_by_interrupt(exc):
            return _fail(command, "interrupted", _stopped_status(), prefix="")
        if os.environ.get("FLIPNET_DEBUG"):
            raise
        return _fail(command, bug_report(exc), 1)


def _fail(command, message, code, prefix="error: "):
    """One line on stderr (the first line of the message), and the exit status."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else type(message).__name__
    print(f"{command}: {prefix}{text}", file=sys.stderr)
    return code


def _cache_written(exc):
    """Where a compile wrote when an OSError without a file name came: Numba's compile
    cache (PyTensor's compiled graphs, flipnet's kernels), or the temporary file in which
    PyTensor's Numba linker writes the source of each graph it compiles."""
    tb, where = exc.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        path = getattr(tb.tb_frame.f_locals.get("self"), "_cache_path", None)
        if path and "numba" in code.co_filename:
            where = f"writing Numba's compile cache in {path}"
        elif code.co_name == "compile_function_src" and "pytensor" in code.co_filename:
            import tempfile

            where = f"writing PyTensor's generated code in {tempfile.gettempdir()}"
        tb = tb.tb_next
    return where


def _stopped_status():
    """The shell's status of a job a signal stopped: 128 + its number (130 Ctrl-C, 143 SIGTERM)."""
    import signal

    return 128 + (signals.received or signal.SIGINT)


def _caused_by_interrupt(exc):
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _shape(text):
    from flipnet.games import parse_shape

    return parse_shape(text) if text else None


def _configured_game(args):
    """The game a play/arena command is about, from --shape, --heaps, --misere ..."""
    from flipnet import games
    from flipnet.play.arena import check_has_moves

    game = games.make(args.game, shape=_shape(args.shape), heaps=args.heaps, misere=args.misere,
                      max_take=args.max_take)
    check_has_moves(game)
    return game


def _agent(spec, game, args):
    from flipnet.play.agents import make_agent

    agent = make_agent(spec, game, es_path=args.es, model_path=args.model, weights_path=args.weights,
                       one_ply=getattr(args, "one_ply", False))
    if getattr(agent, "loaded", None):  # a model asked for by name: say which file (off the JSON)
        print(f"loaded {agent.loaded}", file=sys.stderr if getattr(args, "json", False) else sys.stdout)
    return agent


def _model_file(spec):
    """The file of a model given by path or by name; for a name, a line saying which."""
    from flipnet.base.shipped import resolve

    path, how = resolve(spec)
    if how:
        print(f"loaded {how}")
    return path


def cmd_solve(args):
    import numpy as np

    from flipnet import games
    from flipnet.base.files import check_writable
    from flipnet.base.progress import bar
    from flipnet.datasets import write_solved
    from flipnet.solve import check_table_size, table

    if args.threads < 1:
        raise FlipnetError(f"--threads must be at least 1, got {args.threads}")
    shape = games.parse_shape(args.shape)
    check_table_size(*shape)
    game = games.make(args.game, shape=shape, misere=args.misere, max_take=args.max_take)
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
        write_solved(args.output, game, values)
        print(f"wrote {args.output}")


def cmd_value(args):
    from flipnet.base.files import json_text

    if (args.position is None) == (args.file is None):
        raise BadInput("give one position, '-' for positions from standard input, or --file FILE")
    if args.workers is not None:
        check_search_workers(args.workers, "--workers")
        from flipnet.base.cores import usable_cores

        cores = usable_cores()
        if args.workers > cores and args.game == "flip":
            print(f"flipnet value: --workers {args.workers}: this process may use {cores} cores, so {cores} "
                  f"threads search (more would only take turns)", file=sys.stderr)
    if args.file is not None or args.position == "-":
        if args.checkpoint is not None:
            raise BadInput("--checkpoint keeps the search of one position; give one, not a list")
        if args.pieces:
            raise BadInput("--pieces splits the search of one position; give one, not a list")
        return _values_of_lines(args)
    if (args.scheduler is not None or args.piece_checkpoints is not None) and not args.pieces:
        flag = "--scheduler" if args.scheduler is not None else "--piece-checkpoints"
        raise BadInput(f"{flag} is for the pieces of a solve: give --pieces too")
    if args.pieces:
        result, searched = _in_pieces(args)
    elif args.checkpoint is not None:
        checkpoint = _checkpoint(args)
        result = _valued(args, args.position)
        _checkpoint_written(checkpoint)
        searched = _searched()
    else:
        result = _valued(args, args.position)
        searched = _searched()
    if args.json:
        print(json_text({**result.to_json(), **searched}, indent=None), end="")
        return
    print(f"{result.game} ({result.rule} play): {result.position}")
    if result.rule == "normal":
        print(f"nim-value: {result.value}")
    if result.components and len(result.components) > 1:
        print(f"{len(result.components)} components, nim-values {' XOR '.join(str(c.value) for c in result.components)}")
    print("the first player wins" if result.first_player_wins else "the first player loses")
    if result.winning_moves:
        print("winning moves:")
        for move, position in result.winning_moves:
            print(f"  {move} -> {position}")


def _checkpoint(args, solver=True):
    """The checkpoint of `value flip BOARD --checkpoint FILE`, checked before the work and
    handed to the solver (`solver`)."""
    if args.game != "flip" or args.misere:
        raise BadInput("--checkpoint keeps the Cram search's facts: flip positions in normal play")
    from flipnet.solve.cram.checkpoint import Checkpoint
    from flipnet.solve.position import use_checkpoint

    games.for_position("flip", args.position).parse(args.position)  # a bad board is refused first
    checkpoint = Checkpoint(args.checkpoint, args.position.strip())
    checkpoint.check_place()
    if solver:
        use_checkpoint(checkpoint)
    return checkpoint


def _in_pieces(args):
    """(Result, {"search": report}) of `value flip BOARD --pieces`: its children valued
    as tasks (`solve/cram/pieces.py`)."""
    if args.game != "flip" or args.misere:
        raise BadInput("--pieces splits a flip position in normal play into its children")
    if args.timeout is not None:
        raise BadInput("--timeout limits one search; --pieces runs many: stop them with Ctrl-C (--checkpoint keeps "
                       "the pieces done)")
    from flipnet.base.progress import bar
    from flipnet.base.files import ensure_dir
    from flipnet.solve.cram.pieces import pieces_place, solve_in_pieces

    game = games.for_position("flip", args.position)
    state = game.parse(args.position)
    checkpoint = _checkpoint(args, solver=False) if args.checkpoint is not None else None
    place = args.piece_checkpoints
    if place is None and checkpoint is not None and args.scheduler is None:
        place = pieces_place(checkpoint)
    if place is not None:
        place = ensure_dir(place).resolve()  # the pieces run in directories of their own
    try:
        result, report = solve_in_pieces(game, state, args.scheduler, args.workers or 1, checkpoint,
                                         lambda total: bar(total, "pieces", unit="piece"), place)
    finally:
        if place is not None and place.is_dir() and not any(place.iterdir()):
            place.rmdir()  # no piece left a search of its own to go on from
    if args.no_moves:
        result.winning_moves = []
    if checkpoint is not None:
        print(f"flipnet value: {checkpoint.path}: {report['pieces']} pieces recorded ({report['recorded']} read at "
              f"the start)", file=sys.stderr)
    return result, {"search": report}


def _checkpoint_written(checkpoint):
    """Write the finished solve's checkpoint, and say what it holds (on stderr)."""
    from flipnet.solve.position import save_checkpoint

    saved = save_checkpoint()
    if saved is None:
        print(f"flipnet value: no search ran (a small position): {checkpoint.path} not written", file=sys.stderr)
        return
    facts, size = saved
    print(f"flipnet value: {checkpoint.path}: {facts:,} facts, {size / 1e6:.1f} MB "
          f"({checkpoint.facts_read:,} read at the start)", file=sys.stderr)


def _valued(args, position):
    """`flipnet.value` of one position with the command's options (one limit for the value
    and the moves together)."""
    from flipnet.api.positions import value

    return value(position, args.game, misere=args.misere, timeout=args.timeout, moves=not args.no_moves,
                 workers=args.workers, max_take=args.max_take)


def _values_of_lines(args):
    """One JSON line per position read (blank lines skipped); a bad position gives a line
    {"line": N, "error": ...} and one on stderr, the rest go on, and the exit status is 2."""
    from flipnet.base.files import json_text

    source = "standard input" if args.file is None else args.file
    if args.file is None:
        sys.stdin.reconfigure(errors="replace")  # an undecodable byte is named by the line's own error
    lines = sys.stdin if args.file is None else _open_text(args.file)
    failed = 0
    with lines:
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text:
                continue
            try:
                print(json_text(_valued(args, text).to_json(), indent=None), end="", flush=True)
            except FlipnetError as e:
                failed += 1
                print(json_text({"line": number, "position": text[:80], "error": str(e)}, indent=None), end="",
                      flush=True)
                print(f"flipnet: {source}, line {number}: {e}", file=sys.stderr)
    if failed:
        print(f"flipnet: {failed} of the positions could not be valued (see their lines)", file=sys.stderr)
        return 2
    return None


def _open_text(path):
    try:
        return open(path, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path} is a directory, not a file of positions") from None
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror}") from None


def _searched():
    """{"search": what the Cram solver searched} when it ran in this command, else what the
    plain recursion for small components valued, if it ran."""
    if "flipnet.solve.cram" in sys.modules:  # loaded only by a search
        from flipnet.solve.cram import shared_report

        report = shared_report()
        if report:
            return {"search": report}
    from flipnet.solve.small import report

    report = report()
    return {"search": report} if report else {}


def cmd_data(args):
    from flipnet.base.files import check_writable, ensure_dir
    from flipnet.base.places import data_dir
    from flipnet.base.progress import bar
    from flipnet.datasets import TABLES, SampledDataset, dataset
    from flipnet.datasets.sampled import resuming_note

    check_seed(args.seed)
    check_search_workers(args.workers, "--workers")
    chosen = [dataset(args.only)] if args.only else TABLES
    if args.scheduler is not None and not any(isinstance(spec, SampledDataset) for spec in chosen):
        raise BadInput("--scheduler values a sampled dataset (--only flip6x6 or flip7x7); the tables take seconds here")
    if args.out_dir is None:  # flipnet's own directory: made with its parents, as results/ is
        args.out_dir = data_dir()
        args.out_dir.mkdir(parents=True, exist_ok=True)
    out_dir = ensure_dir(args.out_dir)
    for spec in chosen:
        check_writable(spec.path(out_dir))
    for spec in chosen:
        if isinstance(spec, SampledDataset) and (note := resuming_note(spec, spec.path(out_dir), args.seed)):
            print(note)
        with bar(spec.progress_total(), f"{spec.name} {spec.rows}x{spec.cols}", unit="pos") as progress:
            more = {"workers": args.workers, "scheduler": args.scheduler} if isinstance(spec, SampledDataset) else {}
            values, seconds = spec.build(spec.path(out_dir), args.seed, progress.update, **more)
        print(f"wrote {spec.path(out_dir)}: {values.size} positions, values 0..{values.max()}, {seconds:.1f} s")


def cmd_train(args):
    from flipnet.nn.training import recipes
    from flipnet.nn.training.config import given_settings
    from flipnet.nn.training.run import run

    if args.list:
        print(recipes.listing())
        return
    if not args.recipe:
        raise FlipnetError("name a recipe (flipnet train --list shows them)")
    config = recipes.config_for(args.recipe, **given_settings(args))
    results = run(config, resume=args.resume, overwrite=args.overwrite)
    trained = (f"best model after {results['best_at']:g} of {results['epochs_run']} epochs, "
               if "best_at" in results else "")
    print(f"{config.name}: {trained}valid error {results['valid_error']:.4%}, "
          f"test error {results['test_error']:.4%}, {results['seconds']:.0f} s")
    print(f"wrote {config.path('.json')} and {config.path('.npz')}")


def cmd_sweep(args):
    from flipnet.nn.training.config import given_settings
    from flipnet.nn.training.sweep import command_runs, recipe_runs, run_sweeps, seed_list

    if args.jobs is not None and not 1 <= args.jobs <= 1024:
        raise BadInput(f"--jobs must be in 1..1024, got {args.jobs}")
    if args.jobs is not None and args.scheduler is not None:
        raise BadInput("--jobs sizes the workers of this machine; a --scheduler's cluster has its own")
    settings, seeds = given_settings(args), seed_list(args.seeds)
    if not args.recipe and not args.commands:
        raise BadInput("name recipes (flipnet sweep conv1d fc1d --seeds 1-5) or give --run COMMAND")
    if not args.recipe and set(settings) - {"recipe"}:
        raise BadInput("training flags go with recipes; a --run command carries its own flags")
    if "name" in settings and len(args.recipe) > 1:
        raise BadInput("--out names the runs of one recipe; several recipes keep their own names")
    runs = [run for recipe in args.recipe for run in recipe_runs(recipe, settings, seeds)]
    for command in args.commands:
        more = command_runs(command, seeds)
        _check_command(command, more[0].argv)
        runs += more
    failed = run_sweeps(runs, args.scheduler, args.jobs, args.overwrite)
    for name, error in failed.items():
        print(f"flipnet sweep: {name}: {error}", file=sys.stderr)
    print(f"{len(runs) - len(failed)} of {len(runs)} runs done" + (f", {len(failed)} failed" if failed else ""))
    return 1 if failed else 0


def _check_command(text, argv):
    """Refuse, before any task, a --run command flipnet would refuse (its usage error)."""
    import io

    told = io.StringIO()
    try:
        with contextlib.redirect_stderr(told):
            build_parser(train_flags=argv[0] in ("train", "sweep")).parse_args(argv)
    except SystemExit:
        said = told.getvalue().strip().splitlines()
        raise BadInput(f"--run {text!r}: {said[-1] if said else 'not a flipnet command'}") from None


def cmd_evaluate(args):
    from flipnet.base.files import check_writable, write_json
    from flipnet.nn.evaluation.evaluate import evaluate_file, record_lines
    from flipnet.nn.training.config import check_workers

    check_workers(args.workers)
    if args.out:
        check_writable(args.out)
    args.model_file = _model_file(args.model_file)
    args.partners = [_model_file(p) for p in args.partners]
    record = evaluate_file(args.model_file, args.data, args.bucket, lookahead=args.one_ply and args.mex,
                           partners=args.partners, workers=args.workers)
    print("\n".join(record_lines(record, f" + 1-ply mex ({args.mex}) on new shapes" if args.one_ply else "")))
    if args.out:
        write_json(args.out, record)


def cmd_by_size(args):
    from flipnet.base.files import check_writable, write_json
    from flipnet.nn.evaluation.bysize import errors_by_size_file, header, table_lines

    check_seed(args.seed)
    if args.out:
        check_writable(args.out)
    args.model_file = _model_file(args.model_file)
    if args.beyond:
        if args.data or args.bucket is not None:
            raise FlipnetError("--beyond reads the sample it names: it takes no --data or --bucket")
        return _by_size_beyond(args)
    if args.density is not None:
        raise FlipnetError("--density chooses the positions of a --beyond sample: give --beyond SAMPLE too")
    record = errors_by_size_file(args.model_file, args.data, args.bucket, args.sample, args.seed)
    print(header(record))
    print("\n".join(table_lines(record)))
    if args.out:
        write_json(args.out, record)


def _by_size_beyond(args):
    from flipnet.base.files import write_json
    from flipnet.nn.evaluation.beyond import beyond_header, beyond_lines, errors_beyond_file

    record = errors_beyond_file(args.model_file, args.beyond, 0.5 if args.density is None else args.density)
    print(beyond_header(record))
    print("\n".join(beyond_lines(record)))
    if args.out:
        write_json(args.out, record)


def cmd_predict(args):
    from flipnet.api.models import load_model
    from flipnet.api.positions import value

    timeout = check_seconds(args.timeout)
    model = load_model(args.model_file)
    if model.loaded:
        print(f"loaded {model.loaded}")
    predicted = model.predict(args.position, one_ply=args.one_ply and args.mex)
    ply = " with one ply of lookahead" if args.one_ply else ""
    try:
        true = value(args.position, timeout=timeout, moves=False).value
    except TimedOut as exc:  # out of reach: the prediction stands alone, and says why
        print(f"{args.position}: predicted nim-value {predicted}{ply}; true value unknown: {exc}")
        return
    print(f"{args.position}: predicted nim-value {predicted}{ply}, true {true} "
          f"({'right' if predicted == true else 'wrong'})")


def cmd_train_nim(args):
    from flipnet.base.files import check_writable, write_json
    from flipnet.nn.nim.mlp import SEED
    from flipnet.nn.nim.train import check_epochs, checkpoint_path, run_lines, train_run

    check_seed(args.seed)
    check_seed(args.database_seed, "--database-seed")
    check_epochs(args.epochs)
    checkpoint = checkpoint_path(args.results)
    for path in (args.weights, args.results, checkpoint):
        check_writable(path)
    print(f"Training the MLP ({args.epochs} epochs over the piles 2..127) ...")
    mlp, rows, report = train_run(args.epochs, SEED if args.seed is None else args.seed, args.database_seed,
                                  checkpoint=checkpoint, resume=args.resume)
    mlp.save_weights(args.weights)
    write_json(args.results, report)
    print("\n".join(run_lines(rows, report)))
    print(f"wrote {args.weights} and {args.results}: training {report['train_seconds']:.1f} s, "
          f"{report['seconds']:.1f} s in all")


def cmd_survey_nim(args):
    from flipnet.base.files import json_text
    from flipnet.nn.nim.train import check_epochs, parse_seed_range, survey_lines, survey_to_file

    seeds = parse_seed_range(args.seeds)
    check_epochs(args.epochs)
    check_seed(args.database_seed, "--database-seed")
    found = survey_to_file(seeds, args.epochs, args.database_seed, args.out, args.resume)
    if args.json:
        print(json_text([{"seed": seed, "diff_winning": win, "diff_losing": lose}
                         for seed, win, lose in found]), end="")
        return
    print("\n".join(survey_lines(found)))


def _read_line(prompt):
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    return line if line else None


def cmd_play(args):
    from flipnet.play.console import Match, ask_int, ask_yes_no, play_defaults, run_console

    check_seed(args.seed)
    game = _configured_game(args)
    defaults = play_defaults(game)
    start = game.parse_start(args.start) if args.start is not None else None
    agent = _agent(args.ai or defaults["ai"], game, args)
    if start is None and defaults["ask_start"]:
        low, high = game.start_range
        start = ask_int(_read_line, print, f"Enter number of blocks you want to start ({low} to {high}): ",
                        low, high)
        if start is None:
            print("\ninput ended; no game played")
            return 0
    start = game.start if start is None else start
    game.check_playable(start)
    first = args.first or defaults["first"]
    if first is None:
        user_first = ask_yes_no(_read_line, print, "Do you want to move first? [y/n] ")
        if user_first is None:
            print("\ninput ended; no game played")
            return 0
        first = "you" if user_first else "ai"
    print(f"{'AI moves' if first == 'ai' else 'You move'} first. Starting with {game.describe_start(start)}")
    match = Match(game, agent, state=start, ai_first=first == "ai", seed=args.seed)
    run_console(match, _read_line, print, describe_ai=defaults["describe_ai"])
    return 0


def cmd_gui(args):
    from flipnet import games
    from flipnet.play.agents import make_agent
    from flipnet.play.console import halfnim_note
    from flipnet.play.gui import HalfNimController, HalfNimWindow

    check_seed(args.seed)
    game = games.make("halfnim")
    start = game.parse_start(args.start) if args.start is not None else None
    agent = make_agent(args.ai, game, weights_path=args.weights)
    controller = HalfNimController(agent, seed=args.seed, describe_ai=halfnim_note)
    try:
        window = HalfNimWindow(controller)
    except Exception as exc:  # tkinter.TclError: no display
        raise FlipnetError(f"cannot open a window: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    if start is not None:
        controller.submit(str(start))
        window.redraw()
    window.run()


def cmd_arena(args):
    from flipnet.base.files import check_writable, json_text, write_json
    from flipnet.play.arena import agent_names, arena_record, check_matches, format_table

    game = _configured_game(args)
    names = agent_names(args.agents)
    check_matches(args.matches)
    check_seed(args.seed)
    if args.out:
        check_writable(args.out)
    record = arena_record(game, {n: _agent(n, game, args) for n in names}, args.matches, args.seed, args.against,
                          args.starts)
    if args.out:
        write_json(args.out, record)
    if args.json:
        print(json_text(record, indent=None), end="")
        return
    starts = "alternating who starts" if args.starts == "alternate" else "the row's agent moving first"
    print(f"{game.name} ({game.rule} play) from {game.format(game.start)}: {args.matches} matches "
          f"per pair, {starts}")
    print(format_table(record["win_rate"]))


def cmd_train_es(args):
    from flipnet import games
    from flipnet.base.files import check_writable
    from flipnet.base.progress import bar
    from flipnet.play.arena import check_has_moves
    from flipnet.play.es import check_settings, train_to_file
    from flipnet.play.template import random_row_agent

    check_settings(args.seed, args.matches, args.generations)
    check_writable(args.out)
    game = games.make("nim", heaps=args.heaps, misere=not args.normal)
    check_has_moves(game)
    game.check_playable(game.start)
    start = time.perf_counter()
    with bar(args.generations, "evolve", unit="gen") as progress:
        def step(fitness):
            progress.update()
            progress.set_postfix(fitness=f"{fitness:.2f}")
        agent = train_to_file(game, random_row_agent, args.seed, args.matches, args.generations, args.out, step)
    print(f"wrote {args.out}: fitness {agent.history[-1]:.2f} against the template's random player after "
          f"{args.generations} generations, {time.perf_counter() - start:.0f} s")


def cmd_compare(args):
    from flipnet.base.places import data_dir
    from flipnet.base.shipped import RESULTS_SHIPPED, SHIPPED
    from flipnet.report.compare import run

    shipped = RESULTS_SHIPPED if args.shipped else None
    claims = args.claims or SHIPPED / "paper.json"
    for line in run(claims, args.results_dir, args.data_dir or data_dir(), args.out, args.figures, args.readme,
                    shipped):
        print(line)


def cmd_endgame(args):
    from flipnet.base.places import cache_dir
    from flipnet.base.progress import bar
    from flipnet.solve.cram.endgame import BOX_SETS, Endgame

    start = time.perf_counter()
    boxes = BOX_SETS[args.cells] if args.cells else None
    with contextlib.ExitStack() as stack:
        shown = []  # the bar, once a build begins (a sound database is only checked)

        def progress(done, total):
            if not shown:
                shown.append(stack.enter_context(bar(total, "endgame", unit="pos")))
            shown[0].update(done - shown[0].n)

        endgame = Endgame.load_or_build(args.dir, boxes=boxes, log=print, progress=progress, full_check=True)
    print(f"endgame database in {args.dir or cache_dir()}: boxes {endgame.box_names}, "
          f"{endgame.nbytes / 1e6:.0f} MB, checked and ready in {time.perf_counter() - start:.1f} s")


def cmd_models(args):
    from flipnet.nn.evaluation import shipping

    if args.ship or args.ship_results:
        for name in args.ship or []:
            shipping.ship(name)
        if args.ship_results:
            shipping.ship_results(args.ship_results)
    elif args.retrained:
        print(shipping.retrain_check(args.retrained))
    elif args.check:
        print("\n".join(shipping.check_lines()))
    else:
        print("\n".join(shipping.listing_lines() + _trained_here_lines()))


def _trained_here_lines():
    """The models of results/ that `predict`, `evaluate` and `play` take by name."""
    from flipnet.api.models import models

    trained = [m for m in models() if m.source == "trained here"]
    return [f"trained here ({len(trained)} in results/):"] + [
        f"  {m.name}: {m.kind} on {m.board}"
        + "".join(f", {figure} {value:.2%}" for figure, value in m.figures.items()) for m in trained] if trained else []


def cmd_explore(args):
    import urllib.parse

    from flipnet.explore import answers
    from flipnet.explore.server import serve

    check_seconds(args.limit, "--limit")
    if args.bench is not None:
        from flipnet.explore.bench import run

        if not 1 <= args.bench <= 100_000:
            raise FlipnetError(f"--bench must be from 1 to 100000 edits, got {args.bench}")
        os.environ["FLIPNET_PROGRESS"] = "0"
        run(args.bench, model=answers.check_model_name(args.model))
        return
    if not 0 <= args.port < 65536:
        raise FlipnetError(f"--port must be from 0 to 65535, got {args.port}")
    answers.check_position("flip", args.position)
    answers.check_model_name(args.model)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"flipnet explore: warning: listening on {args.host}, so other machines that reach it can use "
              f"this server", file=sys.stderr)

    def ready(server):
        url = f"{server.url}?p={urllib.parse.quote(args.position, safe='/')}"
        print(f"flipnet explore: {url}  (Ctrl-C to stop)", flush=True)
        if args.browser:
            import webbrowser

            webbrowser.open(url)

    os.environ["FLIPNET_PROGRESS"] = "0"  # the page shows progress; the terminal stays quiet
    serve(args.host, args.port, args.limit, args.model, ready)


def cmd_bench(args):
    from flipnet.report.bench import run

    run(args.only, args.out, args.boards, args.igsolve, args.limit)


if __name__ == "__main__":
    raise SystemExit(main())
