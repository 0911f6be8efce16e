"""The SQL reference documents the conditions file as it is: its table lists every condition
with its SQLSTATE, each main condition has a section, and the quoted messages are those the
templates give (so neither the file nor the page can go stale alone)."""
from __future__ import annotations

import os
import re

from checkout import ROOT
from error_conditions import conditions, load

PAGE = os.path.join(ROOT, "docs", "sql-reference.md")
MARKER = "<!-- error-conditions:"


def page() -> str:
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def documented_table() -> dict:
    """condition -> SQLSTATE, from the table that follows the marker."""
    lines = page().split(MARKER, 1)[1].splitlines()[1:]
    rows = {}
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1]
    return rows


def test_the_table_lists_every_condition_with_its_sql_state():
    assert documented_table() == {c: info["sqlState"] for c, info in conditions().items()}


def test_every_main_condition_has_a_section():
    headings = set(re.findall(r"^### (WINDOW_[A-Z_]+)$", page(), flags=re.M))
    assert headings == set(load())


def test_quoted_messages_are_those_of_the_templates():
    """Each message quoted on a line of its own (an output block) is its condition's template
    with values in place of the parameters, and what Spark appends (the position, a SQLSTATE)."""
    known = conditions()
    quoted = re.findall(r"^(?:.* terminated with exception: )?\[(WINDOW_[A-Z_.]+)\] (.+)$",
                        page(), flags=re.M)
    assert len(quoted) >= 15
    for condition, text in quoted:
        assert condition in known, condition
        chunks = re.split(r"<[A-Za-z]+>", known[condition]["template"])
        pattern = ".+".join(map(re.escape, chunks)) + r"(; line \d+ pos \d+| SQLSTATE: \w+)?"
        assert re.fullmatch(pattern, text), (condition, text)
