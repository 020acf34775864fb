"""The `flipnet` command. Each stage's commands, their flags beside what they print, are a
module of their own: `exact` (solve, value, data, endgame), `learning` (train, sweep,
evaluate, by-size, predict, models, train-nim, survey-nim, train-es), `playing` (play, gui,
arena, explore) and `reports` (compare, bench). Each command calls the API or the stage
that owns its work, where its input is checked. The one rule kept here is the error
contract's door: a FlipnetError is the user's (one line, exit 2), anything else a bug
(exit 1)."""

import argparse
import os
import re
import sys

from flipnet import __version__
from flipnet.base import signals
from flipnet.base.errors import FlipnetError, Interrupted, bug_report
from flipnet.cli.exact import parse_data, parse_endgame, parse_solve, parse_value
from flipnet.cli.learning import (parse_by_size, parse_evaluate, parse_models, parse_predict, parse_survey_nim,
                                  parse_sweep, parse_train, parse_train_es, parse_train_nim)
from flipnet.cli.playing import parse_arena, parse_explore, parse_gui, parse_play
from flipnet.cli.reports import parse_bench, parse_compare


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2, and a value is read as
    written or refused: a number in plain digits (Python's int() would take '1_0' as 10),
    a flag's text never empty (`-o ""` is not "no file")."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def add_argument(self, *args, **kwargs):
        takes_value = kwargs.get("action") in (None, "store", "append") and kwargs.get("nargs") != 0
        if kwargs.get("type") in STRICT:
            kwargs["type"] = STRICT[kwargs["type"]]
        elif takes_value and kwargs.get("type") is None and args and args[0].startswith("-"):
            kwargs["type"] = _text
        return super().add_argument(*args, **kwargs)


def _strict_int(text):
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise ValueError(text)  # argparse's own line: "invalid int value: 'TEXT'"
    return int(text)


def _strict_float(text):
    if "_" in text:
        raise ValueError(text)
    return float(text)


def _text(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value: give one, or leave the flag out")
    return text


_strict_int.__name__, _strict_float.__name__ = "int", "float"  # argparse names the type in its error
STRICT = {int: _strict_int, float: _strict_float}


def build_parser(train_flags=True):
    """The parser of every command. `train`'s flags come from the training settings, whose
    import loads PyTensor (0.3 s of a 1 s start): main() asks for them for `train` only."""
    parser = _Parser(prog="flipnet", description="Sprague-Grundy values: exact solvers, "
                     "datasets and the neural networks of the 2016 flip game study.")
    parser.add_argument("--version", action="version", version=f"flipnet {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    parse_solve(sub)
    parse_value(sub)
    parse_data(sub)
    parse_train(sub, train_flags)
    parse_sweep(sub, train_flags)
    parse_train_nim(sub)
    parse_survey_nim(sub)
    parse_play(sub)
    parse_gui(sub)
    parse_arena(sub)
    parse_train_es(sub)
    parse_evaluate(sub)
    parse_by_size(sub)
    parse_predict(sub)
    parse_compare(sub)
    parse_endgame(sub)
    parse_bench(sub)
    parse_models(sub)
    parse_explore(sub)
    return parser


def main(argv=None):
    signals.install()  # first: Ctrl-C during the imports below ends in one line too
    argv = sys.argv[1:] if argv is None else list(argv)
    word = argv[0] if argv and not argv[0].startswith("-") else None
    command = f"flipnet {word}" if word else "flipnet"
    try:
        args = build_parser(train_flags=word in ("train", "sweep")).parse_args(argv)
        args.build_parser = build_parser  # a command that reads another command's flags (sweep --run)
        return args.run(args) or 0
    except Interrupted as exc:
        return _fail(command, exc, _stopped_status(), prefix="")
    except FlipnetError as exc:  # the user's to fix; anything else that escapes is a bug
        return _fail(command, exc, 2)
    except MemoryError:
        return _fail(command, "out of memory", 2)
    except BrokenPipeError:  # the reader went away (`flipnet ... | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # the machine, not flipnet: a full disk, a permission, a limit
        where = getattr(exc, "filename", None) or _cache_written(exc)
        return _fail(command, f"{exc.strerror or exc}{f' ({where})' if where else ''}", 2)
    except KeyboardInterrupt:
        return _fail(command, "interrupted", _stopped_status(), prefix="")
    except Exception as exc:  # Ctrl-C inside a compiled function's Python part, or a bug
        if _caused_by_interrupt(exc) or signals.came():
            return _fail(command, "interrupted", _stopped_status(), prefix="")
        if os.environ.get("FLIPNET_DEBUG"):
            raise
        return _fail(command, bug_report(exc), 1)


def _fail(command, message, code, prefix="error: "):
    """One line on stderr (the first line of the message), and the exit status."""
    text = str(message).strip().splitlines()[0] if str(message).strip() else type(message).__name__
    print(f"{command}: {prefix}{text}", file=sys.stderr)
    return code


def _cache_written(exc):
    """Where a compile wrote when an OSError without a file name came: Numba's compile
    cache (PyTensor's compiled graphs, flipnet's kernels), or the temporary file in which
    PyTensor's Numba linker writes the source of each graph it compiles."""
    tb, where = exc.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        path = getattr(tb.tb_frame.f_locals.get("self"), "_cache_path", None)
        if path and "numba" in code.co_filename:
            where = f"writing Numba's compile cache in {path}"
        elif code.co_name == "compile_function_src" and "pytensor" in code.co_filename:
            import tempfile

            where = f"writing PyTensor's generated code in {tempfile.gettempdir()}"
        tb = tb.tb_next
    return where


def _stopped_status():
    """The shell's status of a job a signal stopped: 128 + its number (130 Ctrl-C, 143 SIGTERM)."""
    import signal

    return 128 + (signals.received or signal.SIGINT)


def _caused_by_interrupt(exc):
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


if __name__ == "__main__":
    raise SystemExit(main())
