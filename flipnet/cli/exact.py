"""The exact values' commands: `solve` (a table), `value` (one position, a list of them, a long
solve kept in a checkpoint or split into pieces), `data` (the datasets) and `endgame`
(the Cram solver's database)."""

import contextlib
import sys
import time

from flipnet import games
from flipnet.base.checks import check_seed
from flipnet.base.cores import check_search_workers
from flipnet.base.errors import BadInput, FlipnetError
from flipnet.cli.common import board_game_names, engine_from_environment, game_names, rule_options


def parse_solve(sub):
    p = sub.add_parser("solve", help="value table of every state of a board game")
    p.add_argument("game", choices=board_game_names())
    p.add_argument("--shape", required=True, help="ROWSxCOLS, e.g. 5x5 or 1x20")
    p.add_argument("-o", "--output", help="write the table (and the original split, for the "
                   "study's shapes) to this HDF5 file")
    rule_options(p)
    p.add_argument("--threads", type=int, default=2, help="worker threads (1 or more)")
    p.set_defaults(run=cmd_solve)


def parse_value(sub):
    p = sub.add_parser("value", help="value, winner and winning moves of one position")
    p.add_argument("game", choices=game_names())
    forms = "; ".join(f"{name}: {games.registration(name).form[1]}" for name in game_names())
    p.add_argument("position", nargs="?", help=f"{forms}; '-': one position a line from standard input, "
                   "one JSON line each")
    p.add_argument("--file", metavar="FILE", help="one position a line from FILE, one JSON line each "
                   "(a bad line is reported with its number; the rest go on)")
    p.add_argument("--format", choices=("lines", "mcgs"), default=None, help="flip: how positions are read from "
                   "--file or '-' and written: lines (one a line, JSON out; the default) or mcgs (MCGS's .test files: "
                   "[impartial domineering] grids, each {N k} checked, the count right and wrong at the end; the "
                   "default for a file named *.test); with one position, mcgs writes it as a .test case")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-moves", action="store_true", help="the value only, not the winning moves "
                   "(on a large board the moves cost another search)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="give up after this long (flip): the value and the winning moves together")
    p.add_argument("--checkpoint", metavar="FILE", help="flip: keep what the search proves about the largest "
                   "components in FILE as it goes and when stopped; the same command goes on from it (docs/cram.md)")
    p.add_argument("--status", action="store_true", help="with --checkpoint FILE: where the solve kept there "
                   "stands (its work, and what its facts prove of the value: the least it can be, the children "
                   "settled), read while it runs too; searches nothing, and BOARD may be left out")
    p.add_argument("--workers", type=int, metavar="N", default=None,
                   help="threads that search each component of a flip board together (default, and at most: "
                   "the cores the process may use; the same value and moves with any N, only the time differs; "
                   "with --pieces --scheduler, threads a piece on its worker, default 1)")
    p.add_argument("--pieces", action="store_true", help="flip: ask each child of the board (up to symmetry) "
                   "what the root's value needs (is it 0? is it 1? ...), here or as tasks on a cluster by "
                   "--scheduler; the value is the mex of theirs, and --checkpoint keeps what each said "
                   "(docs/scale.md)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="with --pieces: a Dask scheduler (tcp://HOST:8786) whose "
                   "workers value the pieces")
    p.add_argument("--piece-checkpoints", metavar="DIR", help="with --pieces --scheduler: a directory every worker "
                   "can write, where each piece keeps a checkpoint of its own search")
    rule_options(p)
    p.set_defaults(run=cmd_value)


def parse_data(sub):
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


def parse_endgame(sub):
    p = sub.add_parser("endgame", help="build (or check) the Cram solver's endgame database")
    p.add_argument("--dir", help="where to keep it (default: $FLIPNET_CACHE or ~/.cache/flipnet)")
    p.add_argument("--cells", type=int, choices=(28, 30, 32),
                   help="boxes of at most 28 cells (226 MB, seconds), 30 (1.7 GB, about a minute, for 6x7 "
                        "and larger) or 32 (3.9 GB, under two minutes: 4x8 too, for boards of four rows); "
                        "default: keep the database there, else build 28")
    p.set_defaults(run=cmd_endgame)


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

    args.engine = engine_from_environment()
    if args.status:
        return _status(args)
    if (args.position is None) == (args.file is None):
        raise BadInput("give one position, '-' for positions from standard input, or --file FILE")
    if args.workers is not None:
        check_search_workers(args.workers, "--workers")
        from flipnet.base.cores import usable_cores

        cores = usable_cores()
        if args.workers > cores and _may_search(args):
            print(f"flipnet value: --workers {args.workers}: this process may use {cores} cores, so {cores} "
                  f"threads search (more would only take turns)", file=sys.stderr)
    mcgs = _format(args) == "mcgs"
    if args.file is not None or args.position == "-":
        if args.checkpoint is not None:
            raise BadInput("--checkpoint keeps the search of one position; give one, not a list")
        if args.pieces:
            raise BadInput("--pieces splits the search of one position; give one, not a list")
        if mcgs:
            from flipnet.cli.mcgs import values_of_test_file

            return values_of_test_file(args, lambda text: _valued(args, text).value)
        return _values_of_lines(args)
    if (args.scheduler is not None or args.piece_checkpoints is not None) and not args.pieces:
        flag = "--scheduler" if args.scheduler is not None else "--piece-checkpoints"
        raise BadInput(f"{flag} is for the pieces of a solve: give --pieces too")
    if args.pieces or args.checkpoint is not None:
        result, searched = _solved(args)
    else:
        result = _valued(args, args.position)
        searched = _searched(args.engine)
    if mcgs:
        from flipnet.cli.mcgs import print_case

        print_case(result.position, result.value)
        return
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


def _format(args):
    """How positions are read and written: --format, else mcgs for a file named *.test."""
    chosen = args.format or ("mcgs" if (args.file or "").endswith(".test") else "lines")
    if chosen == "mcgs" and (args.game != "flip" or args.misere):
        raise BadInput("--format mcgs reads and writes Cram (MCGS's impartial domineering): flip in normal play")
    if chosen == "mcgs" and args.json:
        raise BadInput("--format mcgs writes a .test file; --json writes JSON: give one")
    return chosen


def _may_search(args):
    """Whether the game asked of, under the rule asked for, may be valued by the Cram search."""
    from flipnet.solve.position import may_search

    return may_search(games.make(args.game, misere=args.misere, max_take=args.max_take))


def _status(args):
    """`value flip [BOARD] --checkpoint FILE --status`: what the checkpoint proves of its
    board's value (`solve/cram/standing.py`), as text or --json."""
    from flipnet.api.solves import standing, work_text, writer_text
    from flipnet.base.files import json_text

    if args.checkpoint is None:
        raise BadInput("--status reads a checkpoint: give --checkpoint FILE")
    if args.file is not None or args.position == "-" or args.pieces or args.scheduler or args.piece_checkpoints:
        raise BadInput("--status reads one checkpoint and searches nothing: give BOARD (or none) and --checkpoint "
                       "FILE only")
    if not _may_search(args):
        raise BadInput("--status reads a checkpoint of the Cram search: flip positions in normal play")
    report = standing(args.checkpoint, args.position, engine=args.engine)
    if args.json:
        print(json_text(report, indent=None), end="")
        return
    print(f"{args.checkpoint}: flip {report['board']}")
    print(f"  {report['facts']:,} facts kept, {report['pieces']} pieces recorded; "
          + (work_text(report["work"]) if report["work"]["runs"] else "no run's work recorded"))
    writer = report["written_by"]
    if writer is not None:
        print(f"  its facts written by {writer_text(writer)}")
    if not report["same_search"]:
        print("  its facts are of another version of the search: `value --checkpoint` of this flipnet refuses the file"
              + (f"; {writer_text(writer)} goes on from it" if writer is not None else ""))
    for part in report["components"]:
        where = f"component of {part['cells']} cells in a {part['box']} box at {part['at'][0]},{part['at'][1]}"
        if "at_least" in part:
            least = part["at_least"]
            print(f"{where}: value at least {least}; is it {least}? {part['settled']} of {part['children']} "
                  f"children (up to symmetry) settled, {part['children'] - part['settled']} open")
        else:
            print(f"{where}: value {part['value']}" + (f" ({part['by']})" if "by" in part else ""))
        for child in part.get("moves", []):
            more = len(child["moves"]) - 1
            name = child["moves"][0] + (f" (+{more} symmetric)" if more else "")
            if "value" in child:
                known = f"value {child['value']}"
            else:
                known = f"not {', '.join(map(str, child['not']))}" if child["not"] else "nothing proven yet"
                if "at_least" in part and part["at_least"] not in child["not"]:
                    known += " (open)"
            print(f"  {name:<28} {known}")


def _solved(args):
    """(Result, {"search": report}) of a long solve (`flipnet.api.solves`): kept in
    --checkpoint FILE, or split into --pieces; what the file holds said on stderr."""
    from flipnet.api.solves import long_solve
    from flipnet.base.progress import bar

    what = "--pieces splits a flip position in normal play into its children" if args.pieces else \
        "--checkpoint keeps the Cram search's facts: flip positions in normal play"
    if not _may_search(args):
        raise BadInput(what)
    if args.pieces and args.timeout is not None:
        raise BadInput("--timeout limits one search; --pieces runs many: stop them with Ctrl-C (--checkpoint keeps "
                       "the pieces done)")
    if args.piece_checkpoints is not None and args.scheduler is None:
        raise BadInput("--piece-checkpoints is for the pieces on a cluster (--scheduler): here the pieces keep "
                       "their facts in --checkpoint FILE")
    solved = long_solve(args.position, args.checkpoint, pieces=args.pieces, scheduler=args.scheduler,
                        piece_checkpoints=args.piece_checkpoints, moves=not args.no_moves, timeout=args.timeout,
                        workers=args.workers, engine=args.engine,
                        progress=(lambda total: bar(total, "pieces asked", unit="question")) if args.pieces else None)
    if solved.checkpoint is not None:
        print(f"flipnet value: {_kept_text(solved, args.pieces)}", file=sys.stderr)
    return solved.result, {"search": solved.search} if solved.search or args.pieces else {}


def _kept_text(solved, pieces):
    """What a long solve's checkpoint holds at its end."""
    from flipnet.api.solves import work_text

    if pieces:
        return f"{solved.checkpoint}: what {solved.pieces} pieces said ({solved.pieces_read} read at the start)"
    if solved.saved is None:
        return f"answered without a search (small components, lines or the mirror rule): {solved.checkpoint} not written"
    facts, size = solved.saved
    return (f"{solved.checkpoint}: {facts:,} facts, {size / 1e6:.1f} MB ({solved.facts_read:,} read at the start); "
            f"{work_text(solved.work)}")


def _valued(args, position):
    """`flipnet.value` of one position with the command's options (one limit for the value
    and the moves together)."""
    from flipnet.api.positions import value

    return value(position, args.game, misere=args.misere, timeout=args.timeout, moves=not args.no_moves,
                 workers=args.workers, max_take=args.max_take, engine=args.engine)


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


def _searched(engine):
    """{"search": what the engine's search did} when it ran in this command, else what the
    plain recursion for small components valued, if it ran."""
    report = engine.report()
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
            more = {"workers": args.workers, "scheduler": args.scheduler, "engine": engine_from_environment()} \
                if isinstance(spec, SampledDataset) else {}
            values, seconds = spec.build(spec.path(out_dir), args.seed, progress.update, **more)
        print(f"wrote {spec.path(out_dir)}: {values.size} positions, values 0..{values.max()}, {seconds:.1f} s")


def cmd_endgame(args):
    from flipnet.base.places import cache_dir
    from flipnet.base.progress import bar
    from flipnet.solve.engine import endgame_database

    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        shown = []  # the bar, once a build begins (a sound database is only checked)

        def progress(done, total):
            if not shown:
                shown.append(stack.enter_context(bar(total, "endgame", unit="pos")))
            shown[0].update(done - shown[0].n)

        endgame = endgame_database(args.dir, args.cells, log=print, progress=progress)
    print(f"endgame database in {args.dir or cache_dir()}: boxes {endgame.box_names}, "
          f"{endgame.nbytes / 1e6:.0f} MB, checked and ready in {time.perf_counter() - start:.1f} s")
