"""Every page that repeats a fact of the project states it as its one source does.

Where the facts live:
- python/sliding_window_agg/_supported.py: the supported Spark versions (SPARK_VERSIONS), the
  Scala of each (SCALA_BINARY), the jar names (jar_file_name), the pyspark each is built and
  tested with (TESTED_PYSPARK), the default Spark (DEFAULT_SPARK), the pyspark range of the
  `spark` extra (PYSPARK_REQUIREMENT) and the extension class (EXTENSION_CLASS);
- scala/src/main: the `spark.sql.slidingWindow.*` settings (the string constants their readers
  use); docs/user-guide.md is their reference, internal ones (doc comment "Internal") are
  documented in docs/architecture.md.

The checks read README.md, docs/, docs/examples/, the package's modules (docstrings, messages
and literals), Makefile, pyproject.toml, setup.py, build.sbt, project/ and buildtools/ as text:
jar names, lists and ranges of Spark versions, pinned pyspark releases and the pyspark range,
Scala versions tied to a Spark version, the extension class, the settings. A list of Spark
versions states the supported ones when it follows a claim ("Apache Spark", "runs on",
"supports", ...), has four versions or more, or is a quoted tuple in code: it must then be all of
them (or, for `make test`'s other runs, all but the default). A range starting at the oldest
must end at the newest. Lists and ranges of unsupported versions only are history, not checked.
PLANTED, at the end, plants a wrong fact in a sentence for each check.
"""
import importlib.util
import json
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_supported",
                                               ROOT / "python/sliding_window_agg/_supported.py")
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSIONS = list(S.SPARK_VERSIONS)
OTHERS = [v for v in VERSIONS if v != S.DEFAULT_SPARK]
PAGES = sorted(
    [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / "setup.py", ROOT / "build.sbt"]
    + [p for g in ("docs/*.md", "docs/examples/*", "python/sliding_window_agg/*.py", "buildtools/*.py",
                   "project/*.scala") for p in ROOT.glob(g) if p.is_file()])

V = r"(?<![\w.=<>])[3-9]\.(?:\d|x)(?![\w]|\.\d)"  # a Spark minor version, or 4.x
P = r"(?<![\w.])[3-9]\.\d\.\d+(?![\w]|\.\d)"     # a patch release
SEP = r"(?:,\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+)"
CLAIM = (r"(?:Apache Spark|runs (?:on|with)|supports|supported|works with|your Spark|patch release of"
         r"|Spark is not)")


def versions(text):
    return re.findall(V, text)


def supported_list(listed, allow_others=False):
    """None if `listed` (minor versions) states the supported ones, else what is wrong."""
    concrete = [v for v in listed if not v.endswith("x")]
    if listed == VERSIONS or (allow_others and listed == OTHERS):
        return None
    if concrete and not set(concrete) & set(VERSIONS):
        return None  # only unsupported versions: history
    return f"lists Spark {', '.join(listed)}; the supported ones are {', '.join(VERSIONS)}"


MISMATCH_MESSAGE = re.compile(r"WINDOW_JAR_FOR_ANOTHER_SPARK|SparkVersionMismatchError|SparkVersionWarning")


