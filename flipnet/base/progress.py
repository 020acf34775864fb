"""Progress bars (tqdm, on stderr): rate and ETA for every long job.

Set FLIPNET_PROGRESS=0 to silence them (the tests do).
"""

import os
import sys

from tqdm import tqdm


def shown():
    """Whether bars are drawn at all (FLIPNET_PROGRESS)."""
    return os.environ.get("FLIPNET_PROGRESS", "1") != "0"


def bar(total, desc, unit="it", terminal_only=False, more_than=0, **kwargs):
    """`terminal_only`: shown only when stderr is a terminal (a library call's bar, which
    a log or a pipe has no use for); `more_than`: shown only for a total above it."""
    disable = not shown() or (terminal_only and not sys.stderr.isatty()) or (total is not None and total <= more_than)
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, dynamic_ncols=True,
                mininterval=0.5, disable=disable, **kwargs)
