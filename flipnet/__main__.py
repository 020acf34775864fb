"""The `flipnet` command's entry point, for `python -m flipnet` and the installed script.

main() installs flipnet's Ctrl-C handler first thing, but loading its modules (numpy
among them) takes a few tenths of a second before that. A Ctrl-C then used to end in a
traceback: a KeyboardInterrupt, or an ImportError where numpy's C code was loading a
module. Nothing has been written yet at that point, so the handler here just says so
and exits at once, with status 130 like any other interrupted command.

A question answered, the command leaves without the interpreter's teardown (`_leave`):
freeing Numba's compiled code and the solver's modules one by one took 0.17 s of a
one-second answer. What must happen at exit still does: the exit handlers (a database
built in the background starts there), the output flushed.
"""

import atexit
import os
import signal
import sys
import threading

QUESTIONS = ("value", "predict")  # commands whose whole run is one answer


def _interrupted_while_loading(signum, frame):
    os.write(2, b"flipnet: interrupted\n")
    os._exit(130)


def run():
    signal.signal(signal.SIGINT, _interrupted_while_loading)
    from flipnet.base.process import set_up_command

    set_up_command()  # before NumPy loads
    from flipnet.cli import main

    code = main()
    if sys.argv[1:2] and sys.argv[1] in QUESTIONS:
        _leave(code)
    return code


def _leave(code):
    """Exit with `code` at once, after the exit handlers and the output's flush; not while
    a thread of the command's own still runs (then the usual exit waits for it)."""
    if any(t is not threading.main_thread() and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`flipnet value ... | head`): as main says it
        code = code or 1
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(run())
