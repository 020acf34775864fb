import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from flipnet.base.errors import FlipnetError
from flipnet.cli import main
from flipnet.report import compare

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("rule, ours, paper, expected", [
    ("at_most", 0.0059, 0.006, True), ("at_most", 0.0061, 0.006, False),
    ("at_least", 0.95, 0.95, True), ("at_least", 0.94, 0.95, False),
    ("above", 0.51, 0.5, True), ("above", 0.5, 0.5, False),
    ("equal", 55664, 55664, True), ("equal", 55663, 55664, False),
])
def test_verdict_rules(rule, ours, paper, expected):
    result = compare.verdict(rule, ours, paper)
    assert result == (compare.REPRODUCED if expected else compare.NOT_REPRODUCED)


def test_about_and_no_better_than_use_the_tolerance():
    assert compare.verdict("about", 0.79, 0.70, tolerance=0.1) == compare.REPRODUCED
    assert compare.verdict("about", 0.81, 0.70, tolerance=0.1) == compare.NOT_REPRODUCED
    # the conv net is "no meaningful improvement" unless it beats the MLP by more than 1 point
    assert compare.verdict("no_better_than", 0.095, baseline=0.10, tolerance=0.01) == compare.REPRODUCED
    assert compare.verdict("no_better_than", 0.085, baseline=0.10, tolerance=0.01) == compare.NOT_REPRODUCED
    with pytest.raises(FlipnetError, match="unknown comparison rule 'nearly'"):
        compare.verdict("nearly", 1, 1)


def test_read_field_walks_keys_with_dots_and_spaces(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"flip 5x5 (2^25 states)": {"flipnet_seconds": 0.9},
                                "win_rate": {"es": {"random": 0.99}}, "diff": [3, 5]}))
    assert compare.read_field(path, "flip 5x5 (2^25 states).flipnet_seconds") == 0.9
    assert compare.read_field(path, "win_rate.es.random") == 0.99
    assert compare.read_field(path, "diff", count=True) == 2
    with pytest.raises(FlipnetError, match="no field 'win_rate.es.optimal'"):
        compare.read_field(path, "win_rate.es.optimal")


def claim(**overrides):
    base = {"id": "mlp2d", "claim": "2D MLP", "paper": 0.10, "paper_text": "below 10%",
            "rule": "at_most", "format": "percent", "command": "make train-2d",
            "measure": {"file": "mlp2d.json", "field": "test_error"}}
    return {**base, **overrides}


def test_missing_result_is_reported_with_its_command(tmp_path):
    [row] = compare.compare([claim()], tmp_path)
    assert row.ours is None and row.verdict == compare.MISSING
    assert "mlp2d.json missing: run `make train-2d`" in row.missing
    assert "| 2D MLP | below 10% | - | - | not run yet | - |" in compare.markdown([row])


SEEDS = {"runs": "mlp2d-seed{seed}.json", "seeds": [1, 2, 3, 4], "command": "make compare-seeds-mlp2d"}


def test_the_verdict_rule_over_seeds_on_made_up_sets():
    """Every run holds the claim: reproduced; none: not reproduced; some: mixed, counted."""
    rule = compare.verdict_over_seeds
    assert rule("at_most", [0.09, 0.095, 0.099], 0.10) == compare.REPRODUCED
    assert rule("at_most", [0.101, 0.12], 0.10) == compare.NOT_REPRODUCED
    assert rule("at_most", [0.09, 0.11, 0.10, 0.13, 0.08], 0.10) == "mixed (3 of 5 runs)"
    assert rule("above", [0.6, 0.5], 0.5) == "mixed (1 of 2 runs)"  # 50% is not above 50%
    assert rule("about", [0.65, 0.79], 0.7, tolerance=0.1) == compare.REPRODUCED
    assert rule("no_better_than", [0.095, 0.085], baseline=0.10, tolerance=0.01) == "mixed (1 of 2 runs)"
    assert rule("at_least", [0.96], 0.95) == compare.REPRODUCED  # one run: the plain rule


