"""Ctrl-C (and SIGTERM) that waits for a safe point.

A KeyboardInterrupt raised while a compiled (Numba) function is being called surfaces
as a SystemError traceback and can leave half-updated state behind. So inside
`deferred()` the first Ctrl-C only sets a flag: the code checks `requested()` between
compiled calls and stops cleanly (its own message says what was kept); a compiled
kernel running in a worker thread polls `flag` instead. A second Ctrl-C raises
KeyboardInterrupt at once. Outside `deferred()`, Ctrl-C raises KeyboardInterrupt as usual.

`flipnet`'s main() installs the handler, for SIGTERM too (`timeout`, `kill`): it stops a
job the same way, so no temporary file is left behind, and `received` keeps which signal
came for the exit status. Library code that never runs under it simply sees the usual
KeyboardInterrupt.

The handler raises `CtrlC`, a KeyboardInterrupt of its own class: CPython marks a plain
KeyboardInterrupt that leaves an `exec()` of a string as unhandled even when it is
caught further up (scipy runs such an exec while pytensor imports it), and
`python -m flipnet` then ends by SIGINT after printing its one line instead of with
exit status 130. It tests the exact class, so a subclass is never marked.

A Ctrl-C outside `deferred()` is also remembered before it is raised, and the next
deferred block starts with its stop already asked for, because its exception can be lost:
raised while a `__del__` or a weakref callback runs (importlib has one for its module
locks), Python hands it to `sys.unraisablehook` and goes on; raised while numpy's or
Numba's C code loads a module, it is printed (`PyErr_Print`, through `sys.excepthook`)
and replaced by an ImportError, which an optional import may catch. (A training run was
seen to go on for all its epochs after a Ctrl-C in its first moments.) The hooks
`install()` sets keep such a lost Ctrl-C quiet, where Python would print a traceback
("Exception ignored in ..."): it is remembered (`came()`, so that the error that took its
place is reported as the stop it is), and outside a deferred block the next Ctrl-C raises
as usual.
"""

import contextlib
import signal
import sys

import numpy as np

flag = np.zeros(1, dtype=np.int64)  # 1 once a stop is requested: read by compiled kernels
_depth = 0
_came = False  # a Ctrl-C came outside deferred(), since install()
_report_unraisable = sys.unraisablehook  # Python's own reports, for all but a lost Ctrl-C
_report_exception = sys.excepthook
received = None  # the last stop signal that came (SIGINT or SIGTERM), since install()


class CtrlC(KeyboardInterrupt):
    """Ctrl-C, as flipnet's handler raises it (see above for why not KeyboardInterrupt)."""


def install():
    global _came, _report_unraisable, _report_exception, received
    _came, received = False, None
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)
    if sys.unraisablehook is not _unraisable:
        _report_unraisable = sys.unraisablehook
        sys.unraisablehook = _unraisable
    if sys.excepthook is not _exception:
        _report_exception = sys.excepthook
        sys.excepthook = _exception


def _unraisable(raised):
    """Python's report of an exception it could not raise: silent for our own Ctrl-C
    (`_came` keeps it), the usual report for anything else."""
    if raised.exc_type is not CtrlC:
        _report_unraisable(raised)


def _exception(kind, value, traceback):
    """Python's report of an exception C code printed and dropped: silent for our own Ctrl-C."""
    if kind is not CtrlC:
        _report_exception(kind, value, traceback)


def came():
    """Whether a Ctrl-C came outside deferred() since install(): an error raised after it
    may be the one that took its place."""
    return _came


def _handler(signum, frame):
    global _came, received
    received = signum
    if _depth and not flag[0]:
        flag[0] = 1
        return
    _came = True
    raise CtrlC


def requested():
    """Whether Ctrl-C came (or `request()` was called) inside the current deferred block."""
    return bool(flag[0])


def request():
    """Ask the running deferred block to stop at its next safe point (a time limit uses this)."""
    flag[0] = 1


@contextlib.contextmanager
def deferred():
    """A block in which Ctrl-C is answered at the next safe point instead of at once."""
    global _depth
    if _depth == 0:
        flag[0] = int(_came)
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            flag[0] = 0
