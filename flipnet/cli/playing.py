"""The commands that play: `play` (the console), `gui` (the window), `arena` (matches
between agents) and `explore` (the local page)."""

import os
import sys

from flipnet import games
from flipnet.base.checks import check_seconds, check_seed
from flipnet.base.errors import FlipnetError
from flipnet.cli.common import engine_from_environment, game_names, rule_options


def parse_play(sub):
    p = sub.add_parser("play", help="play a game in the console against an agent")
    p.add_argument("game", choices=game_names())
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


def parse_gui(sub):
    p = sub.add_parser("gui", help="play HalfNim in a window against the NIM perceptron")
    p.add_argument("game", choices=("halfnim",))
    p.add_argument("--start", help="blocks at the start (2-127)")
    p.add_argument("--ai", default="neural", help="neural, perfect or random")
    p.add_argument("--weights", help="NIM perceptron weights (default: results/nimWeights.txt if trained here, else the shipped ones)")
    p.add_argument("--seed", type=int)
    p.set_defaults(run=cmd_gui)


def parse_arena(sub):
    p = sub.add_parser("arena", help="matches between agents: a win-rate table")
    p.add_argument("game", choices=game_names())
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


def parse_explore(sub):
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


def _game_options(p):
    """The board or heaps of the game, and the files trained agents read."""
    p.add_argument("--shape", help="flip/gridnim board, ROWSxCOLS (default 1x20 / 4x4)")
    p.add_argument("--heaps", help="nim: heap sizes (default 1,3,5,7,9)")
    rule_options(p)
    p.add_argument("--es", help="trained ES agent (default: results/es.json if trained here, else the "
                   "shipped one)")
    p.add_argument("--model", help="flip: the network agent's model, a name or a path (with '/' or '.npz') (default: the "
                   "shipped best model for the board; flipnet models lists them)")
    p.add_argument("--one-ply", action="store_true", help="flip: the network agent values the shapes "
                   "its model never met by one ply of lookahead")
    p.add_argument("--weights", help="NIM perceptron weights (default: results/nimWeights.txt if trained here, else the shipped ones)")


def _shape(text):
    from flipnet.games import parse_shape

    return parse_shape(text) if text else None


def _configured_game(args):
    """The game a play/arena command is about, from --shape, --heaps, --misere ..."""
    from flipnet import games
    from flipnet.play.arena import check_has_moves

    start = getattr(args, "start", None)
    if args.shape is None and start is not None and games.registration(args.game).board:
        # a board given as the start is the board played: its shape is the game's
        game = games.for_position(args.game, start, misere=args.misere, max_take=args.max_take)
    else:
        game = games.make(args.game, shape=_shape(args.shape), heaps=args.heaps, misere=args.misere,
                          max_take=args.max_take)
    check_has_moves(game)
    return game


def _agent(spec, game, args):
    from flipnet.play.agents import make_agent

    if getattr(args, "engine", None) is None:  # one for the command's exact players
        args.engine = engine_from_environment()
    agent = make_agent(spec, game, es_path=args.es, model_path=args.model, weights_path=args.weights,
                       one_ply=getattr(args, "one_ply", False), engine=args.engine)
    if getattr(agent, "loaded", None):  # a model asked for by name: say which file (off the JSON)
        print(f"loaded {agent.loaded}", file=sys.stderr if getattr(args, "json", False) else sys.stdout)
    return agent


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
