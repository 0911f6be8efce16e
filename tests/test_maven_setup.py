"""What buildtools/sbt.py takes from the machine's Maven setup for sbt: the repository (Maven's
mirror of `central`, or the super POM's), the proxies and the repository's login, read from
Maven's effective POM and settings (here, settings of the test's own)."""
from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from buildtools import sbt  # noqa: E402

POM = """<project><repositories><repository><id>central</id>
<url>https://central.example/maven2</url></repository></repositories></project>"""


def settings(body: str) -> ET.Element:
    return ET.fromstring(f"<settings>{body}</settings>")


def mirror(mirror_id: str, mirror_of: str, url: str, blocked: bool = False) -> str:
    return (f"<mirrors><mirror><id>{mirror_id}</id><mirrorOf>{mirror_of}</mirrorOf><url>{url}</url>"
            f"<blocked>{'true' if blocked else 'false'}</blocked></mirror></mirrors>")


def test_without_a_mirror_sbt_resolves_from_the_super_poms_central():
    assert sbt.maven_repository(ET.fromstring(POM), settings("")) == ("central", "https://central.example/maven2")


def test_a_mirror_of_central_replaces_it_and_a_blocked_or_unrelated_one_does_not():
    pom = ET.fromstring(POM)
    assert sbt.maven_repository(pom, settings(mirror("corp", "*", "https://corp/m2"))) == ("corp", "https://corp/m2")
    assert sbt.maven_repository(pom, settings(mirror("corp", "external:*,!central", "https://corp/m2")))[0] == "central"
    assert sbt.maven_repository(pom, settings(mirror("blocker", "external:http:*", "http://0.0.0.0/")))[0] == "central"
    assert sbt.maven_repository(pom, settings(mirror("off", "central", "https://off/", blocked=True)))[0] == "central"


def test_active_proxies_become_the_jvms_proxy_properties():
    found = sbt.proxy_options(settings(
        "<proxies><proxy><active>true</active><protocol>https</protocol><host>proxy.corp</host>"
        "<port>3128</port><username>me</username><password>pw</password>"
        "<nonProxyHosts>*.corp|localhost</nonProxyHosts></proxy>"
        "<proxy><active>false</active><protocol>http</protocol><host>old</host><port>80</port></proxy></proxies>"))
    assert found == ["-Dhttps.proxyHost=proxy.corp", "-Dhttps.proxyPort=3128", "-Dhttps.proxyUsername=me",
                     "-Dhttps.proxyPassword=pw", "-Dhttp.nonProxyHosts=*.corp|localhost"]
    assert sbt.proxy_options(settings("")) == []


def test_the_server_with_the_repositorys_id_gives_coursier_its_login():
    servers = settings("<servers><server><id>corp</id><username>me</username><password>pw</password></server>"
                       "<server><id>other</id><username>x</username><password>y</password></server></servers>")
    assert sbt.credentials(servers, "corp", "https://repo.corp:8443/m2/") == "repo.corp me:pw"
    assert sbt.credentials(servers, "central", "https://central.example/maven2") is None
