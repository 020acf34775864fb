"""The networks' commands: `train`, `sweep` (seeds as tasks), `evaluate`, `by-size`,
`predict`, `models` (the shipped ones), and the NIM perceptron's and the evolution
strategy's: `train-nim`, `survey-nim`, `train-es`."""

import contextlib
import sys
import time

from flipnet import games
from flipnet.base.checks import check_seconds, check_seed
from flipnet.base.errors import BadInput, FlipnetError, TimedOut


MEX_RULES = ("soft", "hard")  # one ply's two ways of reading the children (nn/evaluation/evaluate.py)
MODEL_HELP = ("a model's name (results/NAME.npz if trained here, else the shipped one: flipnet models; "
              "'best' is the best 2D model), or a file's path, written with a '/' or '.npz' (./mlp2d, x.npz)")


def parse_train(sub, train_flags):
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


def parse_sweep(sub, train_flags):
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


def parse_train_nim(sub):
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


def parse_survey_nim(sub):
    p = sub.add_parser("survey-nim", help="train the NIM perceptron from many initial-weight "
                       "seeds and count each one's misses")
    p.add_argument("--seeds", default="0:100", help="FROM:TO, the seeds FROM..TO-1 (default 0:100)")
    p.add_argument("--epochs", type=int, default=4000)
    p.add_argument("--database-seed", type=int, default=0, help="random moves of losing piles")
    p.add_argument("--out", help="also keep the results in this JSON file, seed by seed")
    p.add_argument("--resume", action="store_true", help="skip the seeds --out already holds")
    p.add_argument("--json", action="store_true", help="print the misses of every seed as JSON")
    p.set_defaults(run=cmd_survey_nim)


def parse_train_es(sub):
    p = sub.add_parser("train-es", help="evolve flipnet's Nim policy (weights of five features) from match "
                       "results against the course template's random player")
    p.add_argument("--heaps", default="1,3,5,7,9")
    p.add_argument("--normal", action="store_true", help="normal play (default: misere)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", type=int, default=40, help="matches per fitness evaluation")
    p.add_argument("--generations", type=int, default=200, help="default 1000 / lambda")
    p.add_argument("--out", default="results/es.json")
    p.set_defaults(run=cmd_train_es)


def parse_evaluate(sub):
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


def parse_by_size(sub):
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


def parse_predict(sub):
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


def parse_models(sub):
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


def _model_file(spec):
    """The file of a model given by path or by name; for a name, a line saying which."""
    from flipnet.base.shipped import resolve

    path, how = resolve(spec)
    if how:
        print(f"loaded {how}")
    return path


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
        _check_command(command, more[0].argv, args.build_parser)
        runs += more
    failed = run_sweeps(runs, args.scheduler, args.jobs, args.overwrite)
    for name, error in failed.items():
        print(f"flipnet sweep: {name}: {error}", file=sys.stderr)
    print(f"{len(runs) - len(failed)} of {len(runs)} runs done" + (f", {len(failed)} failed" if failed else ""))
    return 1 if failed else 0


def _check_command(text, argv, build_parser):
    """Refuse, before any task, a --run command flipnet would refuse (its usage error), as
    the parser `build_parser(train_flags)` makes reads it."""
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
