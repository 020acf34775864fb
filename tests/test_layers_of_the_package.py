"""The package's folders are the pipeline's stages, and imports only point down it:

    base  <-  games  <-  solve  <-  datasets  <-  nn  <-  play  <-  report  <-  api  <-  cli

(`base` is imported by every stage and imports nothing of flipnet; `games` imports
nothing of flipnet but `base` (its errors: a bad position is a user's error like any other); `nn` sees arrays, never games, players or reports; `report`
may measure players, `play` never imports a report; `api` holds the public names that
`cli` and a user's program call.)
The test reads every module's import statements, including those inside functions.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "flipnet"

# stage -> the stages it may import (itself included)
ALLOWED = {
    "base": {"base"},
    "games": {"base", "games"},
    "solve": {"base", "games", "solve"},
    "datasets": {"base", "games", "solve", "datasets"},
    "nn": {"base", "solve", "datasets", "nn"},
    "play": {"base", "games", "solve", "datasets", "nn", "play"},
    "report": {"base", "games", "solve", "datasets", "nn", "play", "report"},
    # api/reference.py reads the package's list of public names to write docs/api.md
    "api": {"base", "games", "solve", "datasets", "nn", "play", "report", "api", "package"},
    # the explorer: an HTTP layer over the api, which nothing below it knows
    "explore": {"base", "games", "solve", "datasets", "nn", "play", "report", "api", "explore"},
    "cli": {"base", "games", "solve", "datasets", "nn", "play", "report", "api", "explore", "cli"},
    # flipnet/__init__.py (the public names, imported when first used) and __main__.py
    "package": {"base", "games", "api", "cli", "package"},
}


# nn's sub-package -> the sub-packages it may import ("" is nn/__init__.py: FLOAT)
NN_ALLOWED = {
    "": {""},
    "core": {"", "core"},
    "training": {"", "core", "training"},
    "paper": {"", "core", "training", "paper"},
    "components": {"", "core", "training", "components"},
    "evaluation": {"", "core", "training", "paper", "components", "evaluation"},
    "nim": {"", "core", "nim"},
}


def nn_part(name):
    """'flipnet.nn.core.layers' -> 'core'; 'flipnet.nn' -> ''."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 else ""


def stage_of_module(name):
    """'flipnet.solve.dp' -> 'solve'; 'flipnet.cli' -> 'cli'; 'flipnet' -> 'package'."""
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in ("__main__", "__init__"):
        return "package"
    return parts[1]


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def flipnet_imports(path):
    """Every flipnet module a file imports (absolute names), anywhere in the file."""
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names if alias.name.startswith("flipnet")]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import"
            if node.module and node.module.startswith("flipnet"):
                if node.module == "flipnet":  # `from flipnet import games`
                    found += [(f"flipnet.{alias.name}", node.lineno) for alias in node.names
                              if alias.name != "__version__"]
                else:
                    found.append((node.module, node.lineno))
    return found


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def nn_modules():
    return sorted((PACKAGE / "nn").rglob("*.py"))


def against_the_order(path, part_of, allowed, within=lambda name: True):
    """The imports of a file that run against an order: (line, imported, its part)."""
    part = part_of(module_name(path))
    return [(line, imported, part_of(imported)) for imported, line in flipnet_imports(path)
            if within(imported) and part_of(imported) not in allowed[part]]


@pytest.mark.parametrize("paths, part_of, allowed", [(modules(), stage_of_module, ALLOWED),
                                                     (nn_modules(), nn_part, NN_ALLOWED)])
def test_every_module_belongs_to_a_part(paths, part_of, allowed):
    for path in paths:
        assert part_of(module_name(path)) in allowed, path


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down_the_pipeline(path):
    wrong = against_the_order(path, stage_of_module, ALLOWED)
    assert not wrong, f"{path.relative_to(PACKAGE.parent)}: imports against the pipeline's order: {wrong}"


