"""The figure of docs/semantics.md, drawn from what the extension really computes.

Runs the real ``sliding_window`` query on the contract's example (rows A@10 B@14 C@17 D@25 E@31,
size 10, in microseconds so that the unit is 1) and renders its windows as an SVG, written to
``docs/img/spec-example-windows.svg``. ``tests/test_docs_figure.py`` renders it again and
compares it with the committed file, so the figure cannot drift from the implementation.

    PYTHONPATH=python python -m buildtools.semantics_figure     # rewrites the SVG
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURE = os.path.join(ROOT, "docs", "img", "spec-example-windows.svg")

ROWS: Sequence[Tuple[str, int]] = (("A", 10), ("B", 14), ("C", 17), ("D", 25), ("E", 31))
SIZE = 10

# The query docs/semantics.md shows, on the rows above.
QUERY = """
SELECT unix_micros(w.start) AS start, unix_micros(w.end) AS `end`, array_join(rows, ' ') AS rows
FROM (
  SELECT sliding_window(timestamp_micros(t), '10 microseconds') AS w, collect_list(name) AS rows
  FROM VALUES {values} AS events(name, t)
  GROUP BY sliding_window(timestamp_micros(t), '10 microseconds')
)
ORDER BY start
"""


@dataclass(frozen=True)
class Window:
    start: int
    end: int
    names: Tuple[str, ...]


def values_sql(rows: Sequence[Tuple[str, int]] = ROWS) -> str:
    return ", ".join(f"('{n}', {t})" for n, t in rows)


def query_windows(spark) -> List[Window]:
    """The windows of the example, as the extension computes them, ordered by start."""
    rows = spark.sql(QUERY.format(values=values_sql())).collect()
    return [Window(r.start, r.end, tuple(r.rows.split(" "))) for r in rows]


def kinds(window: Window, rows: Sequence[Tuple[str, int]] = ROWS) -> List[str]:
    """Why the window exists: 'left of X' when it ends at X, 'right of X' when it starts 1 after X."""
    why = [f"left of {n}" for n, t in rows if window.end == t]
    why += [f"right of {n}" for n, t in rows if window.start == t + 1]
    return why


# --------------------------------------------------------------------------------------------
# Rendering: plain SVG text, deterministic (integer coordinates, fixed order).

SCALE = 20          # pixels per time unit
LEFT = 150          # x of time 0
T_MIN, T_MAX = -2, 40
TOP = 70            # y of the first window lane
LANE = 34
COLORS = {"left": "#4C78A8", "right": "#F58518", "both": "#8E6C8A"}


def _x(t: int) -> int:
    return LEFT + (t - T_MIN) * SCALE


def render(windows: Sequence[Window], rows: Sequence[Tuple[str, int]] = ROWS) -> str:
    width = _x(T_MAX) + 200
    axis_y = TOP + LANE * len(windows) + 10
    height = axis_y + 70
    out: List[str] = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">')
    add(f'<title>The sliding windows of size {SIZE} over '
        + ", ".join(f"{n}@{t}" for n, t in rows) + ", as sliding_window computes them</title>")
    add(f'<rect width="{width}" height="{height}" fill="white"/>')
    add(f'<text x="10" y="22" font-size="15" font-weight="bold">sliding_window(t, size {SIZE}) '
        f'on rows ' + " ".join(f"{n}@{t}" for n, t in rows) + f": {len(windows)} windows</text>")
    # Rows: a dashed line and a label at each row time.
    for name, t in rows:
        add(f'<line x1="{_x(t)}" y1="40" x2="{_x(t)}" y2="{axis_y}" stroke="#999" '
            f'stroke-dasharray="4 3"/>')
        add(f'<text x="{_x(t)}" y="52" text-anchor="middle" font-weight="bold">{name}</text>')
    # Windows: one lane each, a bar from start to end (both inclusive), a dot per row held.
    times = dict(rows)
    for i, w in enumerate(windows):
        y = TOP + LANE * i
        why = kinds(w, rows)
        sides = {k.split()[0] for k in why}
        color = COLORS["both" if len(sides) == 2 else (sides.pop() if sides else "left")]
        add(f'<text x="10" y="{y + 16}">[{w.start}, {w.end}]</text>')
        add(f'<rect x="{_x(w.start)}" y="{y + 4}" width="{(w.end - w.start) * SCALE}" '
            f'height="16" rx="3" fill="{color}" fill-opacity="0.25" stroke="{color}"/>')
        for n in w.names:
            add(f'<circle cx="{_x(times[n])}" cy="{y + 12}" r="5" fill="{color}"/>')
        add(f'<text x="{_x(T_MAX) + 10}" y="{y + 16}">{" ".join(w.names)}: '
            f'{", ".join(why)}</text>')
    # Time axis.
    add(f'<line x1="{_x(T_MIN)}" y1="{axis_y}" x2="{_x(T_MAX)}" y2="{axis_y}" stroke="black"/>')
    for t in range(T_MIN, T_MAX + 1):
        tick = 6 if t % 5 == 0 else 3
        add(f'<line x1="{_x(t)}" y1="{axis_y}" x2="{_x(t)}" y2="{axis_y + tick}" stroke="black"/>')
        if t % 5 == 0:
            add(f'<text x="{_x(t)}" y="{axis_y + 20}" text-anchor="middle">{t}</text>')
    add(f'<text x="{_x(T_MAX) + 8}" y="{axis_y + 4}" fill="#555">time</text>')
    # Legend.
    ly = axis_y + 45
    for j, (label, key) in enumerate((("left window [t - 10, t]", "left"),
                                      ("right window [t + 1, t + 11]", "right"),
                                      ("both (one window)", "both"))):
        lx = LEFT + j * 250
        add(f'<rect x="{lx}" y="{ly - 11}" width="24" height="12" rx="3" fill="{COLORS[key]}" '
            f'fill-opacity="0.25" stroke="{COLORS[key]}"/>')
        add(f'<text x="{lx + 32}" y="{ly}">{label}</text>')
    add("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    from pyspark.sql import SparkSession

    import sliding_window_agg as swa

    spark = (swa.configure(SparkSession.builder.master("local[1]"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    svg = render(query_windows(spark))
    spark.stop()
    os.makedirs(os.path.dirname(FIGURE), exist_ok=True)
    with open(FIGURE, "w") as f:
        f.write(svg)
    print(FIGURE)


if __name__ == "__main__":
    main()
