"""The repository speaks of the project, not of how it was made: no session ordinals,
no references to the tracker, and no stories of which machine ran what, in the code, the
tests, the README, the Makefile and the docs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
            "thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
            "twenty-\\w+")
TELLING = re.compile(rf"\b({ORDINALS}) session\b|\bsession \d+\b|\bthis session\b|\bissue \d+\b|"
                     r"\bthe issue\b|\b(faster|slower|earlier|other) machine\b|\bthis checkout\b",
                     re.IGNORECASE)


def sources():
    files = [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "flipnet").rglob("*.py")),
             *sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in files if p.name != Path(__file__).name]


def test_no_file_tells_how_it_was_made():
    told = [f"{p.relative_to(ROOT)}:{n}: {m.group(0)}" for p in sources()
            for n, line in enumerate(p.read_text().splitlines(), 1) for m in TELLING.finditer(line)]
    assert not told, told


def test_the_rule_catches_what_it_is_for():
    for text in ("the eleventh session", "as in issue 20", "what the issue asks", "on the slower machine",
                 "before this session's changes", "this checkout's run"):
        assert TELLING.search(text), text
    for text in ("start_new_session=True", "numba bug 6713", "a fixture of scope session"):
        assert not TELLING.search(text), text
