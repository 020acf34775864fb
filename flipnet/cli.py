"""The `flipnet` command: argument parsing and printing only; the work lives elsewhere."""

import argparse
import json
import os
import sys
import time

import numpy as np

from flipnet import __version__
from flipnet.errors import FlipnetError, Interrupted

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

    p = sub.add_parser("train", help="train a network (defaults: the paper's protocol)")
    p.add_argument("model", help="conv1d, fc1d, mlp2d, logreg2d, convmlp2d, ...")
    p.add_argument("--epochs", type=int)
    p.add_argument("--lr", type=float, help="learning rate")
    p.add_argument("--batch", type=int, help="minibatch size")
    p.add_argument("--optimizer", help="sgd (the paper's), momentum or adam")
    p.add_argument("--momentum", type=float, help="momentum coefficient (default 0.9)")
    p.add_argument("--schedule", help="learning rate per epoch: constant (the paper's), cosine "
                   "or onecycle (warm-up, then cosine)")
    p.add_argument("--weight-decay", type=float, help="shrink weight matrices: sgd/momentum add "
                   "decay * W to the gradient (an L2 penalty decay/2 * |W|^2), adam decouples it (AdamW)")
    p.add_argument("--augment", choices=("none", "symmetry"),
                   help="symmetry: train on a random rotation/reflection of each state every epoch")
    p.add_argument("--tta", action=argparse.BooleanOptionalAction,
                   help="predict by averaging over the board's symmetries")
    p.add_argument("--shuffle", choices=("epoch", "once"), help="one training order for the whole "
                   "run (once, the paper's) or a new one every epoch")
    p.add_argument("--seed", type=int, help="initialisation and shuffling seed (default 2016)")
    p.add_argument("--bucket", type=int, help="which of the 10 buckets of the split")
    p.add_argument("--patience", type=int, help="stop after this many epochs without a better "
                   "validation error (default 0: run every epoch)")
    p.add_argument("--validate-every", type=int, metavar="N", help="also validate after every "
                   "N-th minibatch (counted across epochs); the best model may fall inside an "
                   "epoch (default: the model's protocol; 0: at the end of each epoch only)")
    p.add_argument("--data", help="HDF5 dataset (default: the model's)")
    p.add_argument("--out", help="run name: results/NAME.json, .npz, .ckpt.npz (default: the model)")
    p.add_argument("--results-dir", help="default: results")
    p.add_argument("--resume", action="store_true", help="continue from results/NAME.ckpt.npz "
                   "when it exists (an interrupted run ends where it would have)")
    p.set_defaults(run=cmd_train)

    p = sub.add_parser("train-nim", help="train the C++ NIM perceptron (HalfNim, n < 128)")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--seed", type=int, default=None, help="initial weights (default: nimmlp.SEED)")
    p.add_argument("--database-seed", type=int, default=0, help="random moves of losing piles")
    p.add_argument("--weights", default="data/nimWeights.txt", help="where to write the weights")
    p.add_argument("--results", default="results/nim.json")
    p.set_defaults(run=cmd_train_nim)

    p = sub.add_parser("survey-nim", help="train the NIM perceptron from many initial-weight "
                       "seeds at once and count each one's misses")
    p.add_argument("--seeds", default="0:100", help="FROM:TO, the seeds FROM..TO-1 (default 0:100)")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--database-seed", type=int, default=0, help="random moves of losing piles")
    p.add_argument("--json", action="store_true", help="print the misses of every seed as JSON")
    p.set_defaults(run=cmd_survey_nim)

    p = sub.add_parser("play", help="play a game in the console against an agent")
    p.add_argument("game", choices=GAMES)
    p.add_argument("--ai", default=None, help="the opponent: random, optimal (perfect), lowest, "
                   "nimsum, es, difficulty:P, neural (default: neural for halfnim, else optimal)")
    p.add_argument("--start", help="the starting position (halfnim: 2-127, asked if not given)")
    p.add_argument("--first", choices=("you", "ai"), help="who moves first (asked if not given; "
                   "halfnim: the AI, as in the original)")
    _game_options(p)
    p.add_argument("--seed", type=int, help="seed of the AI's random choices")
    p.set_defaults(run=cmd_play)

    p = sub.add_parser("gui", help="play HalfNim in a window against the NIM perceptron")
    p.add_argument("game", choices=("halfnim",))
    p.add_argument("--start", type=int, help="blocks at the start (2-127)")
    p.add_argument("--ai", default="neural", help="neural, perfect or random")
    p.add_argument("--weights", help="NIM perceptron weights (default: data/nimWeights.txt)")
    p.add_argument("--seed", type=int)
    p.set_defaults(run=cmd_gui)

    p = sub.add_parser("arena", help="matches between agents: a win-rate table")
    p.add_argument("game", choices=GAMES)
    p.add_argument("--agents", required=True, help="comma-separated, e.g. random,optimal,difficulty:0.5")
    p.add_argument("--matches", type=int, default=100, help="per pair, alternating who starts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--out", help="also write the table as JSON to this file")
    _game_options(p)
    p.set_defaults(run=cmd_arena)

    p = sub.add_parser("train-es", help="evolve the Nim ES agent from match results")
    p.add_argument("--heaps", default="1,3,5,7,9")
    p.add_argument("--normal", action="store_true", help="normal play (default: misere)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", type=int, default=40, help="matches per fitness evaluation")
    p.add_argument("--generations", type=int, default=200, help="default 1000 / lambda")
    p.add_argument("--out", default="results/es.json")
    p.set_defaults(run=cmd_train_es)

    p = sub.add_parser("evaluate", help="error rates of a trained model on a dataset split")
    p.add_argument("model_file", help="results/NAME.npz")
    p.add_argument("--data", help="default: the dataset it was trained on")
    p.add_argument("--bucket", type=int, help="default: the bucket it was trained on")
    p.set_defaults(run=cmd_evaluate)

    p = sub.add_parser("compare", help="the paper's claims beside flipnet's measured figures")
    p.add_argument("--claims", default="data/paper.json")
    p.add_argument("--results-dir", default="results")
    p.add_argument("--data-dir", default="data", help="for the class distribution plot")
    p.add_argument("--out", default="results/compare.md", help="the table and notes, Markdown")
    p.add_argument("--figures", default="results/figures", help="where the PNG plots go")
    p.add_argument("--readme", help="also rewrite the compare block of this README")
    p.set_defaults(run=cmd_compare)

    p = sub.add_parser("predict", help="a trained model's nim-value for one position")
    p.add_argument("model_file", help="results/NAME.npz")
    p.add_argument("position", help="rows of 0/1 joined by '/'")
    p.set_defaults(run=cmd_predict)
    return parser


