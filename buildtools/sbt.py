"""sbt, installed and pointed at the machine's Maven repository by the checkout itself.

    python3 buildtools/sbt.py [sbt arguments]      # e.g. -DsparkVersion=4.2 compile

Nothing but Maven and a JDK is needed on the machine: the sbt launcher (org.scala-sbt:sbt-launch,
of the version project/build.properties names) is copied from the Maven repository by
`mvn dependency:copy`, and sbt resolves everything else (sbt itself, the Scala compiler and its
bridge, the build's dependencies) from the repository that Maven uses: its mirror of `central`
where the machine's Maven settings name one, else the `central` of Maven's super POM, both read at
run time from `mvn help:effective-settings` and `mvn help:effective-pom` (no repository address is
written in the checkout). `-Dsbt.override.build.repos=true` makes sbt use that repository alone,
also for the repositories that dependencies' POMs declare (Spark's parent POM names a mirror of
its own that such a machine cannot reach).

Maven's active `<proxies>` become the JVM's proxy properties, and a `<server>` with the
repository's id gives coursier its login (COURSIER_CREDENTIALS).

The launcher and the files generated from Maven's setup are kept in build/sbt/
(`python3 buildtools/sbt.py --repositories` writes them again); what sbt downloads is
cached where sbt keeps it for every build (~/.sbt/boot, ~/.cache/coursier), between runs. Two runs
in one checkout take turns (sbt keeps one build's state, target/ and project/target/, for one
process at a time): `make test` runs the tests' sbt and the other Sparks' compiles
(buildtools/spark_env.py --prepare) side by side.
"""
from __future__ import annotations

import contextlib
import fnmatch
import os
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
from buildtools.scala_build import exclusive  # noqa: E402

SBT_DIR = os.path.join(ROOT, "build", "sbt")
REPOSITORIES = os.path.join(SBT_DIR, "repositories")
JVM_OPTIONS = os.path.join(SBT_DIR, "jvm-options")
CREDENTIALS = os.path.join(SBT_DIR, "credentials")
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
# A POM with nothing of its own: its effective POM shows the super POM's `central`.
STUB_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local</groupId><artifactId>stub</artifactId><version>0</version><packaging>pom</packaging></project>
"""


def sbt_version() -> str:
    with open(os.path.join(ROOT, "project", "build.properties"), encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition("=")
            if key.strip() == "sbt.version":
                return value.strip()
    raise RuntimeError("project/build.properties names no sbt.version")


def _mvn(args: list[str], cwd: str) -> None:
    subprocess.run(["mvn", "-B", "-q", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _elements(path: str) -> ET.Element:
    root = ET.parse(path).getroot()
    for el in root.iter():  # drop the namespace: <mirror>, not <{...settings-1.2.0}mirror>
        el.tag = el.tag.rpartition("}")[2]
    return root


def _mirror_matches(mirror_of: str, repo_id: str, url: str) -> bool:
    """Maven's rule for <mirrorOf> ("*", "external:*", "external:http:*", "a,b", "!a")."""
    matched = False
    for part in (p.strip() for p in mirror_of.split(",")):
        if part.startswith("!") and part[1:] == repo_id:
            return False
        if part == "external:http:*":
            matched |= url.startswith("http:")
        elif part in ("*", "external:*") or fnmatch.fnmatchcase(repo_id, part):
            matched = True
    return matched


def maven_setup() -> tuple[ET.Element, ET.Element]:
    """The effective POM of a POM with nothing of its own, and the effective settings, as Maven
    reads them on this machine."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "pom.xml"), "w") as f:
            f.write(STUB_POM)
        _mvn(["help:effective-pom", f"-Doutput={tmp}/pom.out.xml"], tmp)
        _mvn(["help:effective-settings", "-DshowPasswords=true", f"-Doutput={tmp}/settings.out.xml"], tmp)
        return _elements(f"{tmp}/pom.out.xml"), _elements(f"{tmp}/settings.out.xml")


def maven_repository(pom: ET.Element, settings: ET.Element) -> tuple[str, str]:
    """(id, address) of the repository Maven resolves `central` from on this machine."""
    central = next(r.findtext("url") for r in pom.iter("repository") if r.findtext("id") == "central")
    for mirror in settings.iter("mirror"):
        if mirror.findtext("blocked") == "true":
            continue
        if _mirror_matches(mirror.findtext("mirrorOf") or "", "central", central):
            return mirror.findtext("id") or "mirror", mirror.findtext("url")
    return "central", central


def proxy_options(settings: ET.Element) -> list[str]:
    """The JVM's proxy properties for the active proxies of Maven's settings (`<proxies>`): sbt,
    its launcher and coursier read them (`-Dhttps.proxyHost=...`). Maven's `nonProxyHosts` has
    the JVM's format already (`*.local|10.*`)."""
    options = []
    for proxy in settings.iter("proxy"):
        if (proxy.findtext("active") or "true").strip() != "true":
            continue
        protocol = (proxy.findtext("protocol") or "http").strip()
        options += [f"-D{protocol}.proxyHost={proxy.findtext('host')}",
                    f"-D{protocol}.proxyPort={(proxy.findtext('port') or '80').strip()}"]
        for key in ("username", "password"):
            if proxy.findtext(key):
                options.append(f"-D{protocol}.proxy{key.capitalize()}={proxy.findtext(key)}")
        if proxy.findtext("nonProxyHosts"):
            options.append(f"-Dhttp.nonProxyHosts={proxy.findtext('nonProxyHosts')}")
    return options