def check_version_lists(text):
    """Lists and ranges of Spark minor versions, the default one, the number of jars."""
    for m in re.finditer(rf"{CLAIM}\b[^\n.()]{{0,40}}?\(?({V}(?:{SEP}{V})*)", text):
        yield m.start(1), supported_list(versions(m.group(1)))
    for m in re.finditer(rf"{V}(?:{SEP}{V}){{3,}}", text):
        yield m.start(), supported_list(versions(m.group()), allow_others=True)
    for m in re.finditer(rf'[(\[]\s*"{V}"(?:\s*,\s*"{V}")+\s*,?\s*[)\]]', text):
        yield m.start(), supported_list(versions(m.group()), allow_others=True)
    for m in re.finditer(r"OTHER_SPARKS\s*:?=\s*(.*)", text):
        yield m.start(), None if m.group(1).split() == OTHERS else f"OTHER_SPARKS is not {OTHERS}"
    for m in re.finditer(rf"({V})\s*(?:to|through|–|—)\s*(?:Spark\s+)?({V})|Spark\s+({V})-({V})", text):
        a, b = [g for g in m.groups() if g]
        ends = [v for v in (a, b) if not v.endswith("x")]
        if not set(ends) & set(VERSIONS):
            continue
        bad = [v for v in ends if v not in VERSIONS] or (
            a == VERSIONS[0] and b != VERSIONS[-1] and not b.endswith("x"))
        yield m.start(), bad and f"range {a} to {b}; the supported ones are {VERSIONS[0]} to {VERSIONS[-1]}"
    for m in re.finditer(rf"(?:compiled|built) (?:for|against|with)(?: Scala [\d.]+)?(?: against| for)? "
                         rf"Spark ((?:{V}|{P})(?:{SEP}(?:{V}|{P}))*)", text):
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.start())]
        if MISMATCH_MESSAGE.search(line):
            continue  # the quoted message of a jar of another Spark names that one
        listed = [".".join(v.split(".")[:2]) for v in re.findall(rf"{P}|{V}", m.group(1))]
        yield m.start(), supported_list(listed) and f"there is a jar for each supported Spark, not {m.group(1)}"
    for m in re.finditer(rf"({V}) (?:by default|\(the default\))|DEFAULT\w* = \"({V})\""
                         rf"|\"sparkVersion\", \"({V})\"", text):
        v = next(g for g in m.groups() if g)
        yield m.start(), v != S.DEFAULT_SPARK and f"default Spark {v}, not {S.DEFAULT_SPARK}"
    words = "one two three four five six seven eight nine ten".split()
    for m in re.finditer(rf"\b({'|'.join(words)}) jars\b|\ball ({'|'.join(words)})(?=[),.;])", text):
        n = m.group(1) or m.group(2)
        yield m.start(), words.index(n) + 1 != len(VERSIONS) and f"{len(VERSIONS)} jars, not {n}"


def check_pyspark(text):
    """Pinned pyspark releases, the pyspark range, the build requirements and dependencies."""
    def tested(patch):
        minor = ".".join(patch.split(".")[:2])
        return None if S.TESTED_PYSPARK.get(minor) == patch else \
            f"pyspark {patch} is not one the jars are built with ({', '.join(S.TESTED_PYSPARK.values())})"
    for m in re.finditer(rf"(?:\bpyspark(?:\[[\w,]+\])?(?:==| )|spark\.version=|SparkVersionSpec\(\")({P})",
                         text):
        yield m.start(), tested(m.group(1))
    for m in re.finditer(rf"{P}(?:{SEP}{P})+", text):
        patches = re.findall(P, m.group())
        yield m.start(), next(filter(None, map(tested, patches)), None) or (
            len(patches) >= 4 and patches != list(S.TESTED_PYSPARK.values()) and "not every tested pyspark")
    for m in re.finditer(r'"([3-9]\.\d)": "(\d\.\d+(?:\.\d+)?)"', text):
        minor, value = m.groups()
        source = S.TESTED_PYSPARK if value.count(".") == 2 else S.SCALA_BINARY
        yield m.start(), source.get(minor) != value and f"{minor}: {value}, not {source.get(minor)}"
    for m in re.finditer(r"pyspark\s*>=\s*[\d.]+\s*,\s*<\s*[\d.]+", text):
        yield m.start(), re.sub(r"\s", "", m.group()) != S.PYSPARK_REQUIREMENT and f"not {S.PYSPARK_REQUIREMENT}"
    # pyproject.toml's build requirements and dependencies, as pages describe them
    for m in re.finditer(rf"pyspark(?:==| )({P})`?[^.]{{0,30}}?build requirement"
                         rf"|build\s+requirements?[^.]{{0,40}}?pyspark==({P})", text):
        pin = f"pyspark=={m.group(1) or m.group(2)}"
        yield m.start(), pin not in PYPROJECT["build-system"]["requires"] and f"{pin} is no build requirement"
    for m in re.finditer(rf"pyspark(?:[ =]+{P})?[^.]{{0,40}}?runtime dependency", text):
        runtime = any(d.startswith("pyspark") for d in PYPROJECT["project"]["dependencies"])
        yield m.start(), not runtime and "pyspark is no runtime dependency (only of the `spark` extra)"


