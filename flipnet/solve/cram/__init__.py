"""The Cram search of flip positions too large for a table (docs/cram.md).

Its parts, each a module: `solver` (`CramSolver`: components, tables and workers behind one
object), `search` and `bits`, `keys`, `wide` (the Numba kernels and their bit tricks),
`endgame` (the database of small boxes), `memory` (tables, their sizes and pages),
`supervisor` (the workers' threads, stops and progress), `checkpoint`, `standing` (what a
checkpoint proves), `pieces` (a board's children as tasks) and `warm` (a compile in the
background). Code outside `flipnet.solve` reaches them through `flipnet.solve.engine`
only. Importing this package loads no Numba: a name of `solver` is imported on first use.
"""


def __getattr__(name):
    """`from flipnet.solve.cram import CramSolver` (and the solver module's other names),
    loaded when first asked for."""
    import importlib
    from pathlib import Path

    if Path(__file__).with_name(f"{name}.py").is_file():  # a part: `from flipnet.solve.cram import search`
        return importlib.import_module(f"{__name__}.{name}")
    solver = importlib.import_module(f"{__name__}.solver")
    try:
        return getattr(solver, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
