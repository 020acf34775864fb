"""MCGS's .test files (flipnet/games/mcgs.py, `flipnet value flip --file F.test`): a file
written here, with what MCGS's own Cram files hold and what they may (comments across
lines, a sum of grids, blocked squares, other sections and commands), read and valued
through the real command against `flipnet.value`, each expectation checked."""

import re
import subprocess
import sys

import pytest

import flipnet
from flipnet.base.errors import BadInput
from flipnet.games import mcgs

FILE = """{version 1.7}
/* a comment
   over two lines */
[impartial domineering]
..|.. {N 0}
...|..# {N 0}
.#.|... ...|... {N}
....|.... {N 3}
[clobber_1xn] XOXO {B win}
[impartial domineering]
(.....) {N 0, winning moves N}
"""


def test_a_file_reads_as_its_cases():
    reading = mcgs.read(FILE, "t.test")
    assert [(c.line, c.positions, c.expected) for c in reading.cases] == [
        (5, ["11/11"], 0), (6, ["111/110"], 0), (7, ["101/111", "111/111"], None), (8, ["1111/1111"], 3),
        (11, ["11111"], 0)]
    assert (reading.other_games, reading.other_commands) == (1, 2)  # XOXO; B win and winning moves N


def test_a_grid_and_a_flip_text_are_each_others_form():
    for text in ("11/11", "101/111", "1111", "0110/1001"):
        grid = mcgs.grid_of(text)
        assert mcgs.read(f"[{mcgs.SECTION}] {grid} {{N}}").cases[0].positions == [text]


@pytest.mark.parametrize("text, message", [
    ("[impartial domineering]\n..|.X {N 1}", "line 2: '..|.X' has 'X'"),
    ("[impartial domineering]\n..|... {N 1}", "line 2: '..|...': its rows differ in length"),
    ("[impartial domineering]\n.. {N one}", "line 2: {N one}: a nim-value is N and a whole number"),
    (".. {N 1}", "line 1: '..' comes before any [section]"),
    ("[impartial domineering]\n/* never closed\n.. {N 1}", "line 2: a comment /* that never ends"),
])
def test_what_cannot_be_read_is_named_by_its_line(text, message):
    with pytest.raises(BadInput, match=re.escape(message)):
        mcgs.read(text, "t.test")


def test_the_command_values_each_case_and_counts_right_and_wrong(tmp_path):
    (tmp_path / "t.test").write_text(FILE)
    done = subprocess.run([sys.executable, "-m", "flipnet", "value", "flip", "--file", "t.test", "--no-moves"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    expected = [flipnet.value("11/11").value, flipnet.value("111/110").value,
                flipnet.value("101/111").value ^ flipnet.value("111/111").value,
                flipnet.value("1111/1111").value, flipnet.value("11111").value]
    assert expected[3] != 3  # the file's one wrong expectation
    lines = done.stdout.splitlines()
    assert lines[:2] == ["{version 1.7}", "[impartial domineering]"]
    assert [int(line.split("{N ")[1].split("}")[0]) for line in lines[2:]] == expected
    assert lines[5] == f"....|.... {{N {expected[3]}}} /* the file expected 3 */"
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == ("flipnet: t.test: 5 cases, 3 right, 1 wrong, 1 without an expected "
                                            "value; 1 positions of other games left alone; 2 other commands left alone")
    written = subprocess.run([sys.executable, "-m", "flipnet", "value", "flip", "111/110", "--format", "mcgs"],
                             capture_output=True, text=True, timeout=60)
    assert written.stdout == f"{mcgs.HEADER}...|..# {{N {expected[1]}}}\n"
    assert mcgs.read(written.stdout).cases[0].expected == expected[1]  # read back as written
