"""Compiled kernels that travel: cached beside their module, stamped by its text rather
than its file's time, compiled for a portable CPU level; and a first question that does
not wait for an endgame database still to be built."""

import os
import subprocess
import sys
import textwrap
import time

import pytest
from numba.core import config

from flipnet.base import kernels
from flipnet.solve.cram import bits, endgame
from flipnet.solve.cram.limits import MIN_TABLE_LOG

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _locator(function, monkeypatch, cache_dir=""):
    monkeypatch.setattr(config, "CACHE_DIR", cache_dir)
    return kernels.ContentStampedLocator.from_function(function.py_func, function.py_func.__code__.co_filename)


def test_a_kernel_is_cached_beside_its_module_and_stamped_by_its_text(monkeypatch):
    locator = _locator(bits.split, monkeypatch)
    assert locator.get_cache_path() == os.path.join(os.path.dirname(bits.__file__), kernels.CACHE_FOLDER)
    import hashlib

    with open(bits.__file__, "rb") as f:
        assert locator.get_source_stamp() == ("sha256", hashlib.sha256(f.read()).hexdigest())


def test_the_stamp_ignores_the_files_time_and_follows_its_text(tmp_path, monkeypatch):
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    monkeypatch.setattr(kernels, "PACKAGE", tmp_path)
    kernels.source_digest.cache_clear()
    first = kernels.source_digest(str(source))
    os.utime(source, (1, 1))  # what an install does to a file's time
    kernels.source_digest.cache_clear()
    assert kernels.source_digest(str(source)) == first
    source.write_text("x = 2\n")
    kernels.source_digest.cache_clear()
    assert kernels.source_digest(str(source)) != first
    kernels.source_digest.cache_clear()


def test_code_outside_flipnet_and_a_users_cache_folder_are_left_to_numba(monkeypatch):
    outside = type("F", (), {"__code__": test_code_outside_flipnet_and_a_users_cache_folder_are_left_to_numba.__code__})
    assert kernels.ContentStampedLocator.from_function(outside, os.path.abspath(__file__)) is None
    assert _locator(bits.split, monkeypatch, cache_dir="/somewhere") is None


def _cpu_in_a_process(env):
    code = "import flipnet.solve.cram.bits; from numba.core import config; print(config.CPU_NAME)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=ROOT, check=True)
    return done.stdout.strip()


@pytest.mark.skipif(not kernels.host_has_portable_level(), reason="this machine does not run x86-64-v3 code")
def test_kernels_are_compiled_for_the_portable_level_unless_the_user_names_a_cpu():
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    assert _cpu_in_a_process(env) == kernels.PORTABLE_CPU
    assert _cpu_in_a_process({**env, "NUMBA_CPU_NAME": "generic"}) == "generic"


def test_a_search_compiled_in_one_folder_loads_in_a_copy_whose_files_are_new(tmp_path):
    """The wheel's case, on a small kernel: compiled in one copy of a package, the same
    text in a second copy with new file times (pip's install) loads it, compiling nothing."""
    package = tmp_path / "first" / "flipnet_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "kernel.py").write_text(textwrap.dedent("""
        from flipnet.base.kernels import njit

        @njit(cache=True)
        def twice(x):
            return 2 * x
    """))
    run = textwrap.dedent("""
        import sys
        from flipnet.base import kernels
        from pathlib import Path
        kernels.PACKAGE = Path(sys.argv[1])
        from flipnet_probe.kernel import twice
        twice(21)
        print(len(twice.stats.cache_hits), len(twice.stats.cache_misses))
    """)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}

    def hits_and_misses(root):
        env["PYTHONPATH"] = os.pathsep.join([str(root), ROOT])
        done = subprocess.run([sys.executable, "-c", run, str(root)], env=env, capture_output=True, text=True,
                              check=True)
        return done.stdout.split()

    assert hits_and_misses(package.parent) == ["0", "1"]
    second = tmp_path / "second"
    subprocess.run(["cp", "-r", str(package.parent), str(second)], check=True)  # new files, new times
    for path in (second / "flipnet_probe").rglob("*.py"):
        os.utime(path, (time.time() + 100, time.time() + 100))
    assert hits_and_misses(second) == ["1", "0"]


def test_a_build_under_way_is_not_started_twice(tmp_path, monkeypatch):
    """Started as the process ends (not beside its question), once however often asked."""
    started, at_exit = [], []
    monkeypatch.setattr(endgame.subprocess, "Popen", lambda argv, **kw: started.append(argv))
    monkeypatch.setattr(endgame.atexit, "register", lambda function, *args: at_exit.append(lambda: function(*args)))
    assert endgame.build_in_background(tmp_path) == "to come" and not started
    at_exit.pop()()
    assert (tmp_path / endgame.BUILDING).exists() and len(started) == 1
    assert started[0][1:3] == ["-m", "flipnet.solve.cram.endgame"]
    assert endgame.build_in_background(tmp_path) == "under way" and not at_exit  # not again
    old = time.time() - endgame.BUILD_SECONDS - 1
    os.utime(tmp_path / endgame.BUILDING, (old, old))  # its builder died
    assert endgame.build_in_background(tmp_path) == "to come" and len(at_exit) == 1


def test_a_first_question_goes_on_while_the_database_is_built(tmp_path, monkeypatch, capsys):
    from flipnet.solve.cram.solver import CramSolver

    started = []
    monkeypatch.setattr("flipnet.solve.cram.tables.build_in_background", lambda: started.append(1) or "to come")
    monkeypatch.setattr(endgame, "cache_dir", lambda: tmp_path)
    solver = CramSolver(auto_endgame=True, progress=False, tt_log=MIN_TABLE_LOG)
    board = [(r, c) for r in range(5) for c in range(6)]  # 30 cells: the database is wanted from 30
    value = solver.value(board)
    assert started and solver.endgame.boxes.size == 0  # asked for, not waited for
    assert value == CramSolver(progress=False, tt_log=MIN_TABLE_LOG).value(board)
    said = capsys.readouterr().err
    assert said.count("will be built in the background as this ends (once: boxes 2x12, 3x9, 4x7, 5x5, 226 MB)") == 1
    solver.value(board[1:])
    assert "will be built" not in capsys.readouterr().err  # said once


def test_loading_a_kernel_imports_no_linear_algebra_and_numba_still_has_blas(tmp_path):
    """Numba's BLAS probe is skipped at its NumPy support's import (0.09-0.18 s of every
    command): a kernel loads with SciPy's linear algebra never imported, the probe's answer
    is what the probe itself gives, and a kernel using BLAS still compiles and runs."""
    program = textwrap.dedent("""
        import sys
        import numpy as np
        from flipnet.solve.cram import bits
        bits.move_count(np.uint64(0b111), 1, 3)  # a kernel loaded (or compiled)
        import numba
        from numba.np import arraymath
        print("scipy.linalg" in sys.modules, arraymath._HAVE_BLAS)
        a = np.arange(6.0).reshape(2, 3)
        print(float(numba.njit(lambda x, y: np.dot(x, y).sum())(a, a.T)), float(np.dot(a, a.T).sum()))
        print(arraymath._check_blas())  # the probe as Numba runs it, now that nothing refuses it
    """)
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    loaded, dot, probe = proc.stdout.split("\n")[:3]
    assert loaded.split()[0] == "False"
    assert loaded.split()[1] == probe
    assert dot.split()[0] == dot.split()[1]
