"""What users install: the wheel with a JAR for each Spark line, in fresh virtualenvs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pyspark
import pytest

import pyspark_aof as aof
from pyspark_aof import __version__
from pyspark_aof._versions import PYSPARK_REQUIREMENT, SCALA_OF_SPARK, VERSIONS

ROOT = Path(__file__).resolve().parents[2]
SCALA = SCALA_OF_SPARK[int(pyspark.__version__.split(".")[0])]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: setuptools keeps files of earlier builds in the tree's build directory.
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "python"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp), str(source)],
        check=True,
        timeout=300,
    )
    (built,) = tmp.glob("pyspark_aof-*.whl")
    return built


def test_a_wheel_without_its_jars_is_refused_naming_the_fix(tmp_path: Path) -> None:
    # A copy of the package alone: no checkout around it to build the JARs in.
    source = tmp_path / "python"
    shutil.copytree(
        ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "*.jar")
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode != 0
    assert "no connector JAR for Scala 2.12, 2.13" in built.stdout + built.stderr
    assert "make jar" in built.stdout + built.stderr
    assert list(tmp_path.glob("*.whl")) == []


def fresh_venv(where: Path, *packages: str) -> Path:
    """Make a virtualenv and pip install ``packages`` into it; return its python."""
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", *packages], check=True, timeout=900)
    return python


def test_the_wheel_bundles_one_jar_for_each_spark_line(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "pyspark_aof/py.typed" in names
    jars = sorted(n for n in names if n.startswith("pyspark_aof/jars/"))
    # The connector's classes alone: no sources or test JARs from the same build.
    assert jars == [f"pyspark_aof/jars/spark-aof_{s}-{__version__}.jar" for s in ("2.12", "2.13")]


def test_the_jars_carry_the_connector_alone_not_sparks_libraries() -> None:
    # Curator, ZooKeeper, Jackson and Scala come from the Spark it runs on, in that Spark's
    # versions (Curator 2 in Spark 3, 5 in Spark 4): a copy in the JAR would be a second one.
    for jar in Path(aof.jar_path()).parent.glob("spark-aof_*.jar"):
        classes = [n for n in zipfile.ZipFile(jar).namelist() if n.endswith(".class")]
        assert classes, jar
        assert [n for n in classes if not n.startswith("com/hx/spark/")] == [], jar


def test_only_the_spark_4_jar_holds_real_time_mode() -> None:
    """Its classes need Spark 4.1's interfaces: the Spark 3 line's JAR stays as it was."""
    jars = Path(aof.jar_path()).parent
    for scala, holds in (("2.12", False), ("2.13", True)):
        names = zipfile.ZipFile(jars / f"spark-aof_{scala}-{__version__}.jar").namelist()
        real_time = [n for n in names if "/aof/realtime/" in n]
        assert bool(real_time) == holds, scala


@pytest.mark.both_lines
def test_the_jar_and_coordinates_are_the_running_pysparks() -> None:
    assert Path(aof.jar_path()).name == f"spark-aof_{SCALA}-{__version__}.jar"
    assert aof.maven_coordinates() == f"com.hx.spark:spark-aof_{SCALA}:{__version__}"


def _versions_table() -> str:
    v = VERSIONS

    def line(compiled: str) -> str:  # 3.3.4: 3.3
        return ".".join(compiled.split(".")[:2])

    artifact = f"`com.hx.spark:spark-aof_{{}}:{__version__}`"
    return "\n".join(
        [
            "| Spark | artifact | compiled against | tested on |",
            "| --- | --- | --- | --- |",
            f"| {line(v['spark3.compiled'])} to {v['spark3.pyspark.newest']} "
            f"| {artifact.format(SCALA_OF_SPARK[3])} | {v['spark3.compiled']} "
            f"| {v['spark3.compiled']} (Scala), {v['tested.spark3']} and {v['tested.oldest']} "
            "(Python) |",
            f"| {line(v['spark4.compiled'])} to {v['spark4.pyspark.newest']} "
            f"| {artifact.format(SCALA_OF_SPARK[4])} "
            f"| {v['spark4.compiled']}; real-time mode {v['spark4.realtime.compiled']} "
            f"| {v['tested.newest']} (Scala and Python) |",
        ]
    )


def test_each_version_is_written_once_and_the_docs_follow_it() -> None:
    pyproject = (ROOT / "python" / "pyproject.toml").read_text()
    assert f'"{PYSPARK_REQUIREMENT}"' in pyproject
    deploying = (ROOT / "docs" / "deploying.md").read_text()
    stale = "docs/deploying.md's versions table is stale:\n"
    assert _versions_table() in deploying, stale + _versions_table()
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for coordinates in re.findall(
            r"com\.hx\.spark:spark-aof_2\.1[23]:[^`\s]+", page.read_text()
        ):
            assert coordinates.endswith(f":{__version__}"), f"{page.name}: {coordinates}"


@pytest.mark.both_lines
@pytest.mark.parametrize("version", ["3.3.4", "4.4.0", "5.0.0"])
def test_an_unsupported_pyspark_is_refused_with_the_versions_that_work(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PySpark 3.3 does not install on this Python and 4.4 does not exist yet: the version that
    # the package reads stands in for them.
    monkeypatch.setattr(pyspark, "__version__", version)
    for call in (aof.jar_path, aof.maven_coordinates):
        with pytest.raises(RuntimeError) as caught:
            call()
        message = str(caught.value)
        assert f"does not support PySpark {version}" in message
        assert "3.4 to 3.5" in message and "4.0 to 4.3" in message
        assert "pip install 'pyspark>=3.4,<4.4'" in message


def test_an_unpinned_install_in_a_fresh_virtualenv_runs_the_demo(
    wheel: Path, tmp_path: Path
) -> None:
    python = fresh_venv(tmp_path / "venv", str(wheel))
    demo = subprocess.run(
        [python, "-m", "pyspark_aof", "demo", "--seconds", "4", "--rate", "500"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr[-3000:]
    assert demo.stdout.strip().splitlines()[-1].endswith("each exactly once: yes"), demo.stdout


def test_a_spark_connect_client_without_a_jvm_is_told_where_the_connector_goes(
    wheel: Path, tmp_path: Path
) -> None:
    python = fresh_venv(tmp_path / "venv", "pyspark-client", "kazoo")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", wheel], check=True)
    tried = subprocess.run(
        [
            python,
            "-c",
            "import pyspark_aof as aof; from pyspark.sql import SparkSession; "
            "aof.configure(SparkSession.builder)",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert tried.returncode != 0
    assert "Spark Connect client without a JVM" in tried.stderr, tried.stderr
    assert f"--packages com.hx.spark:spark-aof_2.13:{__version__}" in tried.stderr


def test_the_environment_make_builds_has_no_package_pyspark_warns_about() -> None:
    # Spark Connect's client brings pandas (to the newest line's environment only); PySpark warns
    # of pandas 3 in every session using it.
    result = subprocess.run(
        [
            sys.executable,
            "-W",
            "error::FutureWarning",
            "-c",
            "from pyspark.sql.pandas.utils import require_minimum_pandas_version as r; r()",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
