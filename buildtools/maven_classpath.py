"""Jars from the machine's Maven repository, resolved by the machine's own `mvn` (its settings, its
mirror: no repository address is written in the checkout), for what the tests run beside Spark:

    python3 buildtools/maven_classpath.py kafka-broker      # prints the classpath

Each set is a list of Maven coordinates with their runtime dependencies, resolved once into
build/maven/<name>.cp (Maven keeps the jars in its own repository, ~/.m2, between runs).
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "build", "maven")

# A Kafka broker (KRaft, no ZooKeeper) for the tests' topics, with a logger of its own.
KAFKA_BROKER = ["org.apache.kafka:kafka_2.13:4.1.2", "org.slf4j:slf4j-simple:1.7.36"]

# Kafka Streams, for the side-by-side comparison of docs/kafka-migration.md: the broker's version. It
# runs in a JVM of its own (Spark's classpath carries kafka-clients 3.x, kafka-streams 4.x wants 4.x).
KAFKA_STREAMS = ["org.apache.kafka:kafka-streams:4.1.2", "org.slf4j:slf4j-simple:1.7.36"]

# Spark's Kafka connector per Spark minor version: the newest patch of it the project's machines are
# served (project/CrossSparkVersions.scala's mavenVersion), with its token provider where that
# patch's is not served (4.0.4's and 4.1.3's: the newest served, 4.0.0's and 4.1.1's, named beside it
# override the connector's own). Spark 4.3's is not served: its connector is 4.2's, which reads
# and writes topics on 4.3 as on 4.2.
KAFKA_CONNECTOR = {
    "3.5": ["org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.7"],
    "4.0": ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.4",
            "org.apache.spark:spark-token-provider-kafka-0-10_2.13:4.0.0"],
    "4.1": ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.3",
            "org.apache.spark:spark-token-provider-kafka-0-10_2.13:4.1.1"],
    "4.2": ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0"],
    "4.3": ["org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0"],
}

# Delta Lake per Spark minor version: since Delta 4.1 one artifact per Spark (delta-spark_<minor>_2.13).
# None for Spark 4.3: the machine's repository serves no Delta build for it, and 4.2's fails
# MERGE there (NoSuchMethodError on LogicalRDD's constructor).
DELTA = {
    "3.5": "io.delta:delta-spark_2.12:3.3.3",
    "4.0": "io.delta:delta-spark_4.0_2.13:4.4.0",
    "4.1": "io.delta:delta-spark_4.1_2.13:4.4.0",
    "4.2": "io.delta:delta-spark_4.2_2.13:4.4.0",
}
DELTA_MISSING = {"4.3": "no Delta Lake build for Spark 4.3 on the machine's Maven repository "
                        "(Delta 4.4.0 for Spark 4.2 fails MERGE on 4.3)"}

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local</groupId><artifactId>{name}</artifactId><version>0</version><packaging>pom</packaging>
<dependencyManagement><dependencies>{dependencies}</dependencies></dependencyManagement>
<dependencies>{dependencies}</dependencies></project>
"""
_DEPENDENCY = "<dependency><groupId>{}</groupId><artifactId>{}</artifactId><version>{}</version></dependency>"


def classpath(name: str, coordinates: List[str]) -> List[str]:
    """The jars of `coordinates` (group:artifact:version) and of their runtime dependencies."""
    digest = hashlib.sha256("\n".join(coordinates).encode()).hexdigest()[:12]
    folder = os.path.join(FOLDER, f"{name}-{digest}")
    out = os.path.join(folder, "classpath.txt")
    if not os.path.exists(out):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "pom.xml"), "w", encoding="utf-8") as f:
            f.write(_POM.format(name=name, dependencies="".join(_DEPENDENCY.format(*c.split(":")) for c in coordinates)))
        result = subprocess.run(["mvn", "-B", "-q", "dependency:build-classpath", f"-Dmdep.outputFile={out}.tmp",
                                 "-Dmdep.includeScope=runtime"], cwd=folder, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"mvn could not resolve {coordinates}:\n{result.stdout[-3000:]}{result.stderr[-2000:]}")
        os.replace(f"{out}.tmp", out)
    with open(out, encoding="utf-8") as f:
        return [p for p in f.read().strip().split(os.pathsep) if p]


def artifact(jar: str) -> str:
    """A jar's artifact, without its version: `kafka-clients` of kafka-clients-3.9.2.jar."""
    base = os.path.basename(jar)
    found = re.match(r"^(.*?)-\d[\w.\-]*\.jar$", base)
    return found.group(1) if found else base


def beside(jars: List[str], spark_jars: str) -> List[str]:
    """`jars` less those Spark's jars folder has already, in any version (Scala, Hadoop, ...)."""
    have = {artifact(j) for j in os.listdir(spark_jars) if j.endswith(".jar")}
    return [j for j in jars if artifact(j) not in have]


def spark_jars(name: str, coordinates: List[str], spark_jars: str) -> str:
    """`coordinates`' jars that Spark's jars folder lacks, comma separated for `spark.jars`."""
    return ",".join(beside(classpath(name, coordinates), spark_jars))


def kafka_connector(minor: str, spark_jars_folder: str) -> str:
    """Spark's Kafka connector for Spark `minor` whose jars folder is `spark_jars_folder`, for `spark.jars`."""
    return spark_jars(f"kafka-connector-{minor}", KAFKA_CONNECTOR[minor], spark_jars_folder)


# ScalaTest, for the Scala test tree that buildtools/scala_build.py compiles into the test jar (the
# version build.sbt's tests run with), of the Scala binary version of the Spark compiled against.
SCALATEST_VERSION = "3.2.19"


def scalatest(scala_binary: str) -> List[str]:
    return [f"org.scalatest:scalatest_{scala_binary}:{SCALATEST_VERSION}"]


SETS: Dict[str, List[str]] = {"kafka-broker": KAFKA_BROKER, "kafka-streams": KAFKA_STREAMS,
                              "scalatest-2.12": scalatest("2.12"), "scalatest-2.13": scalatest("2.13")}

if __name__ == "__main__":
    print(os.pathsep.join(classpath(sys.argv[1], SETS[sys.argv[1]])))
