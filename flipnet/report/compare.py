"""The paper's claims (data/paper.json) beside flipnet's measured figures.

Each claim names where flipnet's figure comes from: a field of a results/*.json file
written by a make target, or an exact fact computed here. A missing file is reported as
missing, with the command that would produce it; nothing is guessed. Every row shows the
no-learning baseline beside the figure (the majority-class guess on the same test set,
which each training run records) and says how the figure's configuration was chosen.
Where a claim names repeated runs (`seeds`), the row gives the median and range over the
measured run and those runs, and the verdict comes from all of them by one rule
(`verdict_over_seeds`): reproduced when the claim's rule holds for every run, not
reproduced when it holds for none, mixed (k of n) otherwise.
"""

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from flipnet.base.errors import FlipnetError
from flipnet.base.files import read_json, read_text_file
from flipnet.report.chosen import how_chosen, run_of
from flipnet.report.sources import ResultFiles, result_files

REPRODUCED, NOT_REPRODUCED, MIXED, MISSING = "reproduced", "not reproduced", "mixed", "not run yet"
RULES = ("at_most", "at_least", "above", "equal", "about", "no_better_than", "faster")


@functools.lru_cache(maxsize=1)
def _gridnim4():
    """1 where the player to move wins grid Nim 4x4 (misere, 1-3 stones per move)."""
    from flipnet.games import GridNim
    from flipnet.solve import win_table

    return win_table(GridNim(4, 4, misere=True))  # solved once for the three facts


def _hand_set_es_vs_random():
    """flipnet's evolved policy with weights set by hand to the misere strategy (move to
    nim-sum 0; at the end leave an odd number of 1-heaps): its win rate against the
    template's random player, 1,000 matches alternating who starts, seed 0, as `make arena`
    measures the evolved weights."""
    from flipnet.games import Nim
    from flipnet.play.arena import win_rate
    from flipnet.play.es import HAND_SET, ESAgent
    from flipnet.play.template import random_row_agent

    return win_rate(Nim(misere=True), ESAgent(HAND_SET), random_row_agent, 1000, np.random.default_rng(0))


COMPUTED = {
    "gridnim4_winning": lambda: int(_gridnim4().sum()),
    "gridnim4_losing": lambda: int((_gridnim4() == 0).sum()),
    "gridnim4_full_board_wins": lambda: int(_gridnim4()[-1]),
    "es_hand_set_vs_random": _hand_set_es_vs_random,
}


def verdict(rule, ours, paper=None, tolerance=0.0, baseline=None):
    """Whether `ours` reproduces a claim under `rule`; a speed (`faster`) is not reproduced
    or not: it is faster or slower than the paper's program, by a ratio."""
    if rule == "faster":
        ratio = paper / ours if ours else float("inf")
        return f"faster ({ratio:.1f}x)" if ratio >= 1 else f"slower ({1 / ratio:.1f}x)"
    checks = {
        "at_most": lambda: ours <= paper,
        "at_least": lambda: ours >= paper,
        "above": lambda: ours > paper,
        "equal": lambda: ours == paper,
        "about": lambda: abs(ours - paper) <= tolerance,
        # "no meaningful improvement": not better than the baseline by more than tolerance
        "no_better_than": lambda: ours >= baseline - tolerance,
    }
    if rule not in checks:
        raise FlipnetError(f"unknown comparison rule {rule!r}: choose from {', '.join(RULES)}")
    return REPRODUCED if checks[rule]() else NOT_REPRODUCED


def read_field(path, dotted, count=False):
    """The value at `dotted` (keys joined by dots; a key may itself contain dots or spaces)
    in a JSON file; the length of a list when `count`."""
    value = _walk(read_json(path, "results file"), dotted)
    if value is _ABSENT:
        raise FlipnetError(f"{path}: no field {dotted!r}")
    if count:
        if not isinstance(value, list):
            raise FlipnetError(f"{path}: {dotted!r} is not a list")
        return len(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FlipnetError(f"{path}: {dotted!r} is {value!r}, not a number")
    return value


_ABSENT = object()


def _walk(data, dotted):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):  # longest key first: keys like "flip 5x5 (2^25 states)"
        key = ".".join(parts[:i])
        if isinstance(data, dict) and key in data:
            rest = ".".join(parts[i:])
            return _walk(data[key], rest) if rest else data[key]
    return _ABSENT


@dataclass
class Row:
    claim: dict
    ours: object = None
    verdict: str = MISSING
    missing: str = ""
    baseline: object = None  # the no-learning figure on the same test set
    spread: dict = field(default_factory=dict)
    selection: str = ""
    shipped: bool = False  # the figure was read from a shipped run (data/results/), not one trained here
    seed: object = None  # the seed of the run shown