def test_a_row_shows_its_runs_and_takes_the_verdict_of_all_of_them(tmp_path):
    (tmp_path / "mlp2d.json").write_text(json.dumps({"test_error": 0.0950, "baseline_test_error": 0.728,
                                                     "seed": 2016}))
    one = claim(seeds=SEEDS, majority={"file": "mlp2d.json"}, why="the script's protocol")
    [row] = compare.compare([one], tmp_path)  # the seed-2016 run alone: judged, and said so
    assert row.verdict == compare.REPRODUCED
    table = compare.markdown([row])
    assert ("| 2D MLP | below 10% | 9.50%; 1 of 5 runs | 72.80% "
            "| reproduced | the script's protocol |") in table
    assert "- seeds to run (`make compare-seeds-ID`): mlp2d 1, 2, 3, 4\n" in table
    for seed, error in ((1, 0.09), (2, 0.11), (3, 0.10), (4, 0.105)):
        (tmp_path / f"mlp2d-seed{seed}.json").write_text(json.dumps({"test_error": error}))
    [row] = compare.compare([one], tmp_path)
    assert row.spread["n"] == 5 and row.spread["median"] == 0.10 and row.spread["max"] == 0.11
    assert row.verdict == "mixed (3 of 5 runs)"
    assert ("median 10.00% [9.00..11.00], 5 runs; seed 2016: 9.50% | 72.80% "
            "| mixed (3 of 5 runs) |") in compare.markdown([row])
    (tmp_path / "mlp2d-seed4.json").unlink()
    assert "[9.00..11.00], 4 of 5 runs; seed 2016" in compare.markdown(compare.compare([one], tmp_path))
    other = claim(seeds={**SEEDS, "command": "make compare-seeds-best"}, majority={"file": "mlp2d.json"})
    assert "- seeds to run (`make compare-seeds-ID`): mlp2d 4 (`make compare-seeds-best`)\n" in \
        compare.markdown(compare.compare([other], tmp_path))


def test_a_target_of_flipnets_own_keeps_mixed_as_mixed(tmp_path):
    target = claim(paper=0.02, verdicts=["target met", "target not met"], seeds=SEEDS)
    (tmp_path / "mlp2d.json").write_text(json.dumps({"test_error": 0.019}))
    (tmp_path / "mlp2d-seed1.json").write_text(json.dumps({"test_error": 0.018}))
    assert compare.compare([target], tmp_path)[0].verdict == "target met"
    (tmp_path / "mlp2d-seed2.json").write_text(json.dumps({"test_error": 0.021}))
    assert compare.compare([target], tmp_path)[0].verdict == "mixed (2 of 3 runs)"


def test_a_counted_figure_is_counted_in_every_run(tmp_path):
    """A figure that is the length of a list (the NIM perceptron's missed piles) is counted
    in the seed runs too, and a median of counts is shown as a count."""
    for name, missed in (("nim", []), ("nim-seed1", [47, 79]), ("nim-seed2", [47])):
        (tmp_path / f"{name}.json").write_text(json.dumps({"diff_winning": missed, "seed": 52, "epochs": 4000}))
    counted = claim(id="nim", paper=0, paper_text="none", rule="equal", format="count",
                    measure={"file": "nim.json", "field": "diff_winning", "count": True},
                    seeds={"runs": "nim-seed{seed}.json", "seeds": [1, 2], "command": "make compare-seeds-nim"})
    [row] = compare.compare([counted], tmp_path)
    assert row.verdict == "mixed (1 of 3 runs)"
    assert "| median 1 [0..2], 3 runs; seed 52: 0 |" in compare.markdown([row])


