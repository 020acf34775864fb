"""The README's and docs' links between files: every relative link names a file of the
repository, and every #anchor a heading of that file (as GitHub makes its anchors). The
docs were split (results.md, experiments.md) and refer to each other's sections."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def github_anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    """Every anchor a markdown file's headings make (a repeated one gets -1, -2, ...)."""
    seen, out = {}, set()
    in_code = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not re.match(r"#{1,6} ", line):
            continue
        base = github_anchor(line.lstrip("#"))
        out.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return out


def links(path):
    return [target for target in LINK.findall(path.read_text())
            if not re.match(r"[a-z]+:", target)]  # http:, https:, mailto: are not checked


def test_the_anchor_rule_on_headings_like_the_docs():
    assert github_anchor(" A convolution over the component's cells (2026-11-24, the one)") == \
        "a-convolution-over-the-components-cells-2026-11-24-the-one"
    assert github_anchor("convmem2d-deep12 and -gated12") == "convmem2d-deep12-and--gated12"


def test_anchors_number_repeated_headings(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("# Speed\n\n```\n# not a heading\n```\n## Speed\n")
    assert anchors(doc) == {"speed", "speed-1"}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc):
    broken = []
    for target in links(doc):
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


@pytest.mark.parametrize("name", ["findings.md", "results.md"])
def test_the_findings_and_results_are_read_in_minutes(name):
    """What the research established and how each figure was chosen, not a log of runs."""
    assert len((ROOT / "docs" / name).read_text().splitlines()) <= 300


def test_the_readme_is_read_in_a_minute():
    """At most 150 lines and 12 KB; short lines outside tables and short table cells; the
    two set-up commands and the main job near the top."""
    text = (ROOT / "README.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 150 and len(text.encode()) <= 12 * 1024, (len(lines), len(text.encode()))
    for line in lines:
        if line.startswith("|"):
            cells = line.strip("|").split(" | ")
            assert all(len(cell.strip()) <= 120 for cell in cells), line
        else:
            assert len(line) <= 200, line
    top = "\n".join(lines[:30])
    assert "make data" in top and "make test" in top and "flipnet predict" in top


def test_the_architecture_diagram_names_every_module_of_the_package():
    """docs/architecture.md's diagram is kept to the code: each module and sub-package of
    flipnet is named in it (a new module shows up here until the diagram says what it is)."""
    diagram = (ROOT / "docs" / "architecture.md").read_text().split("```")[1]
    named = set(re.findall(r"\w+", diagram))
    package = ROOT / "flipnet"
    modules = {p.stem for p in package.rglob("*.py") if p.stem not in ("__init__", "__main__")}
    folders = {p.name for p in package.rglob("*") if (p / "__init__.py").is_file() and p != package}
    assert not (modules | folders) - named, sorted((modules | folders) - named)


def test_make_help_lists_at_most_40_targets():
    """`make help` is read whole: the targets it lists are the ones a user starts from."""
    listed = re.findall(r"^[a-z0-9-]+:.*## ", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert 0 < len(listed) <= 40, len(listed)
