"""Write files under a temporary name and rename, so no half-written file is ever seen."""

import contextlib
import os
import tempfile
from pathlib import Path

from flipnet.errors import FlipnetError


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; rename it to `path` only if the block succeeds."""
    path = Path(path)
    fd, tmp = _temp_beside(path)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_writable(path):
    """Fail now, with a clear message, if `path` cannot be written later."""
    fd, tmp = _temp_beside(Path(path))
    os.close(fd)
    os.unlink(tmp)


def _temp_beside(path):
    if path.is_dir():
        raise FlipnetError(f"cannot write {path}: it is a directory")
    directory = path.parent
    for parent in (directory, *directory.parents):
        if parent.exists():
            if not parent.is_dir():
                raise FlipnetError(f"cannot write {path}: {parent} is not a directory")
            break
    try:
        directory.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise FlipnetError(f"cannot write {path}: {exc.strerror or exc}") from None


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path, text):
    """Atomically replace `path` with `text`."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)
