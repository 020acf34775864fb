"""MCGS's `.test` files, the field's shared form for positions and their values, as far as
Cram goes: flip in normal play is MCGS's impartial domineering.

In a file, `/* ... */` is a comment, `{version 1.7}` its version, `[impartial domineering]`
starts a section of Cram positions, each a grid of `.` (an empty square, a full cell of
flip) and `#` (a blocked one) with rows joined by `|`, and `{N k}` asks the nim-value of
the sum of the positions since the last command, expecting k (`{N}`: no expectation).
Positions of other sections, and other commands (`B win`, `winning moves ...`), are
counted and left alone. Written back, a case is its grids and `{N value}`.
"""

import re
from dataclasses import dataclass, field

from flipnet.base.errors import BadInput

VERSION = "1.7"
SECTION = "impartial domineering"
HEADER = f"{{version {VERSION}}}\n[{SECTION}]\n"
TOKEN = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|[^\s{}\[\]()]+")


@dataclass
class Case:
    """One question of a file: its Cram positions (flip texts), the value the file expects
    (None: none given), and the line of its command."""
    line: int
    positions: list
    expected: int = None
    grids: list = field(default_factory=list)


@dataclass
class Reading:
    """A file's Cram cases, and what it holds that is not one (counted)."""
    cases: list
    other_games: int = 0
    other_commands: int = 0


def read(text, source="input"):
    """The Cram cases of an MCGS file's text; a one-line BadInput naming the line of the
    first thing that cannot be read."""
    text = _without_comments(text, source)
    reading, section, grids = Reading([]), None, []
    for number, line in enumerate(text.splitlines(), 1):
        for token in TOKEN.findall(line):
            if token.startswith("["):
                section = " ".join(token[1:-1].split())
            elif token.startswith("{"):
                grids = _command(token, section, grids, reading, source, number)
            elif section == SECTION:
                grids.append(_grid(token.strip("()").strip(), source, number))
            elif section is None:
                raise BadInput(f"{source} line {number}: {token[:40]!r} comes before any [section]")
            else:
                reading.other_games += 1
    return reading


def _without_comments(text, source):
    """The text with each comment blanked, its newlines kept (line numbers stay true)."""
    out, at = [], 0
    while (start := text.find("/*", at)) >= 0:
        end = text.find("*/", start + 2)
        if end < 0:
            raise BadInput(f"{source} line {text.count(chr(10), 0, start) + 1}: a comment /* that never ends")
        out += [text[at:start], re.sub(r"[^\n]", " ", text[start:end + 2])]
        at = end + 2
    return "".join(out + [text[at:]])


def _command(token, section, grids, reading, source, number):
    """A `{...}` block: each `N [k]` of a Cram section is a case of the grids before it;
    the version and other commands are counted and left. The grids start over after it."""
    for part in (p.strip() for p in token[1:-1].split(",")):
        words = part.split()
        if not words or words[0] == "version":
            continue
        if words[0] != "N" or section != SECTION:
            reading.other_commands += 1
            continue
        if len(words) > 2 or len(words) == 2 and not words[1].isdigit():
            raise BadInput(f"{source} line {number}: {{{part}}}: a nim-value is N and a whole number, or N alone")
        expected = int(words[1]) if len(words) == 2 else None
        reading.cases.append(Case(number, [flip for _, flip in grids], expected, [g for g, _ in grids]))
    return []


def _grid(token, source, number):
    """(grid, flip text) of a domineering grid: '.' an empty square, '#' a blocked one."""
    bad = next((ch for ch in token if ch not in ".#|"), None)
    if bad is not None:
        raise BadInput(f"{source} line {number}: {token[:40]!r} has {bad!r}: a grid of impartial domineering "
                       f"holds '.' (empty) and '#' (blocked), rows joined by '|'")
    rows = token.split("|")
    if len({len(row) for row in rows}) > 1 or not rows[0]:
        raise BadInput(f"{source} line {number}: {token[:40]!r}: its rows differ in length, or one is empty")
    return token, "/".join(row.replace(".", "1").replace("#", "0") for row in rows)


def grid_of(flip_text):
    """A flip position as MCGS writes it: '1' (full) is '.', '0' is '#', rows by '|'."""
    return "|".join(row.replace("1", ".").replace("0", "#") for row in flip_text.split("/"))


def case_line(grids, value, expected=None):
    """A case as a `.test` line: its grids and `{N value}`, and where the file expected
    another value, a comment saying so."""
    line = f"{' '.join(grids)} {{N {value}}}"
    if expected is not None and expected != value:
        line += f" /* the file expected {expected} */"
    return line