def measure(claim, results_dir):
    """(figure, None, path) or (None, what is missing, None) for a claim's `measure` entry."""
    spec, files = claim["measure"], result_files(results_dir)
    if "computed" in spec:
        return COMPUTED[spec["computed"]](), None, None
    path = files.path(spec["file"])
    if path is None:
        return None, f"{files.wanted(spec['file'])} missing: run `{claim['command']}`", None
    return read_field(path, spec["field"], spec.get("count", False)), None, path


def seed_runs(claim, results_dir):
    """{"values": the claim's figure over its runs (the measured run first, then each seed
    run present), "wanted": how many runs its rule asks for, "missing": the seeds not run}
    ({} for a claim without seeds)."""
    spec = claim.get("seeds")
    if not spec:
        return {}
    files, field_ = result_files(results_dir), spec.get("field", claim["measure"]["field"])
    values, missing = [], []
    for seed in spec["seeds"]:
        path = files.path(spec["runs"].format(seed=seed))
        if path is None:
            missing.append(seed)
        else:
            values.append(read_field(path, field_, claim["measure"].get("count", False)))
    return {"values": values, "wanted": len(spec["seeds"]) + 1, "missing": missing,
            "command": spec["command"]}


def spread(values):
    """Median and range of a figure over runs."""
    return {"n": len(values), "median": float(np.median(values)), "min": float(np.min(values)),
            "max": float(np.max(values))}


def verdict_over_seeds(rule, values, paper=None, tolerance=0.0, baseline=None):
    """The verdict a claim's runs give together: the rule holds for every run: reproduced;
    for none: not reproduced; for some: mixed, with how many. One rule for every row but a
    speed's, which is the ratio of the run shown (the first) to the paper's program."""
    if rule == "faster":
        return verdict(rule, values[0], paper)
    holds = [verdict(rule, v, paper, tolerance, baseline) == REPRODUCED for v in values]
    if all(holds):
        return REPRODUCED
    if not any(holds):
        return NOT_REPRODUCED
    return f"{MIXED} ({sum(holds)} of {len(holds)} runs)"


def _baseline(claim, results_dir):
    spec = claim.get("majority")
    if not spec:
        return None
    path = result_files(results_dir).path(spec["file"])
    if path is None:
        return None
    value = _walk(read_json(path, "results file"), "baseline_test_error")
    return value if isinstance(value, (int, float)) else None  # runs from before it was recorded


def _selection(claim, record):
    shown = {name: (lambda fn=fn: show(fn(), "percent")) for name, fn in COMPUTED.items()}
    return how_chosen(claim, record, shown)


def also_text(claim, files):
    """The claim's other figures (`also`: the same agents under another protocol or
    reading), each the median and range over the claim's runs, for the how-chosen cell."""
    parts = []
    for also in claim.get("also", []):
        path = files.path(also["file"])
        if path is None:
            continue
        values = [read_field(path, also["field"])]
        for seed in claim.get("seeds", {}).get("seeds", []) if "runs" in also else []:
            run = files.path(also["runs"].format(seed=seed))
            if run is not None:
                values.append(read_field(run, also["field"]))
        s = spread(values)
        text = show(values[0], claim.get("format"))
        if s["n"] > 1:  # the median and range over the same runs as the row's
            low, high = (show(s[end], claim.get("format")).rstrip("%") for end in ("min", "max"))
            text = f"{show(s['median'], claim.get('format'))} [{low}..{high}]"
        parts.append(f"{also['label']} {text}")
    return "; ".join(parts)


def compare(claims, results_dir="results"):
    """A Row per claim; `results_dir`: a folder, or a ResultFiles that falls back on the
    shipped results."""
    rows, files = [], result_files(results_dir)
    for claim in claims:
        row = Row(claim)
        row.ours, row.missing, path = measure(claim, files)
        row.shipped = files.is_shipped(path)
        row.baseline = _baseline(claim, files)
        record = run_of(claim, files)  # the run behind the figure: how it was chosen, its seed
        row.selection = "; ".join(part for part in (_selection(claim, record), also_text(claim, files)) if part)
        row.seed = (record or {}).get("seed")
        versus = None
        if row.ours is not None and "versus" in claim:
            base = claim["versus"]
            base_path = files.path(base["file"])
            if base_path is not None:
                versus = read_field(base_path, base["field"])
            else:
                row.missing = f"{files.wanted(base['file'])} missing (the run it is set against)"
        if row.ours is None or row.missing:
            rows.append(row)
            continue
        runs = seed_runs(claim, files)
        values = [row.ours, *runs.get("values", [])]
        row.spread = {**spread(values), "wanted": runs.get("wanted", 1), "missing": runs.get("missing", []),
                      "command": runs.get("command")} if runs else {}
        row.verdict = verdict_over_seeds(claim["rule"], values, claim.get("paper"), claim.get("tolerance", 0.0),
                                         versus)
        if "verdicts" in claim and not row.verdict.startswith(MIXED):  # a target of flipnet's own
            row.verdict = claim["verdicts"][row.verdict != REPRODUCED]
        rows.append(row)
    return rows


