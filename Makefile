# One command each: `make demo` sets up and runs the main example, `make test` runs every test.
PYTHON ?= python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup demo test docs bench

# JDK 17 and JUnit 4 from Debian, then the package (its install compiles and bundles the jar).
setup:
	@command -v java >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq openjdk-17-jdk-headless; }
	@[ -f /usr/share/java/junit4.jar ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq junit4; }
	$(PYTHON) -m pip install -q -e '.[spark,test]' 'pyspark[connect]==4.3.0' 'pandas>=2,<3' pyarrow

demo: setup
	$(PYTHON) -m sliding_window_agg.demo

test: setup
	$(PYTHON) -m pytest

docs: setup
	$(PYTHON) -m mkdocs build --strict -d build/site

# The batch benchmark of docs/performance.md (about 20 minutes); see benchmarks/ for the others.
bench: setup
	$(PYTHON) -m benchmarks.batch
