"""Progress bars (tqdm, on stderr): rate and ETA for every long job.

Drawn where stderr is a terminal: written to a file or a pipe, a bar redrawn five times a
second is hundreds of lines a person then scrolls past. FLIPNET_PROGRESS=1 draws them
there too, FLIPNET_PROGRESS=0 nowhere (the tests' setting).
"""

import os
import sys

from tqdm import tqdm


def shown():
    """Whether bars are drawn at all: FLIPNET_PROGRESS, else whether stderr is a terminal."""
    setting = os.environ.get("FLIPNET_PROGRESS")
    if setting is not None and setting != "":
        return setting != "0"
    return _on_a_terminal()


def _on_a_terminal():
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without it, or closed
        return False


def bar(total, desc, unit="it", terminal_only=False, more_than=0, **kwargs):
    """`terminal_only`: shown only when stderr is a terminal, whatever FLIPNET_PROGRESS
    says (a library call's bar, which a log has no use for); `more_than`: shown only for a
    total above it."""
    disable = not shown() or (terminal_only and not _on_a_terminal()) or (total is not None and total <= more_than)
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, dynamic_ncols=True,
                mininterval=0.5, disable=disable, **kwargs)
