"""The documentation site builds without warnings (mkdocs --strict): broken links or pages
missing from the navigation fail the test run."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "semantics" / "index.html").exists()


def _normalize(text: str) -> str:
    """Docstring reST (``x``) as Markdown (`x`), whitespace collapsed."""
    return " ".join(text.replace("``", "`").split())


def test_python_reference_covers_every_public_name():
    """docs/python-reference.md is hand-written: it must have a section for every name of
    sliding_window_agg.__all__, and quote the first line of every public docstring."""
    import inspect

    import sliding_window_agg as swa

    with open(os.path.join(ROOT, "docs", "python-reference.md")) as f:
        page = f.read()
    text = _normalize(page)
    headings = {line[3:].strip() for line in page.splitlines() if line.startswith("## ")}
    missing_sections = [name for name in swa.__all__ if name not in headings]
    assert not missing_sections, f"no '## name' section in python-reference.md: {missing_sections}"
    missing_lines = []
    for name in swa.__all__:
        obj = getattr(swa, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            first = _normalize(inspect.getdoc(obj).splitlines()[0])
            if first not in text:
                missing_lines.append((name, first))
    assert not missing_lines, f"docstring first lines missing from python-reference.md: {missing_lines}"
