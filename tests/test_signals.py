"""flipnet's Ctrl-C handler in this process, with a real SIGINT: a Ctrl-C whose
exception some other code swallows is not lost (base/signals.py)."""

import os
import signal
import subprocess
import sys

import pytest

from flipnet.base import signals


@pytest.fixture
def handler():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signals.install()
    yield
    signals.install()  # forgets a Ctrl-C the test left unanswered: later tests' searches must not stop
    signal.signal(signal.SIGINT, before[0])
    signal.signal(signal.SIGTERM, before[1])


def _ctrl_c_to_this_process():
    """A real SIGINT, and bytecodes to run after it: Python calls the handler between them."""
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(1000):
        pass


class _Swallows:
    """Gets a Ctrl-C while Python runs its __del__: Python prints the exception and goes on."""

    def __del__(self):
        _ctrl_c_to_this_process()  # the handler runs inside __del__


def test_a_ctrl_c_lost_inside_del_stops_the_next_deferred_block(handler, monkeypatch):
    lost = []
    monkeypatch.setattr(sys, "unraisablehook", lambda raised: lost.append(raised.exc_type))
    _Swallows()  # dropped at once
    assert lost == [signals.CtrlC]  # the exception went nowhere ...
    with signals.deferred():
        assert signals.requested()  # ... but the next safe point stops the work


def _ctrl_c_turned_into_an_import_error():
    try:  # as a C extension's import can turn it into an ImportError, which is caught
        try:
            _ctrl_c_to_this_process()
        except KeyboardInterrupt as exc:
            raise ImportError("no module") from exc
    except ImportError:
        pass


def test_a_ctrl_c_turned_into_another_error_still_stops_the_next_deferred_block(handler):
    _ctrl_c_turned_into_an_import_error()
    with signals.deferred():
        assert signals.requested()


@pytest.mark.slow
def test_a_training_run_after_a_lost_ctrl_c_stops_before_its_first_epoch(handler, tmp_path):
    """Not after it: a Ctrl-C lost while the command started (CI saw `train` go through
    epoch 1 and keep a checkpoint after a SIGINT 0.2 s in)."""
    from conftest import write_tiny_dataset

    from flipnet.base.errors import Interrupted
    from flipnet.nn.paper.train import train
    from flipnet.nn.training.recipes import config_for

    write_tiny_dataset(tmp_path / "tiny.h5")
    config = config_for("conv1d", data=str(tmp_path / "tiny.h5"), bucket=0, epochs=3, batch=10,
                        eval_batch=0, results_dir=str(tmp_path / "r"))
    _ctrl_c_turned_into_an_import_error()
    with pytest.raises(Interrupted, match="^interrupted before the first epoch ended; nothing was saved$"):
        train(config, log=lambda *_: None)
    assert not (tmp_path / "r" / "conv1d.ckpt.npz").exists()


def test_train_nim_and_survey_nim_after_a_lost_ctrl_c_stop_before_any_work(handler, tmp_path):
    from flipnet.base.errors import Interrupted
    from flipnet.nn.nim.train import survey_to_file, train_run

    _ctrl_c_turned_into_an_import_error()
    with pytest.raises(Interrupted, match="^interrupted after epoch 0 of 500; nothing was written$"):
        train_run(500, checkpoint=tmp_path / "cut.ckpt.npz")
    assert not (tmp_path / "cut.ckpt.npz").exists()
    _ctrl_c_turned_into_an_import_error()
    with pytest.raises(Interrupted, match="^interrupted after 0 of 4 seeds; nothing was written$"):
        survey_to_file(range(4), 60, out=tmp_path / "survey.json")
    assert not (tmp_path / "survey.json").exists()


def test_without_a_ctrl_c_or_after_a_new_install_no_stop_is_asked(handler):
    with signals.deferred():
        assert not signals.requested()
    with pytest.raises(KeyboardInterrupt):
        _ctrl_c_to_this_process()
    signals.install()  # main() of a new command in the same process
    with signals.deferred():
        assert not signals.requested()


def test_a_ctrl_c_inside_a_deferred_block_is_a_request_that_ends_with_it(handler):
    with signals.deferred():
        _ctrl_c_to_this_process()
        assert signals.requested()  # no exception: the work stops at its next safe point
    with signals.deferred():
        assert not signals.requested()


def test_a_ctrl_c_lost_in_a_weakref_callback_prints_nothing(tmp_path):
    """A real SIGINT handled inside a weakref callback (as importlib's module locks have,
    where a Ctrl-C in a command's first moments was seen to print "Exception ignored in"
    and a traceback): nothing on stderr, and the next deferred block stops. Any other
    exception Python cannot raise is still reported."""
    program = tmp_path / "lost.py"
    program.write_text(
        "import os, signal, weakref\n"
        "from flipnet.base import signals\n"
        "signals.install()\n"
        "class Held: pass\n"
        "def ctrl_c(_):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    for _ in range(1000): pass\n"
        "held = Held(); ref = weakref.ref(held, ctrl_c); del held\n"
        "with signals.deferred(): print('stops' if signals.requested() else 'goes on')\n"
        "def fails(_): raise ValueError('not a Ctrl-C')\n"
        "other = Held(); ref2 = weakref.ref(other, fails); del other\n")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "stops\n"
    assert "CtrlC" not in done.stderr and "ValueError: not a Ctrl-C" in done.stderr


def test_a_ctrl_c_that_c_code_printed_and_replaced_by_an_import_error_ends_as_a_stop(tmp_path):
    """Numba's and numpy's C code, loading a module, print the exception that came
    (`PyErr_Print`, which calls `sys.excepthook`) and raise an ImportError in its place,
    with no link to it: a Ctrl-C in a command's first moments came out as a traceback and
    "internal error (ImportError: numba._devicearray failed to import)". It is one line
    and status 130, and any other exception printed that way is still printed."""
    program = tmp_path / "replaced.py"
    program.write_text(
        "import argparse, os, signal, sys\n"
        "from flipnet import cli\n"
        "def loads_a_module(args):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        for _ in range(1000): pass\n"
        "    except KeyboardInterrupt as exc:\n"
        "        sys.excepthook(type(exc), exc, exc.__traceback__)\n"
        "    try:\n"
        "        raise ValueError('not a Ctrl-C')\n"
        "    except ValueError as exc:\n"
        "        sys.excepthook(type(exc), exc, exc.__traceback__)\n"
        "    raise ImportError('numba._devicearray failed to import')\n"
        "def parser(train_flags=False):\n"
        "    p = argparse.ArgumentParser(prog='flipnet')\n"
        "    p.add_argument('word')\n"
        "    p.set_defaults(run=loads_a_module)\n"
        "    return p\n"
        "cli.build_parser = parser\n"
        "sys.exit(cli.main(['load']))\n")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stderr.endswith("ValueError: not a Ctrl-C\nflipnet load: interrupted\n"), done.stderr
    assert "CtrlC" not in done.stderr and "internal error" not in done.stderr, done.stderr
