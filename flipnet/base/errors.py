"""The exceptions a user can fix, which the CLI turns into one line on stderr and exit
status 2, and the explorer into a 4xx. Anything else that escapes (a ValueError, a
KeyError from inside flipnet) is a bug: the CLI says so (exit 1), the server answers 500.
"""


class FlipnetError(Exception):
    """A problem the user can fix (bad input, missing file, size beyond a limit).

    The message is one line that names what is wrong and where.
    """


class BadInput(FlipnetError, ValueError):
    """A value given to flipnet (a position, a move, a setting, an argument of the API)
    that it cannot take. A ValueError too, as Python's own functions raise for a bad value,
    so `except ValueError` in a caller's code still catches it."""


class BadType(FlipnetError, TypeError):
    """An argument of the API of a type flipnet does not take (a float board, a string
    where a flag belongs). A TypeError too, as Python's own functions raise."""


class DamagedFile(FlipnetError):
    """A file flipnet reads (manifest, checkpoint, results, dataset, weights) that is not
    what it claims: the message names the file and the field."""


class Interrupted(FlipnetError):
    """Ctrl-C (or a time limit) ended a long job at a safe point; the message says what
    was kept and how to continue."""


class Cancelled(FlipnetError):
    """A question its asker withdrew (a position edited before its answer came)."""


class TimedOut(FlipnetError, TimeoutError):
    """A search ran past its time limit (`--timeout`); the message says how far it got.
    A TimeoutError too, for a program that calls flipnet with a time limit."""


def brief(value, most=40):
    """A value as a one-line message shows it: its repr, cut to `most` characters."""
    text = repr(value)
    return text if len(text) <= most else text[:most - 3] + "..."


def bug_report(exc, debug=True):
    """The one line that reports an exception no user can fix: a bug in flipnet. `debug`:
    the line says how to see the traceback (the CLI's FLIPNET_DEBUG=1)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    how = "; FLIPNET_DEBUG=1 shows the traceback" if debug else ""
    return f"internal error ({type(exc).__name__}{': ' + text if text else ''}): a bug in flipnet, please report it{how}"
