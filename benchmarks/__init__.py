"""Benchmarks of sliding-window-agg against plain Spark, run on the same data in one session.

- ``python -m benchmarks.batch``: batch sliding windows against OVER RANGE frames, a hopping
  ``window()`` and a sort over the same shuffle, rows per window from 10 to 10,000;
- ``python -m benchmarks.streaming``: sustained rows/s with RocksDB state, and the cost of a
  micro-batch as the state grows;
- ``python -m benchmarks.memory``: one group holding 20 million rows in one window; 5 million
  windows closing in one streaming micro-batch under a 1 GiB heap.

docs/performance.md reports their figures and says how to read them.
"""
