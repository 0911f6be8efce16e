"""The outputs pasted in the documentation: the code blocks marked `<!-- output: <source> -->`
in a page, compared with what `<source>` prints, blank lines and trailing spaces aside."""
from __future__ import annotations

import os
import re

from checkout import ROOT


def documented_output(page: str, source: str) -> str:
    """The output blocks of `page` (a path from the repository's root) marked
    `<!-- output: <source> -->`: a script of docs/examples/, of tests/support/ or a README example."""
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    marker = re.escape(f"<!-- output: {source} -->")
    blocks = re.findall(marker + r"\s*\n```[a-z]*\n(.*?)\n```", text, flags=re.S)
    assert blocks, f"{page} has no output block of {source}"
    return "\n".join(blocks)


def normalize(text: str) -> list:
    return [line.rstrip() for line in text.splitlines() if line.strip()]
