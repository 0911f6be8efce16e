"""The documentation site builds without warnings (mkdocs --strict): broken links or pages
missing from the navigation fail the test run. The Python reference is generated from the
package's docstrings, and must cover every public name."""
import html
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# One test worker runs this module's tests (`make test` runs pytest -n 2 --dist loadgroup):
# the site they read is built once, by a module fixture.
pytestmark = pytest.mark.xdist_group("docs")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_docs_site_builds_strict(site):
    assert (site / "semantics" / "index.html").exists()


def _letters(text: str) -> str:
    """Text without whitespace or Markdown backticks, to compare rendered and source text."""
    return "".join(text.replace("`", "").split())


def _text(html_page: str) -> str:
    """The visible text of a page, as `_letters`."""
    return _letters(html.unescape(re.sub(r"<[^>]+>", " ", html_page)))


def test_python_reference_is_generated_for_every_public_name(site):
    """docs/python-reference.md has a `## name` section with a mkdocstrings `::: name`
    directive for every name of sliding_window_agg.__all__, and the built page shows the
    first line of each public docstring (so the generation really ran)."""
    import inspect

    import sliding_window_agg as swa

    with open(os.path.join(ROOT, "docs", "python-reference.md")) as f:
        page = f.read()
    headings = {line[3:].strip() for line in page.splitlines() if line.startswith("## ")}
    directives = {line[4:].strip() for line in page.splitlines() if line.startswith("::: ")}
    missing = [name for name in swa.__all__
               if name not in headings or f"sliding_window_agg.{name}" not in directives]
    assert not missing, f"no '## name' section with '::: sliding_window_agg.name': {missing}"

    built = _text((site / "python-reference" / "index.html").read_text())
    not_rendered = []
    for name in swa.__all__:
        obj = getattr(swa, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            first = inspect.getdoc(obj).splitlines()[0]
            if _letters(first) not in built:
                not_rendered.append((name, first))
    assert not not_rendered, f"docstrings not rendered in the Python reference: {not_rendered}"
    assert _letters("The value for spark.sql.extensions") in built  # EXTENSION_CLASS's attribute docstring
