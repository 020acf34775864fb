"""docs/api.md, made from the public names' signatures and docstrings (`make api-docs`;
tests/test_api.py checks that the page is what they say now)."""

import inspect
import sys

import flipnet

INTRO = """# flipnet from Python

`import flipnet` loads nothing but these names, each imported when first used, and
changes nothing in the host process (no environment variable, allocator or PyTensor
setting). Every example below runs as a doctest in `make test`.

Files: shipped models and results travel with the package (`flipnet.shipped`, found with
importlib.resources); datasets live in `$FLIPNET_DATA`, else a checkout's `data/`, else
`~/.cache/flipnet/data` (`$FLIPNET_CACHE`, `$XDG_CACHE_HOME`); a user's own runs in
`results/` where they are made. Bad input raises `FlipnetError` (or `ValueError`) with a
one-line message; a time limit passed raises a `TimeoutError`.

This page is generated from the docstrings: `make api-docs` writes it again.
"""

GAMES = """## games

`flipnet.games.make(name, **options)` builds a game by name ({names}) with the options it takes (`shape=(rows, cols)`, `heaps=`, `misere=`,
`max_take=`); `flipnet.games.for_position(name, text)` sizes one to a position. A game's
states are integers (a board: bit `r*cols + c` is cell `(r, c)`; Nim: a tuple of heaps),
its moves bitmasks or tuples: `legal_moves(state)`, `play(state, move)`, `parse(text)`,
`format(state)`, `format_move(move)`.

```python
>>> import flipnet
>>> game = flipnet.games.make("flip", shape=(2, 3))
>>> state = game.parse("111/011")
>>> [game.format(game.play(state, m)) for m in game.legal_moves(state)][:2]
['001/011', '101/001']
```

A game of your own is a rules class with those methods (and `name`, `rule`, `OPTIONS`,
`configure`, `for_position`, `is_over`, `parse_move`, `check_playable`) and one
`flipnet.games.register(flipnet.games.Registration(rules=..., theory=..., ...))`: the
registration says how its positions are valued (a theory such as
`flipnet.solve.position.ClosedForm(function)`), how a position is written, which players a
page offers and how large a position may be. From then on the program's `flipnet.value`,
`flipnet.cli.main` and an explorer it starts offer it like the others
(`flipnet.games.registered(...)` offers it for a `with` block; `tests/test_registry.py`
registers a complete one).
"""


def _signature(obj, name):
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


def _fenced(doc):
    """A docstring with its examples (>>> lines and what they print) in code blocks."""
    out, inside = [], False
    for line in inspect.cleandoc(doc or "").splitlines():
        if line.startswith(">>>") and not inside:
            out.append("```python")
            inside = True
        elif inside and not line.strip():
            out.append("```")
            inside = False
        out.append(line)
    return "\n".join(out + (["```"] if inside else []))


def _section(name, obj):
    doc = _fenced(obj.__doc__)
    out = [f"## {name}", "", "```python", f"flipnet.{_signature(obj, name)}", "```", "", doc, ""]
    if inspect.isclass(obj):
        for member, value in vars(obj).items():
            if member.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property)):
                continue
            target = value.fget if isinstance(value, property) else value
            if not (target.__doc__ or "").strip():
                continue
            title = member if isinstance(value, property) else _signature(value, member).replace("(self, ", "(").replace(
                "(self)", "()")
            out += [f"### {name}.{title}", "", _fenced(target.__doc__), ""]
    return out


def markdown():
    """The text of docs/api.md."""
    lines = [INTRO]
    for name in flipnet.__all__:
        if name in ("__version__", "games"):
            continue
        lines += _section(name, getattr(flipnet, name))
    lines.append(GAMES.replace("{names}", ", ".join(f"`{n}`" for n in flipnet.games.registry.names())))
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    from flipnet.base.files import write_text

    write_text(sys.argv[1], markdown())