def check_scala(text):
    """A Scala version next to the Spark version it is tied to, in either order."""
    for m in re.finditer(r"Scala (2\.\d+)[^.\n]{0,40}?Spark (\d(?:\.\d)?)"
                         r"|Spark (\d(?:\.\d)?)[^.\n]{0,25}?Scala (2\.\d+)|\b(2\.\d+) \(Spark (\d(?:\.\d)?)\)"
                         r"|SparkVersionSpec\(\"(\d\.\d)\.\d+\", \"(2\.\d+)", text):
        g = [x for x in m.groups() if x]
        scala, spark = (g[0], g[1]) if g[0].startswith("2.") else (g[1], g[0])
        expected = {b for v, b in S.SCALA_BINARY.items() if v == spark or v.startswith(spark + ".")}
        yield m.start(), expected and expected != {scala[:4]} and f"Spark {spark}'s Scala is {expected}, not {scala}"


def check_jars(text):
    """Jar names: a real one, a placeholder (<spark>, {minor}, <sliding-window-agg.jar>) or a test jar."""
    real = {S.jar_file_name(v) for v in VERSIONS}
    for m in re.finditer(r"<?sliding[-_]window[-_]agg[\w.<>{}*-]*?\.jar(?![\w])>?", text):
        name = m.group().split("/")[-1]
        ok = (name in real or name.startswith("<") and name.endswith(">")
              or re.fullmatch(r"sliding-window-agg(-tests)?_[<{][^_]+[>}]_[<{][^_]+[>}]\.jar", name)
              or re.fullmatch(r"sliding-window-agg-tests_[\d.]+_[\d.]+\.jar", name)
              and name.replace("-tests", "") in real)
        yield m.start(), not ok and f"{name} is no jar the build makes ({S.jar_file_name(VERSIONS[-1])}, ...)"


# Another project's extension that pages show beside this one in spark.sql.extensions.
OTHER_EXTENSIONS = {"io.delta.sql.DeltaSparkSessionExtension"}


def check_extension(text):
    """The extension class, qualified or not, and any class given to spark.sql.extensions (but
    OTHER_EXTENSIONS)."""
    for m in re.finditer(r"\b(?:[a-z]\w*\.)+\w*SlidingWindow\w*Extensions?\b|(?<![\w.])SlidingWindow\w*Extensions?\b"
                         r"|spark\.sql\.extensions[\"']?\s*[=,]\s*[\"']?((?:[a-z]\w*\.)+[A-Z]\w*)", text):
        name, full = m.group(1) or m.group(), S.EXTENSION_CLASS
        yield m.start(), name not in (full, full.rsplit(".", 1)[1], *OTHER_EXTENSIONS) and f"{name} is not {full}"


def check_table_rows(text):
    """The rows of a table by Spark version (`| 3.5.x | ... |`) name that version's jar, Scala, pyspark."""
    for m in re.finditer(r"^\|\s*([3-9]\.\d)\.x\s*\|(.*)$", text, re.M):
        minor, row = m.groups()
        stated = re.findall(r"sliding-window-agg_(\d\.\d)_|pyspark (\d\.\d)\.", row)
        wrong = {a or b for a, b in stated} - {minor}
        scala = re.findall(r"\|\s*(2\.\d+)\s*(?=\|)", row)
        yield m.start(), (wrong and f"the {minor}.x row names Spark {wrong}" or scala and
                          scala != [S.SCALA_BINARY[minor]] and f"the {minor}.x row's Scala is not {S.SCALA_BINARY[minor]}")


CHECKS = [check_version_lists, check_pyspark, check_scala, check_jars, check_extension, check_table_rows]


