"""The README's commands work as written: every line of its shell blocks and its Python
block is run here, in a folder of its own, with `flipnet` on the PATH as `.venv/bin` puts
it, each under a time limit; a line is left out only by name, with the reason, below. An
optional part written in brackets is left out, as a reader would."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LIMIT = 180  # seconds a command may take here (the longest run, the 5x7 search, takes seconds)

# the README's lines not run here, by their command, and why
SKIPPED = {
    "make data": "builds the study's tables and compiles the search: tests/test_data.py and test_kernels.py",
    "source .venv/bin/activate": "what the PATH here stands for",
    "make test": "the suite itself",
    "make train-2d-best": "hours of training",
    "flipnet train conv1d": "minutes of training: tests/test_train.py runs it small",
    "flipnet sweep conv1d --seeds 1-5": "minutes of training: tests/test_sweep.py runs it small",
    "flipnet evaluate best --data data/flip7x7.h5": "needs make data-large (minutes): tests/test_cli_nn.py",
    "flipnet explore 11011/11111/00111": "a server that runs until stopped: tests/test_explore.py",
    "(best.predict(test.states) != test.labels).mean()": "1-2 minutes: make compare measures it",
}


def _without_options(line):
    """The command of a README line: no comment, no [optional part]."""
    command = re.split(r"\s+#\s", line, maxsplit=1)[0]
    return re.sub(r"\s*\[[^\]]*\]", "", command).strip()


def shell_commands():
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        lines += [_without_options(line) for line in block.splitlines() if line.strip()]
    return lines


def python_lines():
    block, = re.findall(r"```python\n(.*?)```", README, re.S)
    return [_without_options(line) for line in block.splitlines() if line.strip()]


def test_every_line_is_run_or_named_with_its_reason():
    lines = shell_commands() + python_lines()
    assert len(shell_commands()) >= 10 and len(python_lines()) >= 4
    assert set(SKIPPED) <= set(lines), set(SKIPPED) - set(lines)  # no reason kept for a line that went


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder of its own, `flipnet` on the PATH (this environment's), the data folder
    the suite's other tests build into."""
    here = tmp_path_factory.mktemp("readme")
    bin_dir = here / "bin"
    bin_dir.mkdir()
    (bin_dir / "flipnet").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m flipnet "$@"\n')
    (bin_dir / "flipnet").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    return here, env


@pytest.mark.slow
@pytest.mark.parametrize("command", [c for c in shell_commands() if c not in SKIPPED])
def test_a_readme_command_works_as_written(place, command):
    folder, env = place
    command = command.replace(".venv/bin/flipnet", "flipnet")
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=LIMIT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{command}: {done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_readme_python_works_as_written(place):
    folder, env = place
    code = "\n".join(line for line in python_lines() if line not in SKIPPED)
    done = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=LIMIT)
    assert done.returncode == 0, done.stderr[-1500:]
