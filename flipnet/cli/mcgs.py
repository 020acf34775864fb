"""`flipnet value flip --file FILE.test`: MCGS's test files read, each case valued and its
expected value checked, written back as a .test file with the count right and wrong; and
one position written as a case (`--format mcgs`)."""

import sys

from flipnet.base.errors import BadInput, FlipnetError


def print_case(position, value):
    """One flip position and its value as a .test file of one case."""
    from flipnet.games.mcgs import HEADER, case_line, grid_of

    print(HEADER + case_line([grid_of(position)], value))


def values_of_test_file(args, value_of):
    """Each Cram case of the file (or standard input) valued by `value_of(flip text)`, the
    XOR over a case's positions, printed as a .test line; on stderr, the cases right, wrong
    and without an expected value, and what was left alone. Exit status 2 if one is wrong
    or cannot be valued."""
    from flipnet.base.files import read_text_file
    from flipnet.games.mcgs import HEADER, case_line, read

    source = "standard input" if args.file is None else args.file
    text = sys.stdin.read() if args.file is None else read_text_file(args.file, "MCGS file")
    reading = read(text, source)
    if not reading.cases:
        raise BadInput(f"{source}: no {{N}} command of an [impartial domineering] section: nothing to value")
    right = wrong = unchecked = failed = 0
    print(HEADER, end="", flush=True)
    for case in reading.cases:
        try:
            value = 0
            for position in case.positions:
                value ^= value_of(position)
        except FlipnetError as exc:
            failed += 1
            print(f"/* line {case.line}: {str(exc).splitlines()[0]} */", flush=True)
            print(f"flipnet: {source}, line {case.line}: {exc}", file=sys.stderr)
            continue
        print(case_line(case.grids, value, case.expected), flush=True)
        if case.expected is None:
            unchecked += 1
        elif case.expected == value:
            right += 1
        else:
            wrong += 1
            print(f"flipnet: {source}, line {case.line}: value {value}, the file expects {case.expected}",
                  file=sys.stderr)
    left = [f"{n} {what} left alone" for n, what in ((reading.other_games, "positions of other games"),
                                                     (reading.other_commands, "other commands")) if n]
    print(f"flipnet: {source}: {len(reading.cases)} cases, {right} right, {wrong} wrong"
          + (f", {unchecked} without an expected value" if unchecked else "")
          + (f", {failed} not valued" if failed else "") + "".join(f"; {line}" for line in left), file=sys.stderr)
    return 2 if wrong or failed else None
