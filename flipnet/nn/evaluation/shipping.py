"""The trained models that ship (`flipnet models`): putting a trained run into data/models/
with its manifest record, listing what ships with its figures, and telling whether a
model trained again is the one that ships.

The manifest copies no figure of a run: each figure is a record pointing into a results
file that ships in data/results/ (`figures`), read when listed. What it does store is
each model's error count on SLICE positions spread evenly through its test split, which
the tests recompute from the shipped file.
"""

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np

from flipnet.base import shipped
from flipnet.base.errors import FlipnetError
from flipnet.base.files import RESULTS_DIR, read_json, write_json
from flipnet.base.places import checkout, shown
from flipnet.base.shipped import (ALIASES, SLICE, canonical, checked, manifest, pack, packed_bytes, sha256,
                                  shipped_file)
from flipnet.datasets import locate, read_split
from flipnet.nn.core.store import load_npz
from flipnet.nn.core.kinds import read_model
from flipnet.nn.training.recipes import RECIPES

# model of record -> the make target that trains it again (its recipe's record)
RETRAIN = {r.name: f"make {r.target}" for r in RECIPES.values() if r.ships}
# the agents' files: (where training writes it, where it ships, the command that trains it,
# the results that say how and by what it was trained)
AGENT_FILES = {"es": (RESULTS_DIR / "es.json", "es.json", "make train-es", RESULTS_DIR / "es.json"),
               "nim": (shipped.SHIPPED / "nimWeights.txt", "../nimWeights.txt", "make train-nim", RESULTS_DIR / "nim.json")}
# what an installed copy (no Makefile beside it) runs instead of a make target: a model's
# recipes in turn (`Recipe.trained_by`), or an agent's command
INSTALLED_AGENTS = {"es": "flipnet train-es", "nim": "flipnet train-nim"}
LARGE = ("6x6", "7x7")
# what a model file records of the wall time its training took (a chain's next stage adds
# its own to it): training again cannot repeat it, so a retrain check leaves it aside
WALL_TIMES = ("pipeline_seconds",)


def reported(name):
    """The evaluations of `name` the README's tables and the findings' figures read."""
    return ([f"eval-{name}-{board}{ply}.json" for board in ("5x5", *LARGE) for ply in ("", "-1ply")]
            + [f"bysize-beyond-{name}-{board}.json" for board in LARGE])


def _file_record(path, shown):
    return {"path": shown, "bytes": Path(path).stat().st_size, "sha256": sha256(path)}