def load_claims(path):
    data = read_json(path, "claims file")
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list):
        raise FlipnetError(f"{path}: not a claims file (no list 'claims')")
    for i, claim in enumerate(claims):
        if not isinstance(claim, dict):
            raise FlipnetError(f"{path}: claim {i + 1} is not an object")
        for key in ("id", "claim", "rule", "measure", "command"):
            if key not in claim:
                raise FlipnetError(f"{path}: claim {i + 1} has no {key!r}")
        if claim["rule"] not in RULES:
            raise FlipnetError(f"{path}: claim {i + 1} has an unknown rule {claim['rule']!r}")
        measure_spec = claim["measure"]
        if not isinstance(measure_spec, dict) or not ({"file", "field"} <= set(measure_spec)
                                                      or measure_spec.get("computed") in COMPUTED):
            raise FlipnetError(f"{path}: claim {i + 1}'s measure needs file and field, or a known 'computed'")
        seeds = claim.get("seeds")
        if seeds is not None and not (isinstance(seeds, dict) and "{seed}" in str(seeds.get("runs"))
                                      and isinstance(seeds.get("seeds"), list) and seeds["seeds"]
                                      and all(isinstance(x, int) for x in seeds["seeds"]) and "command" in seeds):
            raise FlipnetError(f"{path}: claim {i + 1}'s seeds need 'runs' (a file name with {{seed}}), "
                               f"a list of integer 'seeds' and the 'command' that runs them")
    return claims


def show(value, kind):
    if value is None:
        return "-"
    if kind == "percent":
        return f"{100 * value:.2f}%"
    if kind == "seconds":
        return f"{value:.2f} s"
    if kind == "outcome":
        return "won (1)" if value else "lost (0)"
    if kind == "count":  # a median of counts is a float, and may fall between two
        return str(int(value)) if float(value).is_integer() else f"{value}"
    return f"{value}"


def _ours_text(row):
    """The figure of the measured run; with seeds, the median and range over every run
    beside it, and how many of the runs the rule asks for exist."""
    kind = row.claim.get("format")
    text = show(row.ours, kind) + (" (shipped)" if row.shipped else "")
    s = row.spread
    if not s:
        return text
    if s["n"] == 1:
        return f"{text}; 1 of {s['wanted']} runs"
    runs = f"{s['n']} of {s['wanted']} runs" if s["n"] < s["wanted"] else f"{s['n']} runs"
    shown = "" if row.seed is None else f"seed {row.seed}: "
    low, high = (show(s[end], kind).rstrip("%") for end in ("min", "max"))
    return f"median {show(s['median'], kind)} [{low}..{high}], {runs}; {shown}{text}"


def markdown(rows):
    """The comparison as a Markdown table plus notes on what is missing."""
    lines = ["| claim | paper | flipnet | no-learning baseline | verdict | how the figure was chosen |",
             "|---|---|---|---|---|---|"]
    notes, to_run = [], []
    for row in rows:
        c = row.claim
        lines.append(f"| {c['claim']} | {c.get('paper_text', show(c.get('paper'), c.get('format')))} "
                     f"| {_ours_text(row)} | {show(row.baseline, c.get('format'))} | {row.verdict} "
                     f"| {row.selection or '-'} |")
        if row.missing:
            notes.append(f"- {c['id']}: {row.missing}")
        elif row.spread.get("missing"):
            to_run.append(_seeds_to_run(c["id"], row.spread))
    lines.append("")
    lines.append("No-learning baseline: always the training states' most common value, on the same test states.")
    lines.append("Test labels choose nothing: epochs are chosen on validation, the rest as the last column says.")
    if to_run:
        notes.insert(0, f"- seeds to run (`make compare-seeds-ID`): {'; '.join(to_run)}")
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def _seeds_to_run(claim_id, spread):
    """'ID 1, 2' for the notes, with the command when it is not compare-seeds-ID."""
    command = spread["command"]
    named = "" if command == f"make compare-seeds-{claim_id}" else f" (`{command}`)"
    return f"{claim_id} {', '.join(map(str, spread['missing']))}{named}"


