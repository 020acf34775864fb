"""Files written under a temporary name and renamed, so no half-written file is ever seen,
and JSON that is always strict (no NaN or Infinity).

A temporary file is named `.NAME.HOST.PID.XXXXXXXX.tmp`: a writer killed outright (SIGKILL,
a power cut) cannot remove its own, so the next write to the same place removes those of
this host whose process is gone, and never another live writer's (nor another host's, on
a shared disk).

Paths are checked before long work starts (`check_writable`): a missing parent directory
is refused rather than created, so a typo in `-o` cannot scatter directories around. The
one exception is flipnet's own `results/` directory (relative to where it runs), which
any command that writes there creates.
"""

import contextlib
import glob
import json
import math
import os
import socket
import tempfile
from pathlib import Path

from flipnet.base.errors import FlipnetError

RESULTS_DIR = Path("results")


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path beside `path`; rename it to `path` only if the block succeeds.

    An OSError inside the block (a full disk, a file size limit) becomes a one-line
    FlipnetError naming `path`; the temporary file is removed either way.
    """
    path = Path(path)
    fd, tmp = _temp_beside(path)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FlipnetError(f"cannot write {path}: {_reason(exc)}") from None
        raise


def check_writable(path):
    """Fail now, with a clear message, if `path` cannot be written later."""
    fd, tmp = _temp_beside(Path(path))
    os.close(fd)
    os.unlink(tmp)


def ensure_dir(directory):
    """Create `directory` (one level: its parent must exist) and return it as a Path."""
    directory = Path(directory)
    if directory.is_dir():
        return directory
    if directory.exists():
        raise FlipnetError(f"{directory} is not a directory")
    _check_parent(directory)
    try:
        directory.mkdir()
    except OSError as exc:
        raise FlipnetError(f"cannot create {directory}: {_reason(exc)}") from None
    return directory


def _temp_beside(path):
    if path.is_dir():
        raise FlipnetError(f"cannot write {path}: it is a directory")
    _check_parent(path)
    remove_dead_temporaries(path)
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.{_HOST}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise FlipnetError(f"cannot write {path}: {_reason(exc)}") from None


_HOST = socket.gethostname().replace(".", "-").replace("/", "-") or "host"


def remove_dead_temporaries(path):
    """Remove the temporary files of `path` left by writers of this host that are gone;
    the paths removed."""
    path = Path(path)
    removed = []
    with contextlib.suppress(OSError):
        for tmp in path.parent.glob(f".{glob.escape(path.name)}.{glob.escape(_HOST)}.*.tmp"):
            pid = tmp.name[len(f".{path.name}.{_HOST}."):].split(".", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                    removed.append(tmp)
    return removed


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _check_parent(path):
    parent = path.parent
    if parent == RESULTS_DIR and not parent.exists() and Path(".").is_dir():
        ensure_dir(RESULTS_DIR)
    for ancestor in (parent, *parent.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise FlipnetError(f"cannot write {path}: {ancestor} is not a directory")
            break
    if not parent.is_dir():
        raise FlipnetError(f"cannot write {path}: directory {parent} does not exist")


def _reason(exc):
    return exc.strerror or str(exc) or type(exc).__name__


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path, text):
    """Atomically replace `path` with `text`."""
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def strict(value):
    """`value` with every non-finite float replaced by None, so it is valid JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def json_text(value, indent=1):
    """Strict JSON (no NaN, no Infinity: they become null), ending with a newline."""
    return json.dumps(strict(value), indent=indent, allow_nan=False) + "\n"


def write_json(path, value):
    """Atomically replace `path` with `value` as strict JSON."""
    write_text(path, json_text(value))


def read_text_file(path, what="file"):
    """A text file a user names, as text (UTF-8), or a one-line FlipnetError saying why
    not: missing, a folder, unreadable, or not text (the first byte that is not, and where)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise FlipnetError(f"{what} {path} not found") from None
    except IsADirectoryError:
        raise FlipnetError(f"{what} {path} is a directory, not a file") from None
    except OSError as exc:
        raise FlipnetError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise FlipnetError(f"{what} {path} is not text: byte 0x{data[exc.start]:02x} at line {line} "
                           f"(byte {exc.start}) is not UTF-8") from None


def read_json(path, what="JSON file"):
    """The parsed contents of a JSON file, or a one-line FlipnetError saying why not."""
    text = read_text_file(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FlipnetError(f"{path} line {exc.lineno}: not valid JSON ({exc.msg})") from None
