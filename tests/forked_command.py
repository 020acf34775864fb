"""The `flipnet` command run in a forked copy of a process that has already loaded it.

Starting Python and importing flipnet, PyTensor and Numba costs a second or two a command;
the bad-input corpus runs two hundred commands. This server imports them once, then for
each request forks: the child takes the request's directory, environment, limits and
argument list, runs the command's entry point (`flipnet.__main__.run`, as the installed
script does) with its output on pipes, and exits with the command's status. Each
command is still a process of its own, with the exit status and files a user would see.

Before the first request the server imports every module of flipnet (a training or
evaluation command would otherwise import a quarter of a second's worth of its own) and
compiles the Cram solver's kernels (from Numba's cache when it holds them; not with
--without-kernels), so that a forked command finds them ready instead of compiling them
again, each for itself; then it writes one line, "ready".

Protocol: one JSON object a line on stdin ({"argv", "cwd", "env", "file_size",
"timeout", "python_linker"}); one a line on stdout ({"returncode", "stdout", "stderr"}).
A variable read while flipnet is imported (FLIPNET_FLOAT, FLIPNET_HEAP) is the server's:
a request that changes one must run as a fresh process instead. "python_linker": the
command compiles its graphs with PyTensor's Python linker (conftest.python_mode).
"""

import importlib
import json
import os
import pkgutil
import selectors
import signal
import sys
import time

import flipnet
from cli_cases import bytecode_unwritten, limits

IMPORT_TIME_VARIABLES = ("FLIPNET_FLOAT", "FLIPNET_HEAP", "OPENBLAS_NUM_THREADS")


def child(request, out_fd, err_fd):
    """In the forked process: become the command, and never return."""
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(bytecode_unwritten(request["env"], request.get("file_size")))
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        limits(request.get("file_size"))()
        if request.get("python_linker"):
            python_linker_quietly()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(out_fd, 1)  # pipes, as for a fresh process: a file size limit does not cut them
        os.dup2(err_fd, 2)
        sys.argv = ["flipnet", *request["argv"]]
        from flipnet.__main__ import run

        code = run()
    except SystemExit as exc:  # argparse's usage errors and --help
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # what Python prints for an uncaught exception, and its status
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code if isinstance(code, int) else 1)


def collect(pid, pipes, timeout):
    """The child's output, read as it comes (a full pipe would stall it), and its status."""
    chunks = {fd: [] for fd in pipes}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in pipes:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
            for key, _ in selector.select(timeout=1.0):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    os.close(key.fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), [b"".join(chunks[fd]).decode(errors="replace") for fd in pipes]


def preload(kernels=True):
    """Every module of flipnet imported and (with `kernels`) the Cram kernels compiled,
    once for every fork."""
    for module in pkgutil.walk_packages(flipnet.__path__, "flipnet."):
        if module.name != "flipnet.__main__":
            importlib.import_module(module.name)
    if kernels:
        from flipnet.solve.cram.warm import compile_kernels

        compile_kernels(with_endgame=False)


def python_linker_quietly():
    """PyTensor's Python linker for this command's graphs, a scan's too: no Numba compile
    of a graph no other test compiles. Its NumPy operations warn of an overflow that
    Numba's code passes over in silence: not the command's output."""
    import warnings

    from conftest import use_python_linker

    use_python_linker()
    warnings.simplefilter("ignore", RuntimeWarning)


def serve(kernels=True):
    preload(kernels)
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        assert not set(IMPORT_TIME_VARIABLES) & {k for k, v in request["env"].items()
                                                 if os.environ.get(k) != v}, request["env"]
        (out_read, out_write), (err_read, err_write) = os.pipe(), os.pipe()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.close(out_read)
            os.close(err_read)
            child(request, out_write, err_write)
        os.close(out_write)
        os.close(err_write)
        returncode, (out, err) = collect(pid, (out_read, err_read), request.get("timeout", 600))
        print(json.dumps({"returncode": returncode, "stdout": out, "stderr": err}), flush=True)


if __name__ == "__main__":
    serve(kernels="--without-kernels" not in sys.argv[1:])