@pytest.mark.parametrize("path", nn_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nn_families_import_only_the_core_below_them(path):
    wrong = against_the_order(path, nn_part, NN_ALLOWED, within=lambda name: stage_of_module(name) == "nn")
    assert not wrong, f"{path.relative_to(PACKAGE.parent)}: imports against the order of nn's sub-packages: {wrong}"


def test_the_nn_rule_catches_a_family_importing_the_other(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from flipnet.nn.paper.models import mlp2d\n")
    (imported, _), = flipnet_imports(bad)
    assert nn_part(imported) == "paper" and "paper" not in NN_ALLOWED["components"]


def test_the_rule_catches_a_wrong_import(tmp_path):
    """The checker itself: an nn module importing games is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from flipnet.games import FlipGame\n")
    (imported, _), = flipnet_imports(bad)
    assert stage_of_module(imported) == "games" and "games" not in ALLOWED["nn"]


def _module_graph():
    """{module: the flipnet modules it imports}, the imports inside functions included; an
    import of a package's own sub-package or of its own package is left out (the package
    re-exports what its parts define)."""
    known = {module_name(path) for path in modules()}

    def resolved(name):  # `from flipnet.x.y import name`: the module, else its package
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in known else None

    graph = {}
    for path in modules():
        here = module_name(path)
        targets = set()
        for imported, _ in flipnet_imports(path):
            target = resolved(imported)
            if target and target != here and not target.startswith(here + ".") and not here.startswith(target + "."):
                targets.add(target)
        graph[here] = targets
    return graph


def test_no_two_modules_import_each_other_even_inside_functions():
    """An import inside a function hides a cycle from Python, not from the reader: none."""
    graph = _module_graph()
    cycles = []

    def walk(start, node, trail):
        for nxt in graph.get(node, ()):
            if nxt == start:
                cycles.append(trail + [start])
            elif nxt not in trail and nxt > start:  # each cycle once, from its smallest module
                walk(start, nxt, trail + [nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    assert not cycles, [" -> ".join(cycle) for cycle in cycles[:5]]


def imported_modules(path, names):
    """The flipnet modules a file imports, anywhere in it: `from P import M` is module P.M
    where P.M is a module of the package (`names`), else P."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("flipnet"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in names else node.module)
    return found


def import_graph():
    names = {module_name(path): path for path in modules()}
    return {name: imported_modules(path, names) - {name} for name, path in names.items()}


def test_only_the_engine_reaches_into_the_cram_search():
    """Code outside flipnet.solve asks the engine (`solve/engine.py`, `solve/shapes.py`),
    never a part of the search: its tables, workers and files stay behind that door."""
    graph = import_graph()
    reaching = sorted((name, sorted(m for m in imported if m.startswith("flipnet.solve.cram")))
                      for name, imported in graph.items()
                      if stage_of_module(name) != "solve" and any(m.startswith("flipnet.solve.cram") for m in imported))
    assert not reaching, f"modules outside flipnet.solve importing the search's parts: {reaching}"


def test_the_search_reads_no_environment_variable():
    """The engine's settings come from where a program starts (the CLI, the explorer, the
    API's default engine): nothing in flipnet.solve reads os.environ."""
    reading = [str(path.relative_to(PACKAGE)) for path in (PACKAGE / "solve").rglob("*.py")
               if "os.environ" in path.read_text() or "getenv" in path.read_text()]
    assert not reading, reading


BLOCKS = (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)
LONGEST_CLASS, LONGEST_FUNCTION, DEEPEST = 250, 60, 4


def nesting(node, depth=0):
    """How deep a function's blocks nest (a function or class inside it counts apart)."""
    deepest = depth
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            deepest = max(deepest, nesting(child, depth + isinstance(child, BLOCKS)))
    return deepest


def too_large(tree):
    """The classes and functions of a module past the engine's limits: (name, lines, nesting)."""
    found = []
    for node in ast.walk(tree):
        lines = getattr(node, "end_lineno", 0) - getattr(node, "lineno", 0) + 1
        if isinstance(node, ast.ClassDef) and lines > LONGEST_CLASS:
            found.append((node.name, lines, None))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                lines > LONGEST_FUNCTION or nesting(node) > DEEPEST):
            found.append((node.name, lines, nesting(node)))
    return found


# The search's hot loop, whole on purpose: split into parts (inlined or not) it searched
# 10-30% slower on one worker (the comment above it gives the figures)
WHOLE_ON_PURPOSE = {("solve/cram/search.py", "options_of")}


@pytest.mark.parametrize("path", sorted((PACKAGE / "solve").rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_engine_keeps_parts_a_reader_can_follow(path):
    """No class in flipnet.solve over 250 lines, no function over 60, no blocks nested deeper
    than 4, but the one function named above, which must still need its exception."""
    where = str(path.relative_to(PACKAGE))
    found = too_large(ast.parse(path.read_text()))
    excused = [f for f in found if (where, f[0]) in WHOLE_ON_PURPOSE]
    assert len(excused) == sum(w == where for w, _ in WHOLE_ON_PURPOSE), f"{where}: an exception it no longer needs"
    found = [f for f in found if f not in excused]
    assert not found, f"{path.relative_to(PACKAGE.parent)}: past the limits (name, lines, nesting): {found}"


def test_the_size_rule_catches_a_deep_function():
    deep = "def f(x):\n" + "".join("    " * k + f"    if x > {k}:\n" for k in range(5)) + "    " * 6 + "return x\n"
    assert too_large(ast.parse(deep)) == [("f", 7, 5)]
    assert too_large(ast.parse("class C:\n" + "    x = 1\n" * 250)) == [("C", 251, None)]
