# One command each: `make demo` sets up and runs the main example, `make test` runs every test.
PYTHON ?= python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup demo test test-fast docs bench wheel

# Two tiers (docs/development.md, "Test tiers"). `make test-fast`, for every change: the tests
# not marked slow, on Spark 4.3 (the Python tests without a JVM, the ScalaTest suites with the operator
# harness (run by sbt), the integration tests on the shared session), in a few minutes.
# `make test` runs the whole suite on Spark 4.3, then the every_spark tests on each other
# supported Spark, each in its own virtualenv (build/venvs/spark-X.Y, buildtools/spark_env.py).
# The tests marked other_sparks_jars run last, on 4.3, with the jars those runs built.
# `make test SPARK=3.5` runs the whole suite on that one Spark.
# Two pytest workers (pytest-xdist), each with its Spark session: much of a test is waiting (for a
# micro-batch's trigger, a JVM's start), which the other worker's test fills. The tests of a
# module with a costly module fixture, and those that bind Spark Connect's default port, are kept
# on one worker (their xdist_group mark).
SPARK ?=
OTHER_SPARKS := 3.5 4.0 4.1 4.2
WORKERS ?= 2
PYTEST_WORKERS := -n $(WORKERS) --dist loadgroup

# JDK 17 and Maven (which resolves sbt, ScalaTest, Kafka and Spark's connector and test jars from
# the machine's Maven repository) from Debian (apt-get, as root or with sudo), then the package, editable,
# with pyspark 4.3.0 and the test tools, and its jar for Spark 4.3 (rebuilt when a source changes).
setup:
	@command -v java >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq openjdk-17-jdk-headless; }
	@command -v mvn >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq maven; }
	$(PYTHON) -m pip install -q -e '.[spark,test]' 'pyspark[connect]==4.3.0' 'pandas>=2,<3' pyarrow
	$(PYTHON) buildtools/scala_build.py > /dev/null

# The demo needs a JDK, the package with pyspark and its jar: nothing of the tests' (no Maven, no
# test tools), and nothing on screen but the demo's own output and what pip must say.
demo:
	@command -v java >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless > /dev/null; }
	@$(PYTHON) -m pip install -q --disable-pip-version-check --root-user-action=ignore -e '.[spark]'
	@$(PYTHON) buildtools/scala_build.py > /dev/null
	@$(PYTHON) -m sliding_window_agg.demo

test-fast: setup
	SWA_HARNESS_STREAMS=8 $(PYTHON) -m pytest $(PYTEST_WORKERS) -m 'not slow and not other_sparks_jars'

test: setup
ifeq ($(SPARK),)
	@mkdir -p build
	@# The other versions' virtualenvs and jars are made (downloads, compiles) while 4.3's tests run.
	@$(PYTHON) buildtools/spark_env.py --prepare $(OTHER_SPARKS) > build/spark-envs.log 2>&1 & \
	  $(PYTHON) -m pytest $(PYTEST_WORKERS) -m 'not other_sparks_jars' --junitxml=build/test-results/spark-4.3.xml; status=$$?; \
	  wait $$! || { echo "creating the Spark virtualenvs failed: see build/spark-envs.log"; exit 1; }; \
	  exit $$status
	@for v in $(OTHER_SPARKS); do $(PYTHON) buildtools/spark_env.py $$v -- -m every_spark -q $(PYTEST_WORKERS) --junitxml=build/test-results/spark-$$v.xml || exit 1; done
	@# The tests that give Spark 4.3 another Spark's jar, now that each has been built above.
	SWA_OTHER_SPARKS_JARS=built $(PYTHON) -m pytest -q -m other_sparks_jars --junitxml=build/test-results/other-sparks-jars.xml
else
	$(PYTHON) buildtools/spark_env.py $(SPARK) -- -q $(PYTEST_WORKERS)
endif

# The release wheel: one jar per supported Spark (each built in its version's virtualenv).
wheel: setup
	$(PYTHON) buildtools/spark_env.py --all-jars
	$(PYTHON) -m pip wheel . --no-deps --no-build-isolation -w dist

docs: setup
	$(PYTHON) -m mkdocs build --strict -d build/site

# The batch benchmark of docs/performance.md (about 20 minutes); see benchmarks/ for the others.
bench: setup
	$(PYTHON) -m benchmarks.batch
