"""Where flipnet's files are, wherever it runs from.

- `shipped_dir()`: what the repository ships (models, their manifest, results, the
  paper's claims, the NIM perceptron's weights). In a checkout it is `data/`; an
  installed wheel carries the same files as the package data of `flipnet.shipped`
  (setup.cfg maps that package onto `data/`), found with importlib.resources.
- `data_dir()`: where datasets are read and built: $FLIPNET_DATA, else the checkout's
  `data/` when flipnet runs from one, else `data` in the user cache ($FLIPNET_CACHE,
  $XDG_CACHE_HOME/flipnet or ~/.cache/flipnet). It never depends on the current directory.
- `cache_dir()`: the user cache itself (the Cram solver's endgame database lives there).

A user's own runs go to `results/` where the command runs (base/files.py's RESULTS_DIR),
as a training script's outputs go beside the script.
"""

import importlib.resources
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def checkout():
    """The source checkout flipnet runs from (its setup.cfg beside the package), or None
    for an installed copy."""
    root = PACKAGE.parent
    return root if (root / "setup.cfg").is_file() and (root / "data").is_dir() else None


def cache_dir():
    """$FLIPNET_CACHE, else $XDG_CACHE_HOME/flipnet, else ~/.cache/flipnet."""
    if os.environ.get("FLIPNET_CACHE"):
        return Path(os.environ["FLIPNET_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "flipnet"


def data_dir():
    """Where datasets live (see the module's docstring)."""
    if os.environ.get("FLIPNET_DATA"):
        return Path(os.environ["FLIPNET_DATA"])
    root = checkout()
    return root / "data" if root else cache_dir() / "data"


def shipped_dir():
    """The shipped files: $FLIPNET_SHIPPED (a folder laid out the same, e.g. a tampered
    copy in a test), else the package data of `flipnet.shipped`."""
    if os.environ.get("FLIPNET_SHIPPED"):
        return Path(os.environ["FLIPNET_SHIPPED"])
    return Path(str(importlib.resources.files("flipnet.shipped")))


def shown(path):
    """A path as a user reads it: relative to the current directory when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)