def text_table(rows):
    header = ("claim", "paper", "flipnet", "verdict")
    body = [(r.claim["claim"], r.claim.get("paper_text", ""), _ours_text(r),
             r.verdict + (f" ({r.missing})" if r.missing else "")) for r in rows]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(3)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths + [0]))]
    for cells in body:
        out.append("  ".join(c.ljust(w) for c, w in zip(cells, widths + [0])).rstrip())
    return "\n".join(out)


README_START, README_END = "<!-- compare:start -->", "<!-- compare:end -->"


def training_runs(results_dir):
    """{name: results} of every training run of record in results_dir (files with a curve),
    each checked to hold what the plots read. Runs of other seeds (`NAME-seedN`) are left
    out: the compare table gives their spread, and a figure of every seed's curve is a tangle."""
    runs = {}
    for path in result_files(results_dir).glob("*.json"):
        if re.search(r"-seed\d+$", path.stem):
            continue
        result = read_json(path, "results file")
        if isinstance(result, dict) and "curve" in result and "confusion" in result:
            _check_run(path, result)
            runs[path.stem] = result
    return runs


def _check_run(path, result):
    def number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    curve, matrix = result["curve"], result["confusion"]
    problem = None
    if not number(result.get("test_error")):
        problem = "test_error is not a number"
    elif not isinstance(curve, list) or not all(
            isinstance(c, dict) and number(c.get("epoch")) and number(c.get("valid_error")) for c in curve):
        problem = "curve is not a list of {epoch, valid_error} numbers"
    elif not (isinstance(matrix, list) and matrix and all(
            isinstance(r, list) and len(r) == len(matrix) and all(number(x) for x in r) for r in matrix)):
        problem = "confusion is not a square matrix of counts"
    if problem:
        raise FlipnetError(f"{path}: not a training result ({problem})")


def class_counts(data_dir):
    """{dataset description: states per nim-value} for the datasets present in data_dir."""
    from flipnet.datasets import TABLES, read_table

    counts = {}
    for spec in TABLES:  # the sampled datasets are not every state: no class balance
        path = spec.path(data_dir)
        if path.exists():
            counts[spec.description] = np.bincount(read_table(path).values)
    return counts


def replace_block(text, block):
    """`text` with the part between the compare markers replaced by `block`."""
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise FlipnetError(f"no {README_START} ... {README_END} block to replace")
    return text[:start + len(README_START)] + "\n" + block + text[end:]


def run(claims_path, results_dir, data_dir, out, figures, readme=None, shipped_dir=None):
    """`flipnet compare`: the table (printed and written to `out`), the figures, and
    optionally the README's block; the lines to print. Results missing from results_dir
    are read from `shipped_dir` where given (the results that ship with flipnet)."""
    from flipnet.base.files import check_writable, ensure_dir, write_text
    from flipnet.report import beyond, plots

    claims = load_claims(claims_path)
    _check_results_dir(Path(results_dir))
    ensure_dir(Path(out).parent)  # results/ on a fresh clone: one level, its parent must exist
    for path in [out] + ([readme] if readme else []):
        check_writable(path)
    readme_text = _readme_text(readme) if readme else None  # checked before anything is written
    files = ResultFiles(results_dir, shipped_dir)
    rows = compare(claims, files)
    extra = beyond.markdown(files)
    table = markdown(rows) + ("\n" + extra if extra else "")
    runs = training_runs(files)
    written = plots.write_all(runs, class_counts(data_dir), figures, files, beyond.BEST)
    write_text(out, table)
    lines = [text_table(rows)] + (["", extra.rstrip()] if extra else [])
    lines += ["", f"wrote {out}" + "".join(f", {p}" for p in written)]
    if readme:
        write_text(readme, replace_block(readme_text, table))
        lines.append(f"updated the compare table in {readme}")
    return lines


def _check_results_dir(path):
    """A folder of results, or none yet where it is the default (a fresh clone's results/):
    a file, or a folder named that is not there (a typo), would read as no results at all."""
    from flipnet.base.files import RESULTS_DIR

    if path.exists() and not path.is_dir():
        raise FlipnetError(f"--results-dir {path} is a file, not a folder of results")
    if not path.exists() and path != RESULTS_DIR:
        raise FlipnetError(f"--results-dir {path}: no such folder")


def _readme_text(path):
    text = read_text_file(path, "README")
    replace_block(text, "")  # refuses a file without the block now, not after the writes
    return text
