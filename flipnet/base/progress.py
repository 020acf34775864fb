"""Progress bars (tqdm, on stderr): rate and ETA for every long job.

Set FLIPNET_PROGRESS=0 to silence them (the tests do).
"""

import os

from tqdm import tqdm


def bar(total, desc, unit="it", **kwargs):
    disable = os.environ.get("FLIPNET_PROGRESS", "1") == "0"
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, dynamic_ncols=True,
                mininterval=0.5, disable=disable, **kwargs)
