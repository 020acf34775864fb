"""Recipes as data, the paper's protocols as the original scripts ran them, and
`paper_protocol` derived from what a run changed."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import write_tiny_dataset

from flipnet.base.errors import FlipnetError
from flipnet.nn.core.metrics import evaluated
from flipnet.nn.paper.train import train
from flipnet.nn.training import recipes
from flipnet.nn.training.config import FIELDS, TrainConfig
from flipnet.nn.training.loop import Run
from flipnet.nn.training.recipes import RECIPES, config_for, paper_protocol


def test_every_recipe_builds_a_valid_config():
    for name, recipe in RECIPES.items():
        config = config_for(name)
        assert config.recipe == name and config.name == name
        assert set(recipe.settings) <= set(FIELDS)
        assert config.data.endswith(".h5")


def test_the_paper_protocols_are_the_scripts():
    one = config_for("conv1d")
    assert (one.lr, one.batch, one.epochs, one.shuffle, one.bucket) == (0.01, 20, 1000, "once", 0)
    assert (one.validate_every, one.improvement_threshold, one.eval_batch) == (0, 1.0, 20)
    two = config_for("mlp2d")
    assert (two.lr, two.batch, two.epochs, two.shuffle, two.bucket) == (0.02, 50, 200, "once", 1)
    assert (two.validate_every, two.improvement_threshold, two.eval_batch) == (0, 0.99, 50)
    assert config_for("logreg2d").improvement_threshold == 0.99
    # Theano computed with subnormal floats; a paper protocol must too (base/denormals.py)
    assert not any(config_for(name).flush_denormals for name, r in RECIPES.items() if r.paper)
    assert not paper_protocol(config_for("conv1d", flush_denormals=True))


@pytest.mark.parametrize("recipe, overrides, expected", [
    ("conv1d", {}, True),
    ("mlp2d", {}, True),
    ("conv1d", {"seed": 3, "name": "conv1d-seed3", "results_dir": "elsewhere"}, True),
    ("conv1d", {"augment": "symmetry", "tta": True}, False),  # true on main before: the bug
    ("mlp2d", {"weight_decay": 0.0002}, False),
    ("mlp2d", {"epochs": 400}, False),
    ("mlp2d", {"improvement_threshold": 1.0}, False),
    ("mlp2d", {"eval_batch": 0}, False),
    ("mlp2d", {"validate_every": 5000}, False),
    ("mlp2d", {"data": "data/other.h5"}, False),
    ("mlp2d-long", {}, False),
    ("conv1d-fast", {}, False),
    ("xornet2d", {}, False),
])
def test_paper_protocol_is_derived_from_the_changes(recipe, overrides, expected):
    assert paper_protocol(config_for(recipe, **overrides)) is expected


def test_every_setting_changed_counts_except_seed_and_place():
    """paper_protocol is not a hand-written list: change any one field of a paper recipe
    (other than the seed and the run's name and directory) and it turns false."""
    for name, f in FIELDS.items():
        if name in ("model", "recipe") or name in recipes.NOT_PROTOCOL:
            continue
        base = getattr(config_for("mlp2d"), name)
        other = {bool: lambda: not base, int: lambda: base + 1, float: lambda: base / 2 if base else 0.5,
                 str: lambda: base + "x"}[type(base)]()
        config = config_for("mlp2d")
        setattr(config, name, other)
        assert not paper_protocol(config), name


def test_unknown_recipe_and_bad_settings():
    with pytest.raises(FlipnetError, match="unknown recipe 'nope'.*--list"):
        config_for("nope")
    with pytest.raises(FlipnetError, match="--improvement-threshold must be in \\(0, 1\\]"):
        config_for("mlp2d", improvement_threshold=1.5)
    with pytest.raises(FlipnetError, match="--out must be a plain run name"):
        config_for("mlp2d", name="../../etc/evil")
    with pytest.raises(FlipnetError, match="--momentum must be in \\[0, 1\\)"):
        config_for("mlp2d", momentum=2.0)
    with pytest.raises(FlipnetError, match="--seed must be at least 0"):
        config_for("mlp2d", seed=-1)


def test_the_threshold_keeps_the_best_through_small_improvements():
    """The 2D script's rule: a validation error replaces the best only below 0.99 x it."""
    params = {"w": np.zeros(1)}

    class Network:
        def get_values(self):
            return dict(params)

    curve = [0.50, 0.499, 0.45, 0.4460, 0.30, 0.2980, 0.2975]  # 0.99 x 0.30 = 0.297
    for threshold, best in ((0.99, (5, 0.30)), (1.0, (7, 0.2975))):
        run = Run(0, [], 0.0, float("inf"), {}, None, 0.0)
        for error in curve:
            run.check(Network(), error, 1.0, threshold)
            run.record(0.0, error, 0.0)
        assert (run.best_epoch, run.best_valid) == best


@pytest.mark.slow
def test_a_training_run_applies_the_threshold(tmp_path, monkeypatch):
    """Through the real loop: scripted validation errors, the best model is the epoch the
    0.99 rule chooses, not the lowest error."""
    data = tmp_path / "flip8.h5"
    write_tiny_dataset(data)
    script = iter([0.40, 0.30, 0.2990, 0.2985, 0.20, 0.1995])
    real = __import__("flipnet.nn.paper.train", fromlist=["error_rate"]).error_rate
    calls = {"n": 0}

    def scripted(predicted, labels):
        calls["n"] += 1
        return next(script) if calls["n"] <= 6 else real(predicted, labels)

    monkeypatch.setattr("flipnet.nn.paper.train.error_rate", scripted)
    results = train(config_for("conv1d", data=str(data), epochs=6, batch=10, eval_batch=0,
                               improvement_threshold=0.99, results_dir=str(tmp_path / "r")),
                    log=lambda *_: None)
    assert [c["valid_error"] for c in results["curve"]] == [0.40, 0.30, 0.2990, 0.2985, 0.20, 0.1995]
    assert results["best_epoch"] == 5 and results["valid_error"] == 0.20
    assert results["config"]["improvement_threshold"] == 0.99 and results["config"]["validate_every"] == 0


def test_errors_over_whole_minibatches_drop_the_remainder():
    states, labels = np.arange(107), np.arange(107) % 3
    kept_states, kept_labels = evaluated((states, labels), 20)
    assert len(kept_states) == 100 and np.array_equal(kept_states, states[:100])
    assert np.array_equal(kept_labels, labels[:100])
    assert len(evaluated((states, labels), 0)[0]) == 107


@pytest.mark.slow
def test_a_run_measures_on_whole_minibatches(tmp_path):
    from flipnet.datasets import read_split
    from flipnet.nn.core.compile import Predictor
    from flipnet.nn.core.kinds import read_model

    data = tmp_path / "flip8.h5"
    write_tiny_dataset(data)
    results = train(config_for("conv1d", data=str(data), epochs=2, batch=10, eval_batch=5,
                               results_dir=str(tmp_path / "r")), log=lambda *_: None)
    split = read_split(data, 0)
    n_test, n_valid = len(split.test[0]), len(split.valid[0])
    assert results["evaluated"] == {"valid": n_valid // 5 * 5, "test": n_test // 5 * 5}
    assert n_test % 5  # the tiny split leaves a remainder, so the check means something
    model, _ = read_model(tmp_path / "r" / "conv1d.npz")
    kept = n_test // 5 * 5
    predicted = Predictor(model)(split.test[0][:kept])
    assert results["test_error"] == float(np.mean(predicted != split.test[1][:kept]))
    on_disk = json.loads((tmp_path / "r" / "conv1d.json").read_text())
    assert on_disk["recipe"] == "conv1d" and on_disk["paper_protocol"] is False
    assert set(on_disk["overrides"]) == {"data", "epochs", "batch", "eval_batch", "results_dir"}


def test_train_list_prints_one_line_per_recipe(capsys):
    from flipnet.cli import main

    assert main(["train", "--list"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(RECIPES)
    assert all(line.split()[0] in RECIPES for line in lines)
    assert sum("[paper]" in line for line in lines) == sum(r.paper for r in RECIPES.values())


def test_train_config_defaults_are_neutral():
    config = TrainConfig()
    assert (config.improvement_threshold, config.eval_batch, config.validate_every) == (1.0, 0, 0)


def _make_rules(text):
    """{target: (prerequisites, recipe lines)} of a Makefile's plain rules."""
    rules = {}
    for match in re.finditer(r"^([\w-]+):([^=\n]*)\n((?:\t.*\n)*)", text, re.M):
        prerequisites = match.group(2).split("##")[0].split()
        rules[match.group(1)] = (prerequisites, match.group(3))
    return rules


def test_the_makefile_trains_and_checks_what_each_recipe_record_says():
    """A recipe's record names its make target, the recipes that target trains in turn and
    whether it checks the file against the shipped one: the Makefile holds to each, every
    `$(RETRAINED)` of the Makefile is a record's, and every shipped model is a model of
    record whose retrain command is its target."""
    from flipnet.base.shipped import manifest
    from flipnet.nn.evaluation.shipping import AGENT_FILES, RETRAIN

    rules = _make_rules((Path(__file__).parent.parent / "Makefile").read_text())
    for name, recipe in RECIPES.items():
        if not recipe.target:
            continue
        assert recipe.target in rules, f"{name}'s record names `make {recipe.target}`, which the Makefile lacks"
        body = rules[recipe.target][1]
        assert re.findall(r"\$\(TRAIN\) ([\w-]+)", body) == list(recipe.trained_by), recipe.target
        assert re.findall(r"\$\(RETRAINED\) ([\w-]+)", body) == ([name] if recipe.checked else []), recipe.target
    checked = {(target, found) for target, (_, body) in rules.items()
               for found in re.findall(r"\$\(RETRAINED\) ([\w-]+)", body) if found not in AGENT_FILES}
    assert checked == {(r.target, n) for n, r in RECIPES.items() if r.checked}
    assert RETRAIN == {n: f"make {r.target}" for n, r in RECIPES.items() if r.ships}
    models = {name: m for name, m in manifest()["models"].items() if m.get("recipe")}  # not the agents
    assert len(models) >= 8 and all(RECIPES[m["recipe"]].ships and RECIPES[m["recipe"]].checked
                                    for m in models.values())


def test_the_make_target_a_recipe_lists_trains_that_recipe(capsys):
    """Each "(make TARGET)" of `flipnet train --list` is a Makefile target that runs the
    recipe, itself or as one of its stages."""
    from flipnet.cli import main

    rules = _make_rules((Path(__file__).parent.parent / "Makefile").read_text())
    assert main(["train", "--list"]) == 0
    named = 0
    for line in capsys.readouterr().out.splitlines():
        name = line.split()[0]
        for target in re.findall(r"\(make ([\w-]+)\)", line):
            assert name in _trained_by(rules, target), f"`make {target}` does not train {name}"
            named += 1
    assert named == len(RECIPES)


def _trained_by(rules, target):
    """The recipes `make TARGET` trains, in order: its prerequisites' first, then its own."""
    prerequisites, body = rules.get(target, ((), ""))
    order = [name for p in prerequisites for name in _trained_by(rules, p)]
    return order + re.findall(r"\$\(TRAIN\) ([\w-]+)", body)


def test_a_recipe_that_starts_from_another_is_trained_after_it():
    """A recipe's --init is another recipe's result, and every make target that trains it
    trains that one first (`make train-2d-best` chains three runs in one target)."""
    rules = _make_rules((Path(__file__).parent.parent / "Makefile").read_text())
    chained = 0
    for target in rules:
        order = _trained_by(rules, target)
        for k, name in enumerate(order):
            init = RECIPES[name].settings.get("init") if name in RECIPES else None
            if init:
                start = Path(init).stem
                assert start in RECIPES, f"{name} starts from {init}, which no recipe makes"
                assert start in order[:k], f"`make {target}` trains {name} before {start}, its start"
                chained += 1
    assert chained >= 5
