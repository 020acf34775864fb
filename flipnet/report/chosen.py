"""How a compared figure's configuration was chosen, written from the run that made it.

The facts come from the results file (the recipe or the paper's protocol, the seed, the
epoch validation chose, the matches of an arena); a claim adds only `why`, a sentence
without figures saying why that recipe or seed is the one shown. So the cell changes
when the run does, and no hand-typed figure can go stale.
"""

from flipnet.base.files import read_json


def _training(run):
    """'the paper's protocol, seed 2016, epoch 893/1000 by validation' for a training run."""
    what = "the paper's protocol" if run.get("paper_protocol") else f"recipe {run['recipe']}"
    changed = sorted(set(run.get("overrides") or {}) - {"seed", "name", "results_dir", "init"})
    if changed:
        what += f" ({', '.join(changed)} changed)"
    if run.get("best_epoch") is None:  # a table filled from the training split
        return f"{what}, no training epochs"
    by = "validation shapes" if "valid_shape_error" in run else "validation"
    return f"{what}, seed {run['seed']}, epoch {run['best_epoch']}/{run['epochs_run']} by {by}"


def facts(record):
    """The generated part of the cell, from a results record of any kind."""
    if "config" in record and "recipe" in record:
        return _training(record)
    if "win_rate" in record:
        starts = " moving first" if record.get("starts") == "first" else ", alternating who starts"
        return f"{record['matches']:,} matches{starts}, seed {record['seed']}"
    if "diff_winning" in record:
        return f"seed {record['seed']}, {record['epochs']:,} epochs"
    if "machine" in record:
        return "make bench, in one process"
    return ""


def run_of(claim, files):
    """The results record behind a claim's figure: its `run` file where the figure is read
    from an evaluation, else its `measure` file (None: computed, or not run yet)."""
    name = claim.get("run", claim["measure"].get("file"))
    path = files.path(name) if name else None
    return read_json(path, "results file") if path is not None else None


def how_chosen(claim, record, computed=None):
    """The cell: the facts of `record`, the run behind the claim's figure (`run_of`), then
    the claim's `why`, whose {names} are figures computed on the spot (`computed`: name -> a
    function giving the text). A claim not run yet: its row says so, the cell gives the
    reason only."""
    if record is not None:
        generated = facts(record)
    else:
        generated = "computed exactly on the spot" if "computed" in claim["measure"] else ""
    why = claim.get("why", "")
    if computed:
        why = why.format(**{key: computed[key]() for key in computed if "{" + key + "}" in why})
    return "; ".join(part for part in (generated, why) if part)
