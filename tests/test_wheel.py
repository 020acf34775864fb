"""The wheel works outside the checkout: built from a clean clone, installed in a new
virtual environment, it answers the main commands and the API's doctests from an empty
folder, with the shipped models and results it carries (flipnet.shipped) and a study
table it builds in its own cache."""

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCTESTS = """
import doctest, importlib, flipnet
print(flipnet.__file__)
for name in ("flipnet", "flipnet.api.positions", "flipnet.api.data", "flipnet.api.models"):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    print(name, result.attempted, result.failed)
"""


def test_setup_cfg_lists_every_package():
    """A package left out of setup.cfg would be missing from the wheel (and its tests pass
    in the checkout all the same)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    listed = set(config["options"]["packages"].split())
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "flipnet").rglob("__init__.py")}
    assert listed == found | {"flipnet.shipped"}
    assert "flipnet.shipped = data" in config["options"]["package_dir"]


def _run(argv, cwd, env, stdin=None, timeout=600):
    done = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done.stdout


def _borrow_dependencies(venv):
    """The wheel's dependencies read from this test's own environment, by a path file placed
    after the new environment's own packages, instead of copying some 400 MB of NumPy, SciPy
    and Numba again (about 15 s of the test); `pip check` then holds the wheel's
    requirements to what it finds. A path file's directory is not a site directory, so the
    checkout's editable install (a path file in it) is not installed there."""
    own, = (venv / "lib").glob("python*/site-packages")
    borrowed = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (own / "zz_borrowed_dependencies.pth").write_text("".join(f"{p}\n" for p in borrowed))


@pytest.mark.slow
def test_the_wheel_answers_from_an_empty_folder(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("the wheel is built from a clean clone, and this copy is not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check", "-w", str(dist),
          str(clone)], tmp_path, os.environ)
    wheel, = dist.glob("flipnet-*.whl")
    venv = tmp_path / "venv"
    # a new environment without a pip of its own (3 s less): this one's pip installs into it
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "--disable-pip-version-check"]
    _run([*pip, "install", "-q", "--no-deps", str(wheel)], tmp_path, os.environ)
    _borrow_dependencies(venv)
    _run([*pip, "check"], tmp_path, os.environ)

    empty = tmp_path / "elsewhere"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLIPNET_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(FLIPNET_CACHE=str(tmp_path / "cache"), FLIPNET_PROGRESS="0", FLIPNET_ENDGAME="off")
    flipnet = str(venv / "bin" / "flipnet")

    value = _run([flipnet, "value", "flip", "1111/1111/1111"], empty, env)
    assert "nim-value: 1" in value and "winning moves:" in value
    predicted = _run([flipnet, "predict", "best", "11011/11111/01110/11011/10111"], empty, env)
    assert f"the shipped {venv}" in predicted and "predicted nim-value 0, true 0 (right)" in predicted
    checked = _run([flipnet, "models", "--check"], empty, env)
    assert "every sha256 matches" in checked
    listed = _run([flipnet, "models"], empty, env)  # an installed copy names its own commands, not make's
    assert "retrain: flipnet train conv1d\n" in listed and "retrain: flipnet train-nim" in listed
    assert "make " not in listed, listed
    compared = _run([flipnet, "compare"], empty, env)
    assert "1D conv net (length 20): test error" in compared and "shipped" in compared
    assert (empty / "results" / "compare.md").exists()
    played = _run([flipnet, "play", "flip", "--shape", "2x2", "--ai", "network", "--first", "you"], empty, env,
                  stdin="0,0+0,1\n")  # the shipped best model, size-free, takes the last domino
    assert f"the shipped {venv}" in played and played.rstrip().endswith("AI won!"), played
    doctests = _run([str(venv / "bin" / "python"), "-c", DOCTESTS], empty, env)
    where, *modules = doctests.strip().splitlines()
    assert where.startswith(str(venv)), where  # the installed copy, not the checkout
    assert len(modules) == 4 and all(int(a) > 0 and int(f) == 0 for _, a, f in (m.split() for m in modules)), doctests
    assert (tmp_path / "cache" / "data" / "flip2d.h5").exists()  # the doctest's table, built in the cache
    assert not any(empty.glob("data*"))
