"""The `flipnet` command's entry point, for `python -m flipnet` and the installed script.

main() installs flipnet's Ctrl-C handler first thing, but loading its modules (numpy
among them) takes a few tenths of a second before that. A Ctrl-C then used to end in a
traceback: a KeyboardInterrupt, or an ImportError where numpy's C code was loading a
module. Nothing has been written yet at that point, so the handler here just says so
and exits at once, with status 130 like any other interrupted command.
"""

import os
import signal


def _interrupted_while_loading(signum, frame):
    os.write(2, b"flipnet: interrupted\n")
    os._exit(130)


def run():
    signal.signal(signal.SIGINT, _interrupted_while_loading)
    from flipnet.base.process import set_up_command

    set_up_command()  # before NumPy loads
    from flipnet.cli import main

    return main()


if __name__ == "__main__":
    raise SystemExit(run())
