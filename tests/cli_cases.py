"""Running the real `flipnet` command in a subprocess, as a user would: its own working
directory, a memory limit, a time limit, optionally a file size limit (a full disk), and a
real SIGINT. Shared by the bad-input corpus and the interrupt tests; and a Dask cluster on
127.0.0.1 started as a user starts one, for the tests that kill one of its workers."""

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

MEMORY_LIMIT = 6 << 30  # bytes of address space per command
FLIPNET = [sys.executable, "-m", "flipnet"]
SCRIPT = [str(Path(sys.executable).with_name("flipnet"))]  # the installed command a user types
PYTHON_LINKER = [sys.executable, str(Path(__file__).with_name("python_linker_command.py"))]


def limits(file_size=None):
    """The limits a command runs under, applied in its process before it starts. With a
    `file_size`, its writes past it fail with EFBIG, as on a full disk: give such a process
    `bytecode_unwritten` too."""
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if file_size is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    return apply


def bytecode_unwritten(env, file_size):
    """`env` for a process that runs under a file size limit: Python writes the bytecode of
    a module it imports for the first time with one write() whose count it does not check,
    so under the limit it would leave a cut .pyc behind, and every later import of that
    module would fail (EOFError) until it is deleted."""
    return env if file_size is None else {**env, "PYTHONDONTWRITEBYTECODE": "1"}


def environment(**extra):
    env = {**os.environ, "FLIPNET_PROGRESS": "0", "FLIPNET_ENDGAME": "off", **extra}
    env.pop("FLIPNET_DEBUG", None)
    return env


def run(argv, cwd, timeout=600, file_size=None, env=None, stdin="", program=FLIPNET):
    """`program`: `python -m flipnet` or another way to start it (PYTHON_LINKER, SCRIPT)."""
    return subprocess.run([*program, *map(str, argv)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, input=stdin, preexec_fn=limits(file_size),
                          env=bytecode_unwritten(env or environment(), file_size))


class CommandServer:
    """`run` through a server that has loaded flipnet once and forks a process per command
    (`forked_command.py`): the same status, output and files, without the second or two
    a fresh interpreter spends importing. Not for a command whose environment changes
    what flipnet reads while it is imported. Returns once the server is ready, so that
    a second one started after it finds the Cram kernels in Numba's cache; `kernels`:
    False for commands that value few positions, whose own load of the kernels costs less
    than a cold compile in the server."""

    def __init__(self, kernels=True):
        self.server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("forked_command.py")),
                                        *([] if kernels else ["--without-kernels"])],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                       env=environment())
        ready = self.server.stdout.readline()
        if ready != "ready\n":
            raise RuntimeError(f"the command server did not start: {ready!r}")

    def run(self, argv, cwd, timeout=600, file_size=None, env=None, python_linker=False):
        """`python_linker`: the command compiles its graphs with PyTensor's Python linker."""
        request = {"argv": list(map(str, argv)), "cwd": str(cwd), "env": env or environment(),
                   "file_size": file_size, "timeout": timeout, "python_linker": python_linker}
        self.server.stdin.write(json.dumps(request) + "\n")
        self.server.stdin.flush()
        reply = json.loads(self.server.stdout.readline())
        return subprocess.CompletedProcess([*FLIPNET, *argv], reply["returncode"], reply["stdout"],
                                           reply["stderr"])

    def close(self):
        self.server.stdin.close()
        self.server.wait(timeout=60)


def start(argv, cwd, env=None, stderr=subprocess.PIPE, group=False, program=FLIPNET):
    """A command started in the background (for a SIGINT while it works); `stderr` an
    open file to watch its progress lines while it runs; `group`: in a process group of
    its own, as a terminal runs a job (its process id is the group's); `program`:
    `python -m flipnet` or the installed script."""
    proc = subprocess.Popen([*program, *map(str, argv)], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=stderr, text=True, preexec_fn=limits(),
                            env=env or environment(), start_new_session=group)
    proc.cpu_before_exec = cpu_seconds(proc.pid)  # Popen returns once the program is running
    return proc


def interrupt_when(proc, ready, settle=0.5, timeout=300, group=False):
    """Send a real SIGINT once `ready()` holds (then `settle` seconds more); the output.
    `group`: to every process of the command's group, as Ctrl-C in a terminal does."""
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(f"the command ended before it was interrupted: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the command never got ready to be interrupted")
        time.sleep(0.05)
    time.sleep(settle)
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def cpu_seconds(pid):
    """The CPU time a process has used so far, user and system (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def program_cpu_seconds(proc):
    """The CPU time a command started by `start` has used since its program began: a moment
    of its start-up that a loaded machine does not move, as it moves the wall clock. The
    time before is left out: the forked copy of a test process that holds gigabytes in
    4 kB pages spends a tenth of a second or more freeing that copy when it execs, on the
    command's account, and a signal timed by the total came before Python had set up its
    own handler (the command then died by SIGINT, silently)."""
    return cpu_seconds(proc.pid) - proc.cpu_before_exec


def files_in(directory):
    """Every file under a directory (relative paths), directories left out."""
    root = Path(directory)
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def stderr_lines(text):
    return [line for line in text.replace("\r", "\n").splitlines() if line.strip()]


def wait_for(condition, seconds, what):
    """condition()'s first true answer, looked for every 0.1 s, or a failure after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"no {what} within {seconds} s")


@contextlib.contextmanager
def dask_cluster(place, env):
    """`dask scheduler` and `dask worker --nworkers 2` on 127.0.0.1, separate processes as a
    user starts them, both workers up: (the scheduler's address, the worker command's
    process, a list of processes ended with them, to which a test adds its own)."""
    import distributed

    bin_dir = Path(sys.executable).parent
    started = []
    try:
        started.append(subprocess.Popen([bin_dir / "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                                         "--no-dashboard", "--scheduler-file", place / "scheduler.json"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        address = wait_for(lambda: (place / "scheduler.json").exists() and
                           json.loads((place / "scheduler.json").read_text() or "{}").get("address"), 60,
                           "scheduler")
        workers = subprocess.Popen([bin_dir / "dask", "worker", address, "--nworkers", "2", "--nthreads", "1",
                                    "--no-dashboard", "--host", "127.0.0.1"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env)
        started.append(workers)
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, workers, started
    finally:
        for proc in reversed(started):
            proc.terminate()
        for proc in started:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
