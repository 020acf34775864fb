"""The one exception type the CLI turns into a one-line message and a non-zero exit."""


class FlipnetError(Exception):
    """A problem the user can fix (bad input, missing file, size beyond a limit).

    The message is one line that names what is wrong and where.
    """


class Interrupted(FlipnetError):
    """Ctrl-C during a long job that left something to resume from (the message says what)."""
