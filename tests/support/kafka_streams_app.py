"""Kafka Streams' own `SlidingWindows` on a topic, in a JVM of its own: the program
tests/support/kafka_streams/KafkaStreamsSlidingWindows.java, compiled with the JDK's javac
against kafka-streams from the machine's Maven repository (buildtools/maven_classpath.py) into
build/kafka-streams-app/<digest of the source and the classpath>/, once."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from typing import List, Tuple

from kafka_broker import JAVA_OPTIONS, ROOT
from buildtools import maven_classpath

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kafka_streams", "KafkaStreamsSlidingWindows.java")
MAIN = "KafkaStreamsSlidingWindows"


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    return os.path.join(home, "bin", name) if home else name


def compiled() -> List[str]:
    """The program's classpath: its classes, then kafka-streams' jars."""
    jars = maven_classpath.classpath("kafka-streams", maven_classpath.KAFKA_STREAMS)
    with open(SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read() + os.pathsep.join(jars).encode()).hexdigest()[:12]
    classes = os.path.join(ROOT, "build", "kafka-streams-app", digest)
    if not os.path.isdir(classes):
        os.makedirs(os.path.dirname(classes), exist_ok=True)
        work = tempfile.mkdtemp(dir=os.path.dirname(classes))
        result = subprocess.run([_tool("javac"), "-d", work, "-cp", os.pathsep.join(jars), SOURCE],
                                capture_output=True, text=True)
        if result.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            raise RuntimeError(f"javac failed on {SOURCE}:\n{result.stderr[-4000:]}")
        try:
            os.rename(work, classes)
        except OSError:  # compiled at the same time by another process
            shutil.rmtree(work, ignore_errors=True)
    return [classes, *jars]


def sliding_windows(bootstrap: str, topic: str, records: str, size_ms: int, grace_ms: int,
                    folder: str) -> Tuple[List[dict], int]:
    """Writes the records of the file `records` to `topic` (created with one partition) and runs
    Kafka Streams' sliding windows of `size_ms` and `grace_ms` on it, emitted on window close:
    the windows it emitted ({"key", "start", "end", "n", "sum", "ids"}, bounds in ms, both
    inclusive) and its dropped-records-total."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "kafka-streams.log"), "w") as log:
        result = subprocess.run([_tool("java"), *JAVA_OPTIONS, "-cp", os.pathsep.join(compiled()), MAIN,
                                 bootstrap, topic, records, str(size_ms), str(grace_ms),
                                 os.path.join(folder, "state")],
                                stdout=subprocess.PIPE, stderr=log, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"Kafka Streams failed (exit {result.returncode}): see {log.name}")
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return [w for w in lines if "dropped" not in w], lines[-1]["dropped"]