def slice_of_test(states, labels):
    """SLICE positions of a test split, evenly spaced through it (the split lists states in
    order, and small states hold few cells: its first positions are the easiest)."""
    step = max(1, len(states) // SLICE)
    return states[::step][:SLICE], labels[::step][:SLICE]


def slice_errors(model_file, data_dir=None):
    """(errors, positions) of a model on the test slice of its split (read from data_dir
    where given, else where its run read it)."""
    model, meta = read_model(model_file)
    data = Path(meta["config"]["data"])
    split = read_split(Path(data_dir) / data.name if data_dir else locate(data), meta["config"].get("bucket", 0))
    states, labels = slice_of_test(*split.test)
    return int(np.sum(model.predict(states) != labels)), int(len(states))


def _figures(name, results_dir, one_row):
    """{figure: {file, keys}} of the figures of `name` that results_dir holds (strings of
    one row have one shape each: no split by known and new shapes)."""
    figures = {"valid error": (f"{name}.json", ["valid_error"]),
               "test error": (f"{name}.json", ["test_error"])}
    if one_row:
        return _present(figures, results_dir)
    figures.update({"test error, known shapes": (f"{name}.json", ["test_error_known_shapes"]),
                    "test error, new shapes": (f"{name}.json", ["test_error_new_shapes"]),
                    "test error + 1-ply": (f"eval-{name}-5x5-1ply.json", ["parts", "test", "error"])})
    for board in LARGE:
        for ply in ("", "-1ply"):
            figures[f"{board}, density 0.5{ply.replace('-', ' + ')}"] = (
                f"eval-{name}-{board}{ply}.json", ["parts", "density 0.5", "error"])
    return _present(figures, results_dir)


def _present(figures, results_dir):
    kept = {}
    for figure, (file, keys) in figures.items():
        path = Path(results_dir) / file
        if path.exists() and _walk(read_json(path, "results file"), keys) is not None:
            kept[figure] = {"file": file, "keys": keys}
    return kept


def _walk(data, keys):
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def ship(name, results_dir=RESULTS_DIR, log=print):
    """Put the trained `name` (results_dir/NAME.npz and its results) into data/models/ and
    data/results/, and write its manifest record."""
    name = canonical(name)
    data = manifest()
    if name in AGENT_FILES:
        return _ship_agent(name, data, log)
    source = Path(results_dir) / f"{name}.npz"
    if name not in RETRAIN:
        raise FlipnetError(f"{name} is not a model of record that ships: {', '.join(RETRAIN)}")
    run = read_json(Path(results_dir) / f"{name}.json", "results file")
    if "trained" not in run:
        raise FlipnetError(f"{results_dir}/{name}.json does not say which code trained it: train it again")
    errors, positions = slice_errors(source)
    shipped.MODELS_DIR.mkdir(parents=True, exist_ok=True)
    shipped.RESULTS_SHIPPED.mkdir(parents=True, exist_ok=True)
    pack(source, shipped.MODELS_DIR / f"{name}.npz")
    figures = _figures(name, results_dir, run["board"].startswith("1x"))
    files = sorted({f["file"] for f in figures.values()}
                   | {file for file in reported(name) if (Path(results_dir) / file).exists()})
    for file in files:
        shutil.copyfile(Path(results_dir) / file, shipped.RESULTS_SHIPPED / file)
    data["models"][name] = {
        "recipe": run["recipe"], "seed": run["seed"], "board": run["board"], "trained": run["trained"],
        "retrain": RETRAIN[name],
        "file": _file_record(shipped.MODELS_DIR / f"{name}.npz", f"{name}.npz"),
        "results": [_file_record(shipped.RESULTS_SHIPPED / file, f"../results/{file}") for file in files],
        "figures": figures,
        "slice": {"split": "test", "every": "(test positions // 2000)-th, from the first", "positions": positions,
                  "errors": errors},
    }
    write_json(shipped.manifest_path(), data)
    log(f"shipped {name}: {data['models'][name]['file']['bytes']:,} bytes, "
        f"{errors} errors on the {positions} test positions of the slice")
    return data["models"][name]


def _ship_agent(name, data, log):
    source, shown, command, results = AGENT_FILES[name]
    target = shipped.MODELS_DIR / shown
    run = read_json(results, "results file")
    if "trained" not in run:
        raise FlipnetError(f"{results} does not say which code trained it: train it again ({command})")
    if source.resolve() != target.resolve():
        shutil.copyfile(source, target)
    entry = {"trained": run["trained"], "retrain": command, "file": _file_record(target, shown)}
    if results.resolve() != source.resolve():  # the training record ships beside the file
        shutil.copyfile(results, shipped.RESULTS_SHIPPED / results.name)
        entry["results"] = [_file_record(shipped.RESULTS_SHIPPED / results.name, f"../results/{results.name}")]
    data["models"][name] = entry
    write_json(shipped.manifest_path(), data)
    log(f"shipped {name}: {target.stat().st_size:,} bytes")
    return entry


def _same_agent(name, trained, entry):
    """Whether a retrained agent is the shipped one: the ES agent's weights and history
    (its file also holds the run's time), the NIM perceptron's weights file byte for byte
    (training writes it where it ships: its digest against the manifest's)."""
    if name == "es":
        fields, ships = ("weights", "history"), shipped_file(name)
        return [read_json(trained).get(f) for f in fields] == [read_json(ships).get(f) for f in fields]
    return sha256(trained) == entry["file"]["sha256"]


def ship_results(names, results_dir=RESULTS_DIR, log=print):
    """Put results files that no shipped model owns (the arena, the runs of other seeds,
    timings) into data/results/, each recorded in the manifest's "results"."""
    data = manifest()
    records = {r["path"]: r for r in data.get("results", [])}
    shipped.RESULTS_SHIPPED.mkdir(parents=True, exist_ok=True)
    for name in names:
        source = Path(results_dir) / Path(name).name
        read_json(source, "results file")  # a missing or broken file: its one-line error
        shutil.copyfile(source, shipped.RESULTS_SHIPPED / source.name)
        shown = f"../results/{source.name}"
        records[shown] = _file_record(shipped.RESULTS_SHIPPED / source.name, shown)
        log(f"shipped {source}: {records[shown]['bytes']:,} bytes")
    data["results"] = [records[k] for k in sorted(records)]
    write_json(shipped.manifest_path(), data)


def check_lines():
    """Every shipped file checked against the manifest (a one-line error at the first that
    does not match); a line for each model."""
    data, lines, total = manifest(), [], 0
    for name, entry in data["models"].items():
        records = [entry["file"], *entry.get("results", [])]
        for record in records:
            checked(shipped.MODELS_DIR / record["path"], record)
        total += sum(r["bytes"] for r in records)
        lines.append(f"{name}: {len(records)} file{'s' * (len(records) > 1)} as the manifest says "
                     f"({sum(r['bytes'] for r in records):,} bytes)")
    for record in data.get("results", []):
        checked(shipped.MODELS_DIR / record["path"], record)
        total += record["bytes"]
    if data.get("results"):
        lines.append(f"{len(data['results'])} more results files as the manifest says")
    lines.append(f"{len(data['models'])} models, {total / 1e6:.2f} MB in all: every sha256 matches")
    return lines


def figure_values(entry):
    """{figure: value} of a manifest record, read from the shipped results it points to."""
    values = {}
    for figure, where in entry.get("figures", {}).items():
        path = shipped.RESULTS_SHIPPED / where["file"]
        values[figure] = _walk(read_json(path, "shipped results file"), where["keys"]) if path.exists() else None
    return values


def listing_lines():
    """What `flipnet models` prints: every shipped model, its file and its figures."""
    data = manifest()
    if not data["models"]:
        return [f"no model ships in this copy ({shown(shipped.manifest_path())} is missing)"]
    aliases = {n: a for a, n in ALIASES.items()}
    lines = []
    for name, entry in data["models"].items():
        also = f" (also '{aliases[name]}')" if name in aliases else ""
        trained = entry.get("trained", {})
        recipe = f"recipe {entry['recipe']}, seed {entry['seed']}, " if "recipe" in entry else ""
        path = shown(os.path.normpath(shipped.MODELS_DIR / entry['file']['path']))
        lines.append(f"{name}{also}: {path}, {entry['file']['bytes']:,} bytes; {recipe}trained by flipnet "
                     f"{trained.get('flipnet')} at {str(trained.get('commit'))[:12]} on {trained.get('cpu')}")
        figures = figure_values(entry)
        if figures:
            lines.append("    " + ", ".join(f"{f} {'-' if v is None else f'{v:.2%}'}" for f, v in figures.items()))
        lines.append(f"    retrain: {retrain_command(name, entry)}")
    return lines


def retrain_command(name, entry):
    """The command that trains a shipped model or agent again: its make target in a
    checkout (which also checks the result against the shipped file), else the flipnet
    commands an installed copy has."""
    if checkout() is not None:
        return entry["retrain"]
    if name in INSTALLED_AGENTS:
        return INSTALLED_AGENTS[name]
    stages = RECIPES[name].trained_by if name in RECIPES else (entry["recipe"],)
    return ", then ".join(f"flipnet train {recipe}" for recipe in stages)


def retrain_check(name, results_dir=RESULTS_DIR, data_dir=None):
    """One line: whether the file training wrote (results_dir/NAME.npz packed, or an agent's
    file) is the shipped one bit for bit, by the manifest's sha256, or is so in every array
    and setting with only its recorded wall time apart; where not, its figures beside the
    shipped ones (the slice read from data_dir where given, else where its run read it)."""
    name, data = canonical(name), manifest()
    if name not in data["models"]:
        raise FlipnetError(f"{name} does not ship, so there is nothing to compare it with: "
                           f"{', '.join(data['models']) or 'no model ships in this copy'}")
    entry = data["models"][name]
    trained = AGENT_FILES[name][0] if name in AGENT_FILES else Path(results_dir) / f"{name}.npz"
    if not trained.is_file():
        raise FlipnetError(f"{trained} not found: train it first ({retrain_command(name, entry)})")
    if name in AGENT_FILES:
        if _same_agent(name, trained, entry):
            return f"{trained} equals the shipped {name} bit for bit"
        return f"{trained} differs from the shipped {name} (see the training's figures above)"
    loaded = load_npz(trained)  # a broken file: its one-line error
    digest = hashlib.sha256(packed_bytes(trained)).hexdigest()
    if digest == entry["file"]["sha256"]:
        return f"{trained} equals the shipped {name} bit for bit (sha256 {digest[:16]})"
    times = _wall_times_apart(loaded, load_npz(shipped_file(name)))
    if times is not None:
        return (f"{trained} equals the shipped {name} bit for bit in every array and setting"
                + (f"; only the wall time it records differs ({times})" if times else ""))
    new_errors, positions = slice_errors(trained, data_dir)
    run = read_json(Path(results_dir) / f"{name}.json", "results file")
    shipped_test = figure_values(entry).get("test error")
    return (f"{trained} differs from the shipped {name}: test error {run['test_error']:.2%} "
            f"(shipped {'-' if shipped_test is None else f'{shipped_test:.2%}'}), {new_errors} errors "
            f"on the {positions} test positions of the slice (shipped {entry['slice']['errors']})")


def _wall_times_apart(trained, shipped):
    """Where two loaded model files, (arrays, meta) each, differ in nothing but WALL_TIMES:
    those times, side by side ("pipeline_seconds 16,758 here, 16,613 shipped"; empty where
    the files differ only in how they were packed); else None."""
    (a, meta_a), (b, meta_b) = trained, shipped

    def settings(meta):
        return {k: v for k, v in meta.items() if k not in WALL_TIMES}

    if a.keys() != b.keys() or any(a[k].dtype != b[k].dtype or not np.array_equal(a[k], b[k]) for k in a):
        return None
    if settings(meta_a) != settings(meta_b):
        return None
    return "; ".join(f"{k} {_seconds(meta_a.get(k))} here, {_seconds(meta_b.get(k))} shipped"
                     for k in WALL_TIMES if meta_a.get(k) != meta_b.get(k))


def _seconds(value):
    return "-" if value is None else f"{value:,.0f}"
