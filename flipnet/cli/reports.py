"""The reports' commands: `compare` (the paper beside flipnet) and `bench` (timings)."""


def parse_compare(sub):
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


def parse_bench(sub):
    p = sub.add_parser("bench", help="timings beside reference implementations, as ratios")
    p.add_argument("--only", nargs="+", help="sections to run: solve, train1d, train2d, cram, cram-large, "
                   "cram-workers, cram-peer, table (default: all but cram-large, cram-workers, cram-peer and table, "
                   "which take hours and minutes)")
    p.add_argument("--out", help="also write the timings as JSON")
    p.add_argument("--boards", metavar="RxC,...", help="time only these full boards of the Cram sections "
                   "(e.g. 5x8,4x11; default: all of them)")
    p.add_argument("--igsolve", metavar="PATH", help="an igsolve binary (Beling and Rogalski's Cram solver) to "
                   "time beside flipnet's whole commands, one thread each (absent: its column says so)")
    p.add_argument("--against", metavar="PYTHON", help="another flipnet's Python (a worktree's .venv/bin/python, "
                   "e.g. of main): its Cram commands and first answer timed beside this one's, as ratios")
    p.add_argument("--limit", type=float, metavar="SECONDS", help="stop each Cram board's command after this "
                   "many seconds and report it so (default: 1800 for the cram section, 7200 for cram-large)")
    p.set_defaults(run=cmd_bench)


def cmd_compare(args):
    from flipnet.base.places import data_dir
    from flipnet.base.shipped import RESULTS_SHIPPED, SHIPPED
    from flipnet.report.compare import run

    shipped = RESULTS_SHIPPED if args.shipped else None
    claims = args.claims or SHIPPED / "paper.json"
    for line in run(claims, args.results_dir, args.data_dir or data_dir(), args.out, args.figures, args.readme,
                    shipped):
        print(line)


def cmd_bench(args):
    from flipnet.report.bench import run

    run(args.only, args.out, args.boards, args.igsolve, args.limit, args.against)
