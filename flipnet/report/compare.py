"""The paper's claims (data/paper.json) beside flipnet's measured figures.

Each claim names where flipnet's figure comes from: a field of a results/*.json file
written by a make target, or an exact fact computed here. A missing file is reported as
missing, with the command that would produce it; nothing is guessed.
"""

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from flipnet.base.errors import FlipnetError

REPRODUCED, NOT_REPRODUCED, MISSING = "reproduced", "not reproduced", "not run yet"


@functools.lru_cache(maxsize=1)
def _gridnim4():
    """1 where the player to move wins grid Nim 4x4 (misere, 1-3 stones per move)."""
    from flipnet.games import GridNim
    from flipnet.solve import win_table

    return win_table(GridNim(4, 4, misere=True))  # solved once for the three facts


COMPUTED = {
    "gridnim4_winning": lambda: int(_gridnim4().sum()),
    "gridnim4_losing": lambda: int((_gridnim4() == 0).sum()),
    "gridnim4_full_board_wins": lambda: int(_gridnim4()[-1]),
}


def verdict(rule, ours, paper=None, tolerance=0.0, baseline=None):
    """Whether `ours` reproduces a claim under `rule`."""
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
        raise FlipnetError(f"unknown comparison rule {rule!r}: choose from {', '.join(checks)}")
    return REPRODUCED if checks[rule]() else NOT_REPRODUCED


def read_field(path, dotted, count=False):
    """The value at `dotted` (keys joined by dots; a key may itself contain dots or spaces)
    in a JSON file; the length of a list when `count`."""
    data = json.loads(Path(path).read_text())
    value = _walk(data, dotted)
    if value is _ABSENT:
        raise FlipnetError(f"{path}: no field {dotted!r}")
    return len(value) if count else value


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
    spread: dict = field(default_factory=dict)


def measure(claim, results_dir):
    """(figure, None) or (None, what is missing) for a claim's `measure` entry."""
    spec = claim["measure"]
    if "computed" in spec:
        return COMPUTED[spec["computed"]](), None
    path = Path(results_dir) / spec["file"]
    if not path.exists():
        return None, f"{path} missing: run `{claim['command']}`"
    return read_field(path, spec["field"], spec.get("count", False)), None


def seed_spread(claim, results_dir):
    """Mean, spread and count of the claim's figure over repeated runs (compare-seeds)."""
    spec = claim.get("seeds")
    if not spec:
        return {}
    files = sorted(Path(results_dir).glob(spec["files"]))
    values = [read_field(f, spec["field"]) for f in files]
    if not values:
        return {"missing": f"no {spec['files']}: run `{spec.get('command', 'make compare-seeds')}`",
                "recipe": spec["recipe"]}
    return {"n": len(values), "mean": float(np.mean(values)), "std": float(np.std(values)),
            "min": float(np.min(values)), "max": float(np.max(values)), "recipe": spec["recipe"]}


def compare(claims, results_dir="results"):
    rows = []
    for claim in claims:
        row = Row(claim)
        row.ours, row.missing = measure(claim, results_dir)
        baseline = None
        if row.ours is not None and "baseline" in claim:
            base = claim["baseline"]
            base_path = Path(results_dir) / base["file"]
            if base_path.exists():
                baseline = read_field(base_path, base["field"])
            else:
                row.missing = f"{base_path} missing (the baseline)"
        if row.ours is not None and not row.missing:
            row.verdict = verdict(claim["rule"], row.ours, claim.get("paper"),
                                  claim.get("tolerance", 0.0), baseline)
            if "verdicts" in claim:  # a target of flipnet's own rather than a claim
                row.verdict = claim["verdicts"][row.verdict != REPRODUCED]
        row.spread = seed_spread(claim, results_dir)
        rows.append(row)
    return rows


