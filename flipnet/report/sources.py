"""Where a report reads each results file: the user's results/ first, then the results that
ship with flipnet (data/results/), so that `flipnet compare` and the README's tables show a
figure for every shipped model before anything is trained here. A figure read from a
shipped file says so."""

from pathlib import Path


class ResultFiles:
    """Results files by name: `results_dir`'s, else `shipped_dir`'s (None: no fallback)."""

    def __init__(self, results_dir, shipped_dir=None):
        self.results_dir = Path(results_dir)
        self.shipped_dir = Path(shipped_dir) if shipped_dir is not None else None

    def path(self, name):
        """The file `name` is read from, or None where neither folder holds it."""
        for folder in (self.results_dir, self.shipped_dir):
            if folder is not None and (folder / name).is_file():
                return folder / name
        return None

    def wanted(self, name):
        """Where a missing file would be written: the user's folder."""
        return self.results_dir / name

    def is_shipped(self, path):
        return self.shipped_dir is not None and path is not None and Path(path).parent == self.shipped_dir

    def glob(self, pattern):
        """The files matching `pattern`, by name, the user's where both folders hold one."""
        found = {}
        for folder in (self.shipped_dir, self.results_dir):
            if folder is not None:
                found.update({p.name: p for p in folder.glob(pattern)})
        return [found[name] for name in sorted(found)]


def result_files(where):
    """A ResultFiles of `where` (a folder: no fallback to the shipped results)."""
    return where if isinstance(where, ResultFiles) else ResultFiles(where)