def test_every_measured_row_names_the_runs_its_rule_asks_for():
    """5 runs for a recipe under 10 minutes on one core, 3 for mlp2d (under an hour), 2 for
    the best model's pipeline, 5 arena seeds; each with the make target that runs them."""
    claims = {c["id"]: c for c in compare.load_claims(ROOT / "data" / "paper.json")}
    wanted = {"mlp2d": 3, "mlp2d-best": 2}
    for name, c in claims.items():
        if "computed" in c["measure"] or name == "dp-time":
            continue  # exact facts and a timing
        assert len(c["seeds"]["seeds"]) + 1 == wanted.get(name, 5), name
        target = c["seeds"]["command"].split()[-1]  # -B: every command, whatever results/ holds
        dry = subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stderr
        swept = [range(int(a), int(b) + 1) for a, b in re.findall(r"--seeds (\d+)-(\d+)", dry.stdout)]
        for seed in c["seeds"]["seeds"]:  # each run of the row, under its seed: a command, or a sweep's task
            alone = f"--seed {seed} " in dry.stdout and c["seeds"]["runs"].format(seed=seed)[:-5] in dry.stdout
            in_sweep = any(seed in seeds for seeds in swept) and c["seeds"]["runs"][:-5] in dry.stdout
            assert alone or in_sweep, (name, seed)


def test_a_speed_is_faster_or_slower_with_its_ratio():
    assert compare.verdict("faster", 0.83, 11.0) == "faster (13.3x)"
    assert compare.verdict("faster", 22.0, 11.0) == "slower (2.0x)"
    assert compare.verdict_over_seeds("faster", [0.83], 11.0) == "faster (13.3x)"  # a row's verdict


def test_how_chosen_is_written_from_the_run_and_shows_a_computed_figure(tmp_path, monkeypatch):
    from flipnet.report.chosen import how_chosen, run_of
    from flipnet.report.sources import ResultFiles

    run = {"recipe": "mlp2d-fast", "config": {}, "paper_protocol": False, "overrides": {"seed": 3},
           "seed": 3, "best_epoch": 45, "epochs_run": 50}
    (tmp_path / "mlp2d-fast-seed3.json").write_text(json.dumps(run))
    files = ResultFiles(tmp_path)
    one = claim(measure={"file": "mlp2d-fast-seed3.json", "field": "test_error"}, why="kept on validation")
    assert how_chosen(one, run_of(one, files)) == \
        "recipe mlp2d-fast, seed 3, epoch 45/50 by validation; kept on validation"
    run.update(paper_protocol=True, best_epoch=12, overrides={"lr": 0.1})  # the cell follows the run
    (tmp_path / "mlp2d-fast-seed3.json").write_text(json.dumps(run))
    assert how_chosen(one, run_of(one, files)).startswith("the paper's protocol (lr changed), seed 3, epoch 12/50 by")
    evaluated = {**one, "measure": {"file": "eval.json", "field": "parts.test.error"}, "run": "mlp2d-fast-seed3.json"}
    assert how_chosen(evaluated, run_of(evaluated, files)).startswith("the paper's protocol")  # its training run
    monkeypatch.setitem(compare.COMPUTED, "es_hand_set_vs_random", lambda: 0.99)
    arena = claim(measure={"file": "arena.json", "field": "win_rate.es.random"}, why="hand-set: {es_hand_set_vs_random}")
    (tmp_path / "arena.json").write_text(json.dumps({"win_rate": {}, "matches": 1000, "seed": 0}))
    assert compare._selection(arena, run_of(arena, files)) == \
        "1,000 matches, alternating who starts, seed 0; hand-set: 99.00%"
    (tmp_path / "arena.json").write_text(json.dumps({"win_rate": {}, "matches": 100, "starts": "first", "seed": 2}))
    assert compare._selection(arena, run_of(arena, files)) == "100 matches moving first, seed 2; hand-set: 99.00%"
    computed = claim(measure={"computed": "gridnim4_winning"})
    assert compare._selection(computed, run_of(computed, files)) == "computed exactly on the spot"
    assert compare._selection(claim(why="a reason"), None) == "a reason"  # not run yet


