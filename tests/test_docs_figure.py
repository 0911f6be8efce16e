"""The figure of docs/semantics.md is what the extension computes: regenerating it from a real
query gives the committed SVG byte for byte, and the query gives the contract's table."""
from __future__ import annotations

import os

from buildtools import semantics_figure as fig
from spec_example import WINDOWS

# docs/contract.md, "Sliding windows": the example's windows and the rows each holds.
SPEC_TABLE = [(start, end, tuple(ids)) for start, end, ids in WINDOWS]


def test_semantics_figure_is_generated_from_the_real_query(spark):
    windows = fig.query_windows(spark)
    assert [(w.start, w.end, w.names) for w in windows] == SPEC_TABLE
    assert fig.kinds(windows[4]) == ["left of D", "right of B"]
    # The query the page shows is the one that drew the figure.
    with open(os.path.join(fig.ROOT, "docs", "semantics.md")) as f:
        assert fig.QUERY.format(values=fig.values_sql()).strip() + ";" in f.read()
    with open(fig.FIGURE) as f:
        committed = f.read()
    assert fig.render(windows) == committed, (
        "docs/img/spec-example-windows.svg is stale: run "
        "`PYTHONPATH=python python -m buildtools.semantics_figure` and commit it")
