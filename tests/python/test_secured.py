"""A ZooKeeper server as production ensembles run it: TLS only, SASL required of every session.

The query (JVM) and ``pyspark-aof status`` (Python) both log in: PEM files made by ``openssl``,
which ZooKeeper's Java client and Python's ``ssl`` module both read.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from pyspark.sql import SparkSession

import pyspark_aof as aof
from apps import finish, start_app, start_writers
from pyspark_aof import AofOptions
from pyspark_aof._zk_client import connected
from pyspark_aof.testing import LocalCluster, ZooKeeperServer
from writers import append

CLI = [sys.executable, "-m", "pyspark_aof"]


def _key_and_certificate(directory: Path, name: str) -> Path:
    """Make a key and a self-signed certificate naming 127.0.0.1; return their PEM file."""
    key, cert = directory / f"{name}.key", directory / f"{name}.crt"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"),
            *("-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}"),
            *("-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"),
        ],
        check=True,
        capture_output=True,
    )
    both = directory / f"{name}.pem"  # ZooKeeper's PEM key store: the key, then its certificate
    both.write_text(key.read_text() + cert.read_text())
    return both


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ZooKeeperServer, Path]]:
    """The server, and the directory of the PEM files (``server.crt``, ``client.pem``)."""
    files = tmp_path_factory.mktemp("tls")
    server_keys = _key_and_certificate(files, "server")
    _key_and_certificate(files, "client")
    jaas = files / "server.jaas"
    jaas.write_text(
        "Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n"
        '  user_aof="s3cret";\n};\n'
    )
    settings = {
        "ssl.keyStore.location": str(server_keys),
        "ssl.keyStore.type": "PEM",
        "ssl.trustStore.location": str(files / "client.crt"),
        "ssl.trustStore.type": "PEM",
        "authProvider.x509": "org.apache.zookeeper.server.auth.X509AuthenticationProvider",
        "authProvider.sasl": "org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
        "sessionRequireClientSASLAuth": "true",  # ZooKeeper 3.6's name; 3.7 and later's:
        "enforce.auth.enabled": "true",
        "enforce.auth.schemes": "sasl",
        "fips-mode": "false",  # which DIGEST-MD5 needs from ZooKeeper 3.8 on
    }
    root = tmp_path_factory.mktemp("secured-zookeeper")
    jvm = [f"-Djava.security.auth.login.config={jaas}"]
    with ZooKeeperServer(root, secure=True, settings=settings, jvm_options=jvm) as server:
        yield server, files


def _login(files: Path, *, shipped: bool) -> dict[str, str]:
    """The source's options for the client's stores and user; by file name when ``shipped``."""

    def name(f: str) -> str:
        return f if shipped else str(files / f)

    return {
        "zookeeper.ssl.keystore.location": name("client.pem"),
        "zookeeper.ssl.truststore.location": name("server.crt"),
        "zookeeper.sasl.user": "aof",
        "zookeeper.sasl.password": "s3cret",
    }


def _status(
    server: ZooKeeperServer, store: str, *login: str, password: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``status``; with ``password``, the SASL password in its environment variable."""
    args = ["status", "--zookeeper", server.address, "--meta-store", store, "--timeout", "10"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AOF_ZOOKEEPER_")}
    if password is not None:
        env["AOF_ZOOKEEPER_SASL_PASSWORD"] = password
    return subprocess.run(
        [*CLI, *args, *login], capture_output=True, text=True, timeout=60, env=env
    )


@pytest.mark.both_lines
def test_a_query_and_status_over_tls_and_sasl(
    spark: SparkSession, secured: tuple[ZooKeeperServer, Path], tmp_path: Path
) -> None:
    server, files = secured
    log = tmp_path / "app.log"
    append(log, [f"line-{n}" for n in range(100)])
    store = "/aof-secured"
    rows = (
        aof.read_stream(
            spark,
            f"{tmp_path}/app\\.log",
            zookeeper_address=server.address,
            meta_store=store,
            options=_login(files, shipped=False),
        )
        .writeStream.format("memory")
        .queryName("secured")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    assert rows.awaitTermination(120), rows.exception()
    assert spark.table("secured").count() == 100
    login = [
        "--ssl-keystore-location",
        str(files / "client.pem"),
        "--ssl-truststore-location",
        str(files / "server.crt"),
        "--sasl-user",
        "aof",
    ]
    # The password from its environment variable, or from a file: never on the command line.
    result = _status(server, store, *login, "--json", password="s3cret")
    assert result.returncode == 0, result.stderr
    (committed,) = json.loads(result.stdout)["offsets"]
    assert committed["path"] == str(log) and committed["position"] == log.stat().st_size
    password = tmp_path / "password"
    password.write_text("s3cret\n")
    from_file = _status(server, store, *login, "--sasl-password-file", str(password), "--json")
    assert from_file.returncode == 0, from_file.stderr
    assert json.loads(from_file.stdout)["offsets"] == [committed]

    # A file's password comes before the environment's.
    password.write_text("nope")
    wrong = _status(server, store, *login, "--sasl-password-file", str(password), password="s3cret")
    assert wrong.returncode == 1 and wrong.stderr.count("\n") == 1, wrong.stderr
    assert (
        "refused the SASL login: check --sasl-user and its password "
        "(AOF_ZOOKEEPER_SASL_PASSWORD or --sasl-password-file)"
    ) in wrong.stderr


def test_status_names_the_argument_to_fix(
    secured: tuple[ZooKeeperServer, Path], tmp_path: Path
) -> None:
    server, _ = secured
    plain = _status(server, "/x", "--sasl-user", "aof", password="s3cret")
    assert plain.returncode == 1 and plain.stderr.count("\n") == 1, plain.stderr
    assert "check --zookeeper and the --ssl-* arguments" in plain.stderr

    jks = tmp_path / "trust.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed not PEM")
    stored = _status(server, "/x", "--ssl-truststore-location", str(jks))
    assert stored.returncode == 1 and stored.stderr.count("\n") == 1, stored.stderr
    assert (
        "--ssl-truststore-location" in stored.stderr and "keytool -exportcert -rfc" in stored.stderr
    )

    krb = ("--sasl-kerberos-principal", "aof@EXAMPLE.COM", "--sasl-kerberos-keytab", str(jks))
    kerberos = _status(server, "/x", *krb)
    assert kerberos.returncode == 1 and kerberos.stderr.count("\n") == 1, kerberos.stderr
    if importlib.util.find_spec("kerberos") is None:  # as in this project's environments
        assert "needs the package 'kerberos'" in kerberos.stderr

    alone = _status(server, "/x", "--sasl-user", "aof")
    assert alone.returncode == 2, alone.stderr
    assert (
        "argument --sasl-user is set but AOF_ZOOKEEPER_SASL_PASSWORD (or --sasl-password-file) "
        "is not"
    ) in alone.stderr


@pytest.mark.both_lines
def test_a_cluster_finds_the_stores_spark_ships(
    cluster: LocalCluster, secured: tuple[ZooKeeperServer, Path], tmp_path: Path
) -> None:
    server, files = secured
    shipped = {"spark.files": f"{files / 'client.pem'},{files / 'server.crt'}"}
    options = _login(files, shipped=True)
    app = start_app(cluster, tmp_path, "secured", server.address, options, conf=shipped)
    finish(app, start_writers(cluster, "secured", 2000))
    # The password is neither in the driver's log nor in any znode the query left.
    assert "s3cret" not in app.text()
    login = AofOptions.from_strings(_login(files, shipped=False))
    with connected(server.address, login, timeout=30) as zk:
        values = [zk.get(path)[0] or b"" for path in _znodes(zk, "/aof-test/secured")]
    assert values and not any(b"s3cret" in v for v in values)


def _znodes(zk: KazooClient, path: str) -> list[str]:
    """``path`` and every znode under it."""
    return [path, *(z for c in zk.get_children(path) for z in _znodes(zk, f"{path}/{c}"))]


def test_an_executor_without_a_store_fails_the_query_naming_it(
    cluster: LocalCluster, secured: tuple[ZooKeeperServer, Path], tmp_path: Path
) -> None:
    server, files = secured
    # The cluster's mount point as the driver sees it: no executor sees these files.
    driver_only = cluster.mount / "tls-driver-only"
    driver_only.mkdir(exist_ok=True)
    for name in ("client.pem", "server.crt"):
        shutil.copy(files / name, driver_only / name)
    app = start_app(
        cluster, tmp_path, "unshipped", server.address, _login(driver_only, shipped=False)
    )
    assert app.wait_exit() != 0
    reason = (
        "aof: an executor could not start its endpoint: option "
        f"'zookeeper.ssl.keystore.location': no readable file '{driver_only}/client.pem'"
    )
    assert reason in app.text(), app.tail()