def test_a_claims_other_protocol_is_shown_with_its_median_and_range(tmp_path):
    """`also`: the same figure under another protocol, over the claim's runs (the seeds
    present), beside how the shown one was chosen; a file not made yet is left out."""
    from flipnet.report.sources import ResultFiles

    for name, value in {"arena.json": 0.7, "arena-seed1.json": 0.5, "arena-seed2.json": 0.9}.items():
        (tmp_path / name).write_text(json.dumps({"win_rate": {"a": {"b": value}}, "matches": 10, "seed": 0}))
    also = {"file": "arena.json", "runs": "arena-seed{seed}.json", "field": "win_rate.a.b", "label": "1,000 alternating"}
    one = claim(format="percent", also=[also, {**also, "file": "missing.json", "label": "gone"}],
                seeds={"runs": "x{seed}.json", "seeds": [1, 2, 3], "command": "c"})
    assert compare.also_text(one, ResultFiles(tmp_path)) == "1,000 alternating 70.00% [50.00..90.00]"
    alone = claim(format="percent", also=[{k: v for k, v in also.items() if k != "runs"}])
    assert compare.also_text(alone, ResultFiles(tmp_path)) == "1,000 alternating 70.00%"


def test_hand_set_es_weights_play_the_misere_strategy():
    assert compare.COMPUTED["es_hand_set_vs_random"]() >= 0.99


def test_a_comparison_needs_both_files(tmp_path):
    conv = claim(rule="no_better_than", tolerance=0.01, measure={"file": "conv.json", "field": "test_error"},
                 versus={"file": "mlp2d.json", "field": "test_error"})
    (tmp_path / "conv.json").write_text(json.dumps({"test_error": 0.08}))
    [row] = compare.compare([conv], tmp_path)
    assert row.verdict == compare.MISSING and "mlp2d.json missing (the run it is set against)" in row.missing
    (tmp_path / "mlp2d.json").write_text(json.dumps({"test_error": 0.10}))
    [row] = compare.compare([conv], tmp_path)
    assert row.verdict == compare.NOT_REPRODUCED  # 2 points better: a meaningful improvement


def test_the_paper_claims_file_is_complete():
    claims = compare.load_claims(ROOT / "data" / "paper.json")
    ids = {c["id"] for c in claims}
    assert {"conv1d", "fc1d", "mlp2d", "logreg2d", "convmlp2d", "gridnim-winning", "gridnim-losing",
            "gridnim-full", "dp-time", "nim-perceptron", "template-optimal-vs-random", "optimal-vs-random",
            "es-vs-random", "feature-es-vs-random"} <= ids
    for c in claims:
        assert c["source"] and c["rule"] in compare.RULES and "selection" not in c  # generated, not typed
        assert not re.search(r"\d[.,]?\d*%", c.get("why", "")), c["id"]  # no figure of flipnet's


def test_gridnim_facts_are_computed_exactly():
    assert compare.COMPUTED["gridnim4_winning"]() + compare.COMPUTED["gridnim4_losing"]() == 1 << 16
    assert compare.COMPUTED["gridnim4_full_board_wins"]() == 0


def test_bad_claims_file_is_one_line_error(tmp_path, capsys):
    bad = tmp_path / "paper.json"
    bad.write_text(json.dumps({"claims": [{"id": "x", "claim": "y"}]}))
    assert main(["compare", "--claims", str(bad), "--results-dir", str(tmp_path)]) == 2
    assert "claim 1 has no 'rule'" in capsys.readouterr().err
    bad.write_text(json.dumps({"claims": [claim(seeds={"runs": "mlp2d-seed.json", "seeds": [1], "command": "x"})]}))
    assert main(["compare", "--claims", str(bad), "--results-dir", str(tmp_path)]) == 2
    assert "claim 1's seeds need 'runs' (a file name with {seed})" in capsys.readouterr().err


def test_replace_block():
    text = "intro\n<!-- compare:start -->\nold\n<!-- compare:end -->\nrest\n"
    assert compare.replace_block(text, "new\n") == "intro\n<!-- compare:start -->\nnew\n<!-- compare:end -->\nrest\n"
    with pytest.raises(FlipnetError, match="no <!-- compare:start -->"):
        compare.replace_block("no markers", "new")


