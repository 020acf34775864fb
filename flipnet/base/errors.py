"""The exceptions the CLI turns into one line on stderr and a non-zero exit."""


class FlipnetError(Exception):
    """A problem the user can fix (bad input, missing file, size beyond a limit).

    The message is one line that names what is wrong and where.
    """


class Interrupted(FlipnetError):
    """Ctrl-C (or a time limit) ended a long job at a safe point; the message says what
    was kept and how to continue."""


class Cancelled(FlipnetError):
    """A question its asker withdrew (a position edited before its answer came)."""


class TimedOut(FlipnetError, TimeoutError):
    """A search ran past its time limit (`--timeout`); the message says how far it got.
    A TimeoutError too, for a program that calls flipnet with a time limit."""
