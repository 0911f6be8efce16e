"""A Kafka broker for the tests' topics: one KRaft process (broker and controller, no ZooKeeper)
on loopback ports of its own, from the jars of the machine's Maven repository
(buildtools/maven_classpath.py), with its log in a folder of the test's."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from buildtools import maven_classpath  # noqa: E402

JAVA_OPTIONS = ["-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class KafkaBroker:
    """Started by `start()`, stopped by `stop()`; `bootstrap` is its address for clients."""

    def __init__(self, folder: str):
        self.folder = folder
        self.port, self.controller = _free_port(), _free_port()
        self.bootstrap = f"127.0.0.1:{self.port}"
        self.process = None
        self.log = None

    def _properties(self) -> str:
        path = os.path.join(self.folder, "server.properties")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join([
                "process.roles=broker,controller", "node.id=1",
                f"controller.quorum.voters=1@127.0.0.1:{self.controller}",
                f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller}",
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                f"log.dirs={os.path.join(self.folder, 'data')}",
                "offsets.topic.replication.factor=1", "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1", "group.initial.rebalance.delay.ms=0",
                "num.partitions=2", "auto.create.topics.enable=true", ""]))
        return path

    def start(self, timeout: float = 120) -> "KafkaBroker":
        os.makedirs(self.folder, exist_ok=True)
        cp = os.pathsep.join(maven_classpath.classpath("kafka-broker", maven_classpath.KAFKA_BROKER))
        properties = self._properties()
        java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
        subprocess.run([java, *JAVA_OPTIONS, "-cp", cp, "kafka.tools.StorageTool", "format",
                        "-t", str(uuid.uuid4()), "-c", properties],
                       check=True, capture_output=True, text=True)
        self.log = open(os.path.join(self.folder, "broker.log"), "w")
        self.process = subprocess.Popen([java, *JAVA_OPTIONS, "-cp", cp, "kafka.Kafka", properties],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Kafka broker stopped: see {self.log.name}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.2)
        log = self.log.name
        self.stop()
        raise RuntimeError(f"the Kafka broker did not listen within {timeout} s: see {log}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.log is not None:
            self.log.close()
            self.log = None