def test_compare_command_writes_table_and_plots(tmp_path, capsys):
    run = {"config": {"data": "data/flip2d.h5"}, "test_error": 0.2, "curve": [
        {"epoch": 1, "valid_error": 0.5}, {"epoch": 2, "valid_error": 0.3}], "confusion": [[5, 1], [2, 7]]}
    results = tmp_path / "results"
    results.mkdir()
    (results / "mlp2d.json").write_text(json.dumps(run))
    readme = tmp_path / "README.md"
    readme.write_text("x\n<!-- compare:start -->\n<!-- compare:end -->\n")
    out, figures = tmp_path / "compare.md", tmp_path / "figures"
    assert main(["compare", "--claims", str(ROOT / "data" / "paper.json"), "--results-dir", str(results),
                 "--data-dir", str(tmp_path), "--out", str(out), "--figures", str(figures),
                 "--readme", str(readme), "--no-shipped"]) == 0
    assert ("| 2D MLP (25, 300, 60, 10) on 5x5: test error | slightly below 10% | 20.00%; 1 of 3 runs "
            "| - | not reproduced |") in out.read_text()
    assert out.read_text() in readme.read_text()
    for name in ("learning-curves.png", "confusion.png"):
        assert (figures / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (figures / "class-distribution.png").exists()  # no datasets in --data-dir


def test_a_target_of_flipnets_own_gets_its_own_verdict_words(tmp_path):
    target = claim(paper=0.02, verdicts=["target met", "target not met"])
    (tmp_path / "mlp2d.json").write_text(json.dumps({"test_error": 0.019}))
    assert compare.compare([target], tmp_path)[0].verdict == "target met"
    (tmp_path / "mlp2d.json").write_text(json.dumps({"test_error": 0.021}))
    assert compare.compare([target], tmp_path)[0].verdict == "target not met"


def test_beyond_table_reads_each_evaluation_into_its_row(tmp_path):
    from flipnet.base.files import write_json
    from flipnet.report import beyond

    assert beyond.markdown(tmp_path) == ""  # nothing evaluated: no table
    test = {"error": 0.0209, "states": 10, "share_new_shapes": 0.032, "error_known_shapes": 0.0,
            "error_new_shapes": 0.6526}
    write_json(tmp_path / "eval-lookup2d-5x5.json", {"parts": {"test": test}})
    write_json(tmp_path / "eval-featmem2d-7x7-1ply.json", {"parts": {"density 0.5": {"error": 0.041}}})
    write_json(tmp_path / "featmem2d.json", {"valid_error": 0.01, "best_epoch": 28,
                                            "config": {"epochs": 30, "seed": 2016}})
    rows = {line.split(" | ")[0]: line for line in beyond.markdown(tmp_path).splitlines()
            if line.startswith("| `")}
    assert rows["| `lookup2d`"].split(" | ")[1:5] == ["2.09%", "0.00%", "65.26% (3.2%)", "none drawn"]
    assert "no training" in rows["| `lookup2d`"]
    assert rows["| `featmem2d` + 1-ply mex"].split(" | ")[5:7] == ["-", "4.10%"]
    assert rows["| `featmem2d`"].endswith("| seed 2016: epoch 28 of 30 by validation (1.00%) |")
    assert rows["| `featmem2d` + 1-ply mex"].endswith("| the model above |")  # the selection is said once
    assert "| `xormem2d`" not in rows  # nothing evaluated
    write_json(tmp_path / "convmem2d.json", {"valid_error": 0.012, "valid_shape_error": 0.3, "best_epoch": 20,
                                            "config": {"epochs": 24, "seed": 2016}})
    write_json(tmp_path / "eval-convmem2d-5x5-1ply.json", {"lookahead": "hard", "parts": {"test": test}})
    rows = {line.split(" | ")[0]: line for line in beyond.markdown(tmp_path).splitlines()
            if line.startswith("| `")}
    assert rows["| `convmem2d`"].endswith("| seed 2016: epoch 20 of 24 by new validation shapes (30.00%) |")
    assert rows["| `convmem2d` + 1-ply mex of most likely values"].split(" | ")[1] == "2.09%"
    best = f"| `{beyond.BEST}`"
    assert best not in rows and f"Not evaluated here yet (`make beyond`): `xormem2d`, `{beyond.BEST}`." in \
        beyond.markdown(tmp_path)  # no row of dashes: named below the table
    assert not any("deep" in name or "wide" in name or "2d+" in name for name in rows)  # the models of record only
    # a model taught drawn shapes: the headline is the positions holding a shape never drawn,
    # beside them those whose new shapes it all drew (3.2% - 1.54% of the test set)
    write_json(tmp_path / f"eval-{beyond.BEST}-5x5.json", {"parts": {"test": {
        **test, "error_new_shapes": 0.19, "share_new_shapes_not_drawn": 0.0154,
        "error_new_shapes_not_drawn": 0.2122, "error_new_shapes_all_drawn": 0.1694}}})
    rows = {line.split(" | ")[0]: line for line in beyond.markdown(tmp_path).splitlines()
            if line.startswith("| `")}
    assert rows[best].split(" | ")[3:5] == ["21.22% (1.5%)", "16.94% (1.7%)"]
    # a larger board's cell splits by shapes that outgrow the training board, where evaluated so
    write_json(tmp_path / f"eval-{beyond.BEST}-6x6.json", {"parts": {"density 0.5": {
        "error": 0.0596, "share_beyond_training_board": 0.4068, "error_within_training_board": 0.012,
        "error_beyond_training_board": 0.129}}})
    rows = {line.split(" | ")[0]: line for line in beyond.markdown(tmp_path).splitlines()
            if line.startswith("| `")}
    assert rows[best].split(" | ")[5] == "5.96%; 1.20% / 12.90% (40.7%)"
    for line in beyond.markdown(tmp_path).splitlines():  # read in a minute: short cells and lines
        cells = line.strip("|").split(" | ") if line.startswith("|") else []
        assert all(len(cell) <= 120 for cell in cells) and (cells or len(line) <= 200), line


def test_beyond_rows_of_a_model_with_seeds_give_the_median_and_range_of_the_seeds_evaluated(tmp_path):
    from flipnet.base.files import write_json
    from flipnet.report import beyond

    def evaluate(name, error, never_drawn, large_error):
        test = {"error": error, "error_known_shapes": 0.0, "share_new_shapes": 0.03,
                "share_new_shapes_not_drawn": 0.01, "error_new_shapes_not_drawn": never_drawn,
                "error_new_shapes_all_drawn": 0.1}
        for one_ply in ("", "-1ply"):
            write_json(tmp_path / f"eval-{name}-5x5{one_ply}.json", {"parts": {"test": test}})
            for board in beyond.LARGE:
                write_json(tmp_path / f"eval-{name}-{board}{one_ply}.json",
                           {"parts": {"density 0.5": {"error": large_error}}})

    best = beyond.BEST
    write_json(tmp_path / f"{best}.json", {"valid_shape_error": 0.09, "best_epoch": 8,
                                           "config": {"epochs": 8, "seed": 2016}})
    evaluate(best, 0.003, 0.12, 0.06)

    def row():
        return next(line for line in beyond.markdown(tmp_path).splitlines() if line.startswith(f"| `{best}` |"))

    assert row().split(" | ")[1:4] == ["0.30%", "0.00%", "12.00% (1.0%)"]
    assert f"- seeds to run (`make beyond-seeds`): {best} 1" in beyond.markdown(tmp_path)
    write_json(tmp_path / f"eval-{best}-seed1-5x5.json", {"parts": {"test": {"error": 0.5}}})
    assert row().split(" | ")[1] == "0.30%"  # seed 1 not evaluated on every board: not counted yet
    evaluate(f"{best}-seed1", 0.005, 0.10, 0.08)
    cells = row().split(" | ")
    assert cells[1:4] == ["0.40% [0.30..0.50]", "0.00%", "11.00% [10.00..12.00] (1.0%)"]
    assert cells[5] == "7.00% [6.00..8.00]"
    assert cells[-1] == "seed 2016: epoch 8 of 8 by new validation shapes (9.00%); median of 2 seeds |"
    assert "seeds to run" not in beyond.markdown(tmp_path)
    assert "With seeds: medians over the seeds, [the range]" in beyond.markdown(tmp_path)


def test_every_how_chosen_cell_of_the_claims_is_short():
    from flipnet.base import shipped
    from flipnet.report.chosen import run_of
    from flipnet.report.sources import ResultFiles

    files = ResultFiles(ROOT / "results", shipped.RESULTS_SHIPPED)
    for claim in compare.load_claims(ROOT / "data" / "paper.json"):
        assert len(compare._selection(claim, run_of(claim, files))) <= 120, claim["id"]


def test_class_balance_reads_the_tables_and_passes_over_a_sample(tmp_path):
    from flipnet.datasets import DATASETS, sampled
    from flipnet.report.compare import class_counts

    spec = DATASETS["flip6x6"]
    attrs = {"format": sampled.FORMAT, "rows": 6, "cols": 6, "densities": [0.5]}
    sampled.write(spec.path(tmp_path), sampled.Sample(np.array([3], np.uint64), np.array([1], np.uint8),
                                                      np.array([0.5], np.float32), attrs))
    assert class_counts(tmp_path) == {}  # a sample is not every state: no class balance from it


def test_the_findings_figures_are_drawn_from_their_results(tmp_path):
    """The by-size records of the best model and the evaluations alone and with one ply
    become two PNGs; without them, neither is drawn."""
    from flipnet.base.files import write_json
    from flipnet.report import beyond, plots

    assert plots.write_all({}, {}, tmp_path / "figures", tmp_path, beyond.BEST) == []
    sizes = [{"cells": c, "shapes": 5, "table_shapes": 0, "network_error": 0.1 * i, "size_guess_error": 0.6,
              "fitted_reference_error": 0.5, "size_guess": 1} for i, c in enumerate((10, 20, 26))]
    write_json(tmp_path / f"bysize-beyond-{beyond.BEST}-6x6.json",
               {"run": beyond.BEST, "density": 0.5, "shapes": 15, "sizes": sizes})
    for suffix, error in (("", 0.3), ("-1ply", 0.1)):
        write_json(tmp_path / f"eval-lookup2d-5x5{suffix}.json", {"parts": {"test": {"error_new_shapes": error}}})
        write_json(tmp_path / f"eval-lookup2d-7x7{suffix}.json", {"parts": {"density 0.5": {"error": error}}})
    records, rows = plots.findings_inputs(tmp_path, beyond.BEST)
    assert list(records) == ["6x6"] and rows == [("lookup2d", "5x5 new shapes", 0.3, 0.1),
                                                 ("lookup2d", "7x7", 0.3, 0.1)]
    written = plots.write_all({}, {}, tmp_path / "figures", tmp_path, beyond.BEST)
    assert [p.name for p in written] == ["error-by-size.png", "one-ply.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


@pytest.mark.slow
def test_the_readme_blocks_are_what_make_readme_writes_from_the_shipped_results(tmp_path, monkeypatch):
    """`make readme` on a fresh clone (no results/ of its own) writes the README as it is:
    every figure of its tables comes from a results file that ships."""
    import shutil

    from flipnet.base import shipped

    monkeypatch.chdir(tmp_path)  # a fresh clone's relative results/, which does not exist
    readme = tmp_path / "README.md"
    shutil.copyfile(ROOT / "README.md", readme)
    compare.run(ROOT / "data" / "paper.json", "results", tmp_path, tmp_path / "compare.md", tmp_path / "figures",
                readme, shipped.RESULTS_SHIPPED)
    assert readme.read_text() == (ROOT / "README.md").read_text()


def test_the_figures_plot_the_runs_of_record_not_their_seeds(tmp_path):
    run = {"test_error": 0.2, "curve": [{"epoch": 1, "valid_error": 0.5}], "confusion": [[5, 1], [2, 7]]}
    for name in ("mlp2d", "mlp2d-seed1", "mlp2d-seed12", "xormem2d-seedless"):
        (tmp_path / f"{name}.json").write_text(json.dumps(run))
    assert sorted(compare.training_runs(tmp_path)) == ["mlp2d", "xormem2d-seedless"]