def _game_options(p):
    """The board or heaps of the game, and the files trained agents read."""
    p.add_argument("--shape", help="flip/gridnim board, ROWSxCOLS (default 1x20 / 4x4)")
    p.add_argument("--heaps", default="1,3,5,7,9", help="nim: heap sizes")
    p.add_argument("--misere", action="store_true", help="nim: the last mover loses")
    _gridnim_options(p)
    p.add_argument("--es", help="trained ES agent (results/es.json by default)")
    p.add_argument("--model", help="trained flip network for the neural agent (results/NAME.npz)")
    p.add_argument("--weights", help="NIM perceptron weights (default: data/nimWeights.txt)")


def _gridnim_options(p):
    p.add_argument("--max-take", type=int, default=3, help="gridnim: stones per move at most")
    p.add_argument("--normal", action="store_true", help="gridnim: the last mover wins")


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except Interrupted as exc:
        print(f"flipnet {args.command}: {exc}", file=sys.stderr)
        return 130
    except (FlipnetError, ValueError) as exc:
        print(f"flipnet {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"flipnet {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`flipnet ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def make_game(name, args, shape=None):
    from flipnet.games import FlipGame, GridNim, HalfNim, Nim

    if name == "flip":
        return FlipGame(*shape)
    if name == "gridnim":
        return GridNim(*shape, max_take=args.max_take, misere=not args.normal)
    if name == "halfnim":
        return HalfNim()
    return Nim(misere=getattr(args, "misere", False))


def _configured_game(args):
    """The game a play/arena command is about, from --shape, --heaps, --misere ..."""
    from flipnet.games import Nim, parse_shape

    if args.game == "nim":
        return Nim(Nim().parse(args.heaps), misere=args.misere)
    default = {"flip": "1x20", "gridnim": "4x4"}.get(args.game)
    shape = parse_shape(args.shape or default) if default else None
    return make_game(args.game, args, shape)


def _agent(spec, game, args):
    from pathlib import Path

    from flipnet.agents import make_agent

    es_path = args.es or ("results/es.json" if Path("results/es.json").exists() else None)
    weights = args.weights
    return make_agent(spec, game, es_path=es_path, model_path=args.model, weights_path=weights)


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

    from flipnet.atomic import check_writable
    from flipnet.games import FlipGame
    from flipnet.progress import bar
    from flipnet.solve import table

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


def cmd_train(args):
    from flipnet.nn.train import TrainConfig, train

    config = TrainConfig.for_model(
        args.model, epochs=args.epochs, lr=args.lr, batch=args.batch, optimizer=args.optimizer,
        momentum=args.momentum, weight_decay=args.weight_decay, augment=args.augment, tta=args.tta,
        schedule=args.schedule, shuffle=args.shuffle, seed=args.seed,
        bucket=args.bucket, patience=args.patience, validate_every=args.validate_every,
        data=args.data, name=args.out, results_dir=args.results_dir)
    results = train(config, resume=args.resume)
    print(f"{config.name}: best model after {results['best_at']:g} of {results['epochs_run']} epochs, "
          f"valid error {results['valid_error']:.4%}, test error {results['test_error']:.4%}, "
          f"{results['seconds']:.0f} s ({results['seconds_per_epoch']:.3f} s per epoch)")
    print(f"wrote {config.path('.json')} and {config.path('.npz')}")


def cmd_evaluate(args):
    from flipnet.data import read_split
    from flipnet.nn.compile import Predictor
    from flipnet.nn.metrics import error_rate
    from flipnet.nn.store import load_model

    model, meta = load_model(args.model_file)
    trained = meta.get("config", {})
    data = args.data or trained.get("data")
    bucket = trained.get("bucket", 0) if args.bucket is None else args.bucket
    if data is None:
        raise FlipnetError(f"{args.model_file} does not say which dataset it was trained on: pass --data")
    split = read_split(data, bucket)
    predict = Predictor.as_trained(model, meta)
    print(f"{model.name} on {data}, bucket {bucket}:")
    for part in ("train", "valid", "test"):
        states, labels = getattr(split, part)
        print(f"  {part:<5} {error_rate(predict(states), labels):8.4%} error on {states.size} states")


def cmd_predict(args):
    from flipnet.analyse import analyse
    from flipnet.games import FlipGame
    from flipnet.nn.compile import Predictor
    from flipnet.nn.store import load_model

    model, meta = load_model(args.model_file)
    game = FlipGame(model.rows, model.cols)
    state = game.parse(args.position)
    predicted = int(Predictor.as_trained(model, meta)([state])[0])
    true = analyse(game, state).value
    verdict = "right" if predicted == true else "wrong"
    print(f"{game.format(state)}: predicted nim-value {predicted}, true {true} ({verdict})")


def cmd_train_nim(args):
    from flipnet.atomic import check_writable, write_text
    from flipnet.nimmlp import SEED, train_run

    for path in (args.weights, args.results):
        check_writable(path)
    if args.epochs < 1:
        raise FlipnetError(f"--epochs must be at least 1, got {args.epochs}")
    print(f"Training the MLP ({args.epochs} epochs over the piles 2..127) ...")
    mlp, rows, report = train_run(args.epochs, SEED if args.seed is None else args.seed,
                                  args.database_seed)
    mlp.save_weights(args.weights)
    write_text(args.results, json.dumps(report, indent=1) + "\n")
    print("n: DP move, (network move)")
    for i in range(0, len(rows), 4):
        print("   ".join(f"{n:3d}: {k:2d}, ({net:2d})" for n, k, net in rows[i:i + 4]))
    print(f"diff on winning piles ({len(report['diff_winning'])}): {report['diff_winning']}")
    print(f"diff on losing piles ({len(report['diff_losing'])}, any legal move is as good there): "
          f"{report['diff_losing']}")
    print(f"with a 0.5 threshold instead of 0.2: {len(report['diff_winning_at_0.5'])} winning, "
          f"{len(report['diff_losing_at_0.5'])} losing")
    print(f"wrote {args.weights} and {args.results}: training {report['train_seconds']:.1f} s, "
          f"{report['seconds']:.1f} s in all")


def _seed_range(text):
    low, sep, high = text.partition(":")
    try:
        low, high = int(low), int(high)
    except ValueError:
        raise FlipnetError(f"--seeds must be FROM:TO (two integers), got {text!r}") from None
    if not sep or not 0 <= low < high:
        raise FlipnetError(f"--seeds must be FROM:TO with 0 <= FROM < TO, got {text!r}")
    return range(low, high)


def cmd_survey_nim(args):
    from collections import Counter

    from flipnet.nimmlp import survey

    seeds = _seed_range(args.seeds)
    if args.epochs < 1:
        raise FlipnetError(f"--epochs must be at least 1, got {args.epochs}")
    found = survey(list(seeds), args.epochs, args.database_seed)
    if args.json:
        print(json.dumps([{"seed": seed, "diff_winning": win, "diff_losing": lose}
                          for seed, win, lose in found], indent=1))
        return
    for seed, win, lose in found:
        print(f"seed {seed:5d}: winning piles missed {len(win)} {win}, losing piles {lose}")
    counts = Counter(len(win) for _, win, _ in found)
    print("seeds by winning piles missed: " + ", ".join(f"{k} missed: {counts[k]}" for k in sorted(counts)))
    perfect = [seed for seed, win, _ in found if not win]
    print(f"seeds with no winning pile missed: {perfect or 'none'} ({len(perfect)} of {len(found)})")


def cmd_play(args):
    from flipnet.nimmlp import NMAX
    from flipnet.play import Match, ask_int, ask_yes_no, halfnim_note, run_console

    def read(prompt):
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        return line if line else None

    game = _configured_game(args)
    agent = _agent(args.ai or ("neural" if game.name == "halfnim" else "optimal"), game, args)
    if game.name == "halfnim":
        if args.start is None:
            start = ask_int(read, print, f"Enter number of blocks you want to start (2 to {NMAX}): ", 2, NMAX)
            if start is None:
                print("\ninput ended; no game played")
                return 0
        else:
            start = game.parse(args.start)
            if not 2 <= start <= NMAX:
                raise FlipnetError(f"--start must be from 2 to {NMAX}, got {start}")
    else:
        start = game.start if args.start is None else game.parse(args.start)
    first = args.first or ("ai" if game.name == "halfnim" else None)
    if first is None:
        user_first = ask_yes_no(read, print, "Do you want to move first? [y/n] ")
        if user_first is None:
            print("\ninput ended; no game played")
            return 0
        first = "you" if user_first else "ai"
    print(f"{'AI' if first == 'ai' else 'You'} move{'s' if first == 'ai' else ''} first. "
          f"Starting with {'n = ' + str(start) if game.name == 'halfnim' else game.format(start)}")
    match = Match(game, agent, state=start, ai_first=first == "ai", seed=args.seed)
    run_console(match, read, print, describe_ai=halfnim_note if game.name == "halfnim" else None)
    return 0


def cmd_gui(args):
    from flipnet.agents import make_agent
    from flipnet.gui import HalfNimController, HalfNimWindow
    from flipnet.play import halfnim_note

    agent = make_agent(args.ai, make_game("halfnim", args), weights_path=args.weights)
    controller = HalfNimController(agent, seed=args.seed, describe_ai=halfnim_note)
    try:
        window = HalfNimWindow(controller)
    except Exception as exc:  # tkinter.TclError: no display
        raise FlipnetError(f"cannot open a window: {exc}") from None
    if args.start is not None:
        controller.submit(str(args.start))
        window.redraw()
    window.run()


def cmd_arena(args):
    from flipnet.arena import format_table, tournament
    from flipnet.atomic import check_writable, write_text

    game = _configured_game(args)
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    if len(names) < 2 or len(set(names)) != len(names):
        raise FlipnetError(f"--agents needs at least two different agents, got {args.agents!r}")
    if args.matches < 1:
        raise FlipnetError(f"--matches must be at least 1, got {args.matches}")
    if args.out:
        check_writable(args.out)
    agents = {n: _agent(n, game, args) for n in names}
    table = tournament(game, agents, args.matches, args.seed)
    record = {"game": game.name, "rule": game.rule, "start": game.format(game.start),
              "matches": args.matches, "seed": args.seed, "win_rate": table}
    if args.out:
        write_text(args.out, json.dumps(record, indent=1) + "\n")
    if args.json:
        print(json.dumps(record))
        return
    print(f"{game.name} ({game.rule} play) from {game.format(game.start)}: {args.matches} matches "
          f"per pair, alternating who starts")
    print(format_table(table))


def cmd_compare(args):
    from pathlib import Path

    from flipnet import compare, plots
    from flipnet.atomic import write_text

    rows = compare.compare(compare.load_claims(args.claims), args.results_dir)
    print(compare.text_table(rows))
    table = compare.markdown(rows)
    written = plots.write_all(compare.training_runs(args.results_dir),
                              compare.class_counts(args.data_dir), args.figures)
    write_text(args.out, table)
    print(f"\nwrote {args.out}" + "".join(f", {p}" for p in written))
    if args.readme:
        readme = Path(args.readme)
        write_text(readme, compare.replace_block(readme.read_text(), table))
        print(f"updated the compare table in {readme}")


def cmd_train_es(args):
    from flipnet.atomic import check_writable
    from flipnet.agents import random_agent
    from flipnet.es import evolve
    from flipnet.games import Nim
    from flipnet.progress import bar

    check_writable(args.out)
    game = Nim(Nim().parse(args.heaps), misere=not args.normal)
    start = time.perf_counter()
    with bar(args.generations, "evolve", unit="gen") as progress:
        def step(fitness):
            progress.update()
            progress.set_postfix(fitness=f"{fitness:.2f}")
        agent = evolve(game, random_agent, args.seed, args.matches, args.generations, step)
    agent.save(args.out, {"game": game.format(game.start), "rule": game.rule, "seed": args.seed,
                          "matches": args.matches, "generations": args.generations,
                          "seconds": time.perf_counter() - start})
    print(f"wrote {args.out}: fitness {agent.history[-1]:.2f} against random after "
          f"{args.generations} generations, {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    raise SystemExit(main())