def load_claims(path):
    try:
        claims = json.loads(Path(path).read_text())["claims"]
    except FileNotFoundError:
        raise FlipnetError(f"{path}: no such file") from None
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise FlipnetError(f"{path}: not a claims file ({error})") from None
    for i, claim in enumerate(claims):
        for key in ("id", "claim", "rule", "measure", "command"):
            if key not in claim:
                raise FlipnetError(f"{path}: claim {i + 1} has no {key!r}")
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
    return f"{value}"


def _spread_text(row):
    s = row.spread
    if not s:
        return ""
    if "missing" in s:
        return s["missing"]
    kind = row.claim.get("format")
    return (f"{s['n']} runs ({s['recipe']}): mean {show(s['mean'], kind)}, "
            f"sd {show(s['std'], kind)}, range {show(s['min'], kind)}..{show(s['max'], kind)}")


def markdown(rows):
    """The comparison as a Markdown table plus notes on missing results and spread."""
    lines = ["| claim | paper | flipnet | verdict |", "|---|---|---|---|"]
    notes = []
    for row in rows:
        c = row.claim
        ours = show(row.ours, c.get("format"))
        lines.append(f"| {c['claim']} | {c.get('paper_text', show(c.get('paper'), c.get('format')))} "
                     f"| {ours} | {row.verdict} |")
        if row.missing:
            notes.append(f"- {c['id']}: {row.missing}")
        if row.spread:
            notes.append(f"- {c['id']} over seeds: {_spread_text(row)}")
    lines.append("")
    lines.append("The original study reports one run on one bucket per figure; flipnet's "
                 "main rows are likewise one run (the make target), and the seed rows below "
                 "show how much a figure moves between runs.")
    return "\n".join(lines + [""] + notes) + "\n"


def text_table(rows):
    header = ("claim", "paper", "flipnet", "verdict")
    body = [(r.claim["claim"], r.claim.get("paper_text", ""), show(r.ours, r.claim.get("format")),
             r.verdict + (f" ({r.missing})" if r.missing else "")) for r in rows]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(3)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths + [0]))]
    for cells in body:
        out.append("  ".join(c.ljust(w) for c, w in zip(cells, widths + [0])).rstrip())
    spreads = [f"  {r.claim['id']}: {_spread_text(r)}" for r in rows if r.spread]
    return "\n".join(out + (["", "over seeds:"] + spreads if spreads else []))


README_START, README_END = "<!-- compare:start -->", "<!-- compare:end -->"


def training_runs(results_dir):
    """{name: results} of every training run in results_dir (files with a curve)."""
    runs = {}
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            result = json.loads(path.read_text())
        except json.JSONDecodeError:
            raise FlipnetError(f"{path}: not valid JSON") from None
        if isinstance(result, dict) and "curve" in result and "confusion" in result:
            runs[path.stem] = result
    return runs


def class_counts(data_dir):
    """{dataset title: states per nim-value} for the datasets present in data_dir."""
    from flipnet.datasets import DATASETS, read_table

    counts = {}
    for spec in DATASETS.values():
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


def run(claims_path, results_dir, data_dir, out, figures, readme=None):
    """`flipnet compare`: the table (printed and written to `out`), the figures, and
    optionally the README's block; the lines to print."""
    from flipnet.base.files import check_writable, ensure_dir, write_text
    from flipnet.report import plots

    claims = load_claims(claims_path)
    ensure_dir(Path(out).parent)  # results/ on a fresh clone: one level, its parent must exist
    for path in [out] + ([readme] if readme else []):
        check_writable(path)
    rows = compare(claims, results_dir)
    table = markdown(rows)
    written = plots.write_all(training_runs(results_dir), class_counts(data_dir), figures)
    write_text(out, table)
    lines = [text_table(rows), "", f"wrote {out}" + "".join(f", {p}" for p in written)]
    if readme:
        readme_path = Path(readme)
        write_text(readme_path, replace_block(readme_path.read_text(), table))
        lines.append(f"updated the compare table in {readme_path}")
    return lines