def problems(check, text):
    return sorted({(text.count("\n", 0, at) + 1, why) for at, why in check(text) if why})


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_pages_state_the_facts(check):
    found = [f"{p.relative_to(ROOT)}:{line}: {why}"
             for p in PAGES for line, why in problems(check, p.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_supported_facts_agree():
    assert list(S.SCALA_BINARY) == VERSIONS == list(S.TESTED_PYSPARK) and S.DEFAULT_SPARK in VERSIONS
    major, minor = map(int, VERSIONS[-1].split("."))
    assert S.PYSPARK_REQUIREMENT == f"pyspark>={VERSIONS[0]},<{major}.{minor + 1}"
    assert PYPROJECT["project"]["optional-dependencies"]["spark"] == [S.PYSPARK_REQUIREMENT]
    pins = [r for r in PYPROJECT["build-system"]["requires"] + ["pyspark"] if r.startswith("pyspark")]
    assert pins[0] in ("pyspark", f"pyspark=={S.TESTED_PYSPARK[S.DEFAULT_SPARK]}")  # none, or the default's
    # build.sbt's Spark and Scala versions (each pair: check_pyspark, check_scala)
    specs = re.findall(r'SparkVersionSpec\("(\d\.\d)\.\d+"', (ROOT / "project/CrossSparkVersions.scala").read_text())
    assert specs == VERSIONS
    package, cls = S.EXTENSION_CLASS.rsplit(".", 1)
    source = ROOT / "scala/src/main/scala" / package.replace(".", "/") / f"{cls}.scala"
    assert f"class {cls} " in source.read_text()


def settings_problems(code, pages, reference, docs):
    """`code`: the Scala sources; `pages`: {name: text} of the pages; `reference`: docs/user-guide.md;
    `docs`: all of docs/. What is wrong with the settings they name."""
    def named(text):
        return set(re.findall(r"spark\.sql\.slidingWindow(?:\.[A-Za-z]\w*)+", text))
    real = set(re.findall(r"\"(spark\.sql\.slidingWindow(?:\.\w+)+)\"", code))
    internal = {c for c in real if re.search(r"Internal\b[^/]*\*/\s*val \w+ = \"" + re.escape(c), code)}
    return ([f"{page} names {c}, which scala/src/main does not read"
             for page, t in pages.items() for c in named(t) - real]
            + [f"{c} is not in the settings of docs/user-guide.md" for c in real - internal - named(reference)]
            + [f"internal {c} is in no page of docs/" for c in internal - named(docs)]
            + [f"internal {c} is in the user's settings of docs/user-guide.md"
               for c in internal & named(table_rows(reference))])


def table_rows(page):
    """The rows of a page's tables that name a setting in their first cell."""
    return "\n".join(line for line in page.splitlines() if re.match(r"\| `spark\.", line))


def test_settings_are_real_and_documented():
    code = "\n".join(p.read_text() for p in sorted((ROOT / "scala/src/main").rglob("*.scala")))
    pages = {str(p.relative_to(ROOT)): p.read_text() for p in PAGES if p.suffix != ".scala"}
    docs = "\n".join(t for name, t in pages.items() if name.startswith("docs/"))
    assert not settings_problems(code, pages, pages["docs/user-guide.md"], docs)


def test_settings_check_catches_a_planted_wrong_setting():
    code = 'val a = "spark.sql.slidingWindow.a.b"\n/** Internal, for tests. */\nval b = "spark.sql.slidingWindow.c"'
    assert settings_problems(code, {"p": "`spark.sql.slidingWindow.a.b`"}, "spark.sql.slidingWindow.a.b",
                             "spark.sql.slidingWindow.c") == []
    wrong = settings_problems(code, {"p": "spark.sql.slidingWindow.a.bb"}, "spark.sql.slidingWindow.c", "")
    assert len(wrong) == 3  # not read, not in the reference, internal one nowhere
    in_table = settings_problems(code, {}, "| `spark.sql.slidingWindow.a.b` |\n| `spark.sql.slidingWindow.c` |", "")
    assert in_table == ["internal spark.sql.slidingWindow.c is in no page of docs/",
                        "internal spark.sql.slidingWindow.c is in the user's settings of docs/user-guide.md"]


# Each check on a right sentence and on the same sentence with one fact wrong.
PLANTED = [
    (check_version_lists, "an extension for Apache Spark 3.5, 4.0, 4.1, 4.2 and 4.3 that", "Apache Spark 4.3 that"),
    (check_version_lists, "runs on Spark **3.5, 4.0, 4.1, 4.2 and 4.3**", "runs on Spark **3.5, 4.0, 4.1 and 4.2**"),
    (check_version_lists, "tests on 3.5, 4.0, 4.1 and 4.2, each in", "tests on 3.5, 4.0, 4.1, 4.2 and 4.4, each"),
    (check_version_lists, "on a later Spark (3.5 to 4.3)", "on a later Spark (3.5 to 4.2)"),
    (check_version_lists, "Spark 3.0 to 3.4 had none; Spark 4.0 to 4.3", "Spark 3.5-4.4"),
    (check_version_lists, 'SPARK_MINORS = ("3.5", "4.0", "4.1", "4.2", "4.3")', 'X = ("3.5", "4.0", "4.1")'),
    (check_version_lists, "OTHER_SPARKS := 3.5 4.0 4.1 4.2", "OTHER_SPARKS := 3.5 4.0 4.1"),
    (check_version_lists, "compiled for Scala 2.13 against Spark 3.5, 4.0, 4.1, 4.2 and 4.3",
     "It is compiled for Scala 2.13 against Spark 4.3.0."),
    (check_version_lists, '3.5, 4.0, 4.1, 4.2 or 4.3 (the default); DEFAULT = "4.3"', 'DEFAULT = "4.2"'),
    (check_version_lists, "carries the five jars (`make wheel`'s carries all five)", "`make wheel`'s carries all four)"),
    (check_pyspark, "'pyspark[connect]==4.3.0', tested with pyspark 3.5.9", "tested with pyspark 3.5.8"),
    (check_pyspark, "| 3.5.9, 4.0.5, 4.1.4, 4.2.1, 4.3.0 (the versions", "| 3.5.9, 4.0.5, 4.1.3, 4.2.1, 4.3.0"),
    (check_pyspark, 'PYSPARK = {"3.5": "3.5.9", "4.0": "4.0.5"}; pyspark-client 4.2.0', '{"4.0": "4.0.4"}'),
    (check_pyspark, "`pyspark>=3.5,<4.4`", "`pyspark>=3.5,<4.3`"),
    (check_pyspark, "installs the build requirements (`setuptools`)", "a build requirement is `pyspark==3.5.9`"),
    (check_pyspark, "pyspark 4.3.0 is installed", "pyspark 4.3.0 is a runtime dependency"),
    (check_pyspark, 'SparkVersionSpec("4.2.1", "2.13.18", "17")', 'SparkVersionSpec("4.2.0", "2.13.18", "17")'),
    (check_scala, "Spark 3.5 (Scala 2.12) clusters; 2.13 (Spark 4) Java 17", "Spark 3.5 (Scala 2.13) clusters"),
    (check_scala, 'SparkVersionSpec("3.5.9", "2.12.18", "8")', 'SparkVersionSpec("3.5.9", "2.13.16", "8")'),
    (check_pyspark, 'SCALA = {"3.5": "2.12", "4.0": "2.13"}', 'SCALA = {"4.0": "2.12"}'),
    (check_jars, "`sliding-window-agg_3.5_2.12.jar`, PLACEHOLDER = \"<sliding-window-agg.jar>\"",
     "bundles the jar, `sliding_window_agg/jars/sliding-window-agg.jar`, into"),
    (check_jars, "sliding-window-agg_<spark>_<scala>.jar, f\"sliding-window-agg_{minor}_{binary}.jar\"",
     "--jars sliding-window-agg_4.3_2.12.jar"),
    (check_jars, "build/test-jars/sliding-window-agg-tests_<spark>_<scala>.jar; swa.jar_path()",
     "build/test-jars/sliding-window-agg-tests.jar"),
    (check_extension, '.config("spark.sql.extensions", "org.apache.spark.sql.slidingwindow.SlidingWindowExtensions")',
     "--conf spark.sql.extensions=org.apache.spark.sql.slidingwindow.SlidingWindowExtension"),
    (check_extension, "spark.sql.extensions=... ; `SlidingWindowExtensions` (the class)",
     ".config('spark.sql.extensions', 'io.github.slidingwindowagg.Extensions')"),
    (check_extension, "`SlidingWindowExtensions.slidingWindowFunction`", "`SlidingWindowExtension` (the class)"),
    (check_table_rows, "| 3.5.x | `sliding-window-agg_3.5_2.12.jar` | 2.12 | 8 or later | pyspark 3.5.9 |",
     "| 4.0.x | `sliding-window-agg_4.0_2.13.jar` | 2.13 | 17 | pyspark 4.1.4 |"),
    (check_table_rows, "| 4.0.x | `sliding-window-agg_4.0_2.13.jar` | 2.13 | 17 |",
     "| 3.5.x | `sliding-window-agg_3.5_2.12.jar` | 2.13 | 8 |"),
]


@pytest.mark.parametrize("check, right, wrong", PLANTED, ids=lambda x: getattr(x, "__name__", None))
def test_checks_catch_a_planted_wrong_fact(check, right, wrong):
    assert problems(check, right) == []
    assert problems(check, wrong)


def install_block(page: str) -> str:
    """The command block under `<!-- install -->` in a page."""
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- install -->\s*\n```bash\n(.*?)\n```", text, flags=re.S)
    assert len(blocks) == 1, f"{page} has {len(blocks)} install blocks"
    return blocks[0]


def test_readme_and_getting_started_install_the_same_way():
    """The README's install commands are the ones of docs/getting-started.md, which explains them."""
    assert install_block("README.md") == install_block("docs/getting-started.md")
    assert "pip install" in install_block("README.md")
    pages = [p for p in PAGES if p.suffix == ".md"]
    pypi = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in pages
            for m in re.finditer(r"pip install '?sliding-window-agg\b.*", p.read_text(encoding="utf-8"))]
    assert not pypi, "the package is not on PyPI:\n" + "\n".join(pypi)


# What works where (README.md and docs/index.md show it as a table): for each window kind and
# place, the test that runs it there, or the error condition that refuses it. A "yes" in a table
# needs a test here that exists; a "no" names its condition, which the extension must raise.
WHAT_WORKS_WHERE_COLUMNS = ["batch", "streaming, append", "streaming, update", "SQL", "Spark Connect",
                            "Declarative Pipelines (Spark 4.1+)"]
DP = "test_declarative_pipelines.py::test_each_run_emits_the_closed_windows_and_with_close_at_end_of_input_the_tail"
CONNECT = "test_spark_connect.py::test_connect_client_runs_window_functions"
WHAT_WORKS_WHERE = {
    "`sliding_window`": [
        "test_sliding_batch.py::test_spec_example_table",
        "test_sliding_streaming.py::test_random_streams_match_reference",
        "test_sliding_streaming.py::test_random_streams_match_reference",
        "test_sliding_batch.py::test_sql_and_dataframe_forms_agree",
        CONNECT, DP],
    "`batch_window`": [
        "test_batch_window.py::test_time_order_matches_reference_and_tumbling_window",
        "test_batch_window_streaming.py::test_random_streams_match_the_simulation",
        "test_batch_window_streaming.py::test_random_streams_match_the_simulation",
        DP, CONNECT, DP],
    "trailing windows (`agg OVER (... RANGE BETWEEN <size> PRECEDING AND CURRENT ROW)`)": [
        "test_trailing_windows_batch.py::test_trailing_frames_equal_the_definition_and_sparks_own_window",
        "test_trailing_windows_streaming.py::test_random_streams",
        "WINDOW_STREAMING_TRAILING_OUTPUT_MODE",
        "test_trailing_windows_streaming.py::test_sql_window_clause",
        "test_spark_connect.py::test_connect_client_runs_trailing_windows_on_a_stream", DP],
}


def what_works_where_table() -> str:
    rows = [f"| window kind | {' | '.join(WHAT_WORKS_WHERE_COLUMNS)} |",
            "|" + "---|" * (len(WHAT_WORKS_WHERE_COLUMNS) + 1)]
    for kind, evidence in WHAT_WORKS_WHERE.items():
        cells = ["yes" if "::" in e else f"no (`{e}`)" for e in evidence]
        rows.append(f"| {kind} | {' | '.join(cells)} |")
    return "\n".join(rows)


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_what_works_where_is_the_tested_table(page):
    """The page's table is the one WHAT_WORKS_WHERE gives, cell by cell."""
    text = (ROOT / page).read_text(encoding="utf-8")
    marker = "<!-- what works where: tests/test_docs_facts.py, WHAT_WORKS_WHERE -->\n"
    assert marker in text, f"{page} has no what-works-where table"
    shown = text.split(marker, 1)[1].split("\n\n", 1)[0].strip()
    assert shown == what_works_where_table()


def test_what_works_where_rests_on_tests_and_conditions_that_exist():
    conditions = json.loads((ROOT / "scala/src/main/resources/error/sliding-window-error-conditions.json").read_text())
    for kind, evidence in WHAT_WORKS_WHERE.items():
        assert len(evidence) == len(WHAT_WORKS_WHERE_COLUMNS), kind
        for e in evidence:
            if "::" in e:
                module, test = e.split("::")
                assert f"def {test}(" in (ROOT / "tests" / module).read_text(), f"{kind}: no test {e}"
            else:
                assert e in conditions, f"{kind}: no error condition {e}"