def credentials(settings: ET.Element, repo_id: str, url: str) -> str | None:
    """Coursier's credentials line (`host user:password`) for the repository, from the `<server>`
    of Maven's settings with the repository's id, if it has one."""
    for server in settings.iter("server"):
        if server.findtext("id") == repo_id and server.findtext("username"):
            host = urllib.parse.urlparse(url).hostname
            return f"{host} {server.findtext('username')}:{server.findtext('password') or ''}"
    return None


def write_repositories() -> str:
    """build/sbt/ from the machine's Maven setup: `repositories` (the local Ivy repository and
    Maven's, in sbt's launcher format), `jvm-options` (its proxies) and, where Maven has a password
    for the repository, `credentials` (coursier's format; readable by the owner only)."""
    pom, settings = maven_setup()
    repo_id, url = maven_repository(pom, settings)
    os.makedirs(SBT_DIR, exist_ok=True)
    with open(JVM_OPTIONS, "w") as f:
        f.write("".join(o + "\n" for o in proxy_options(settings)))
    login = credentials(settings, repo_id, url)
    with contextlib.suppress(FileNotFoundError):
        os.remove(CREDENTIALS)
    if login:
        with open(os.open(CREDENTIALS, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(login + "\n")
    with open(REPOSITORIES, "w") as f:
        f.write(f"[repositories]\n  local\n  maven-{repo_id}: {url.rstrip('/')}/\n")
    return REPOSITORIES


def launcher() -> str:
    version = sbt_version()
    jar = os.path.join(SBT_DIR, f"sbt-launch-{version}.jar")
    if not os.path.exists(jar):
        os.makedirs(SBT_DIR, exist_ok=True)
        _mvn([f"{DEPENDENCY_PLUGIN}:copy", f"-Dartifact=org.scala-sbt:sbt-launch:{version}",
              f"-DoutputDirectory={SBT_DIR}"], SBT_DIR)
    return jar


# The Spark minor versions whose test jars (StreamTest) and Kafka connector the Maven repository
# serves (project/CrossSparkVersions.scala's mavenVersion): their builds add them (-Decosystem).
ECOSYSTEM_SPARKS = ("3.5", "4.0", "4.1", "4.2")


def spark_arguments(minor: str, jars: str) -> list[str]:
    """The build of one Spark against a Spark jars folder (pyspark's), with Spark's test kits where
    they are served: the same for every run of that Spark, so that zinc finds the classes of the
    run before fresh (buildtools/spark_env.py --prepare compiles them, tests/test_scala_unit.py tests)."""
    return [f"-DsparkVersion={minor}", f"-DsparkJars={jars}", *(["-Decosystem"] if minor in ECOSYSTEM_SPARKS else [])]


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """sbt with `args`, in the checkout, once no other run of this checkout's build is going on."""
    cmd = command(args)  # writes build/sbt/ from Maven's setup where it is missing
    env = kwargs.pop("env", None) or dict(os.environ)
    if os.path.exists(CREDENTIALS):  # coursier reads `host user:password` lines from it
        with open(CREDENTIALS, encoding="utf-8") as f:
            env["COURSIER_CREDENTIALS"] = f.read().strip()
    with exclusive(os.path.join(ROOT, "target", "sbt")):
        return subprocess.run(cmd, cwd=ROOT, env=env, **kwargs)


def command(args: list[str]) -> list[str]:
    repositories = REPOSITORIES if os.path.exists(REPOSITORIES) and os.path.exists(JVM_OPTIONS) \
        else write_repositories()
    with open(JVM_OPTIONS, encoding="utf-8") as f:
        proxies = f.read().split()
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else "java"
    return [java, "-Xms256m", "-Xmx2g", "-Xss4m", *proxies,
            f"-Dsbt.repository.config={repositories}", "-Dsbt.override.build.repos=true",
            "-Dsbt.server.forcestart=false", "-Dsbt.supershell=false", "-Dsbt.color=false",
            "-Dsbt.log.noformat=true", "-Dsbt.ci=true",
            # As the sbt script: -Dname=value are the JVM's system properties (-DsparkVersion=4.2).
            *[a for a in args if a.startswith("-D")],
            "-jar", launcher(), *[a for a in args if not a.startswith("-D")]]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--repositories"]:  # only (re)write build/sbt/repositories
        print(write_repositories())
        sys.exit(0)
    sys.exit(run(sys.argv[1:]).returncode)
