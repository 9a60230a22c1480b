"""A Spark standalone cluster on one machine whose workers are separate hosts."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pyspark_aof.testing import _process

# The master's log line that gives its web UI's address: where it lists its workers (/json/).
_WEB_UI = re.compile(r"MasterWebUI.* started at (http://\S+)")
# Mounts the host's own directory over the shared path, then runs the worker in that namespace.
_IN_OWN_MOUNT = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'


@dataclass(frozen=True)
class Host:
    """One worker host of a :class:`LocalCluster`.

    Attributes
    ----------
    address : str
        Its loopback address, which Spark reports as the executors' host.
    files : Path
        What this host, and only the other hosts of its node, see at the cluster's ``mount``
        path.
    node : str
        The node it runs on: its address, unless several hosts share a node.
    work : Path
        Its worker's work directory: each executor's logs, and its working directory.

    """

    address: str
    files: Path
    node: str
    work: Path

    def executor_pids(self) -> list[int]:
        """Process ids of the executor JVMs running on this host now.

        Found by their working directory, which their worker makes in its own: another
        cluster on the same machine (a second test run) has hosts of the same addresses.
        """
        pids = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
                cwd = Path(os.readlink(proc / "cwd"))
            except OSError:
                continue
            is_executor = any(a.endswith(b"CoarseGrainedExecutorBackend") for a in args)
            if is_executor and cwd.is_relative_to(self.work):
                pids.append(int(proc.name))
        return sorted(pids)

    def signal_executors(self, sig: signal.Signals) -> list[int]:
        """Send ``sig`` to every executor JVM of this host; return their process ids."""
        pids = self.executor_pids()
        for pid in pids:
            os.kill(pid, sig)
        return pids


class LocalCluster(_process.Managed):
    r"""A standalone master and one worker per host, each host with its own files at ``mount``.

    Worker ``i`` listens on ``127.0.0.{i + 2}`` and runs in a mount namespace of its own
    (``unshare --mount``) where ``mount`` is a bind mount of ``root/hosts/<address>``: the same
    path holds different files on each host, as on real nodes. Needs root (for the mounts) and
    the ``unshare`` command.

    Parameters
    ----------
    root : Path
        Directory for the hosts' files, the workers' work directories and the logs.
    hosts : int
        Number of worker hosts.
    cores, memory : int, str
        Each worker's resources; executors of ``spark.executor.cores=1`` give ``cores``
        executors per host.
    mount : Path, optional
        The path every host sees its own files at; ``root/data`` by default.
    hosts_per_node : int
        Hosts that share one node's files, as executor pods on one Kubernetes node share a
        ``hostPath`` volume: host ``i`` is on node ``node-{i // hosts_per_node}``. With 1 (the
        default) each host is a node of its own, named by its address.
    node_name_env : str, optional
        An environment variable set to the host's node name in its worker and executors, as
        Kubernetes sets one from ``spec.nodeName``.
    workers : int, optional
        How many of the hosts get their worker at :meth:`start`, the first ones; every host by
        default. The others' files are there, but nothing runs on them until
        :meth:`start_worker`.

    Attributes
    ----------
    master_url : str
        ``spark://...``, for ``SparkSession.builder.master``, once started.
    master_web_url : str
        The master's web UI, ``http://127.0.0.1:<port>``, once started.

    Examples
    --------
    >>> with LocalCluster(tmp_path, hosts=2) as cluster:  # doctest: +SKIP
    ...     (cluster.hosts[0].files / "app.log").write_text("on the first host\\n")
    ...     spark = SparkSession.builder.master(cluster.master_url).getOrCreate()

    """

    def __init__(
        self,
        root: Path,
        hosts: int = 2,
        cores: int = 2,
        memory: str = "2g",
        mount: Path | None = None,
        hosts_per_node: int = 1,
        node_name_env: str | None = None,
        workers: int | None = None,
    ) -> None:
        self.root = root
        self.mount = mount or root / "data"
        self.hosts = []
        for i in range(hosts):
            address = f"127.0.0.{i + 2}"
            node = address if hosts_per_node == 1 else f"node-{i // hosts_per_node}"
            self.hosts.append(Host(address, root / "hosts" / node, node, root / "work" / address))
        self._node_name_env = node_name_env
        self._workers = len(self.hosts) if workers is None else workers
        self.master_url = ""
        self.master_web_url = ""
        self._cores = cores
        self._memory = memory
        self._processes: list[subprocess.Popen[bytes]] = []
        self._started: set[str] = set()

    def start(self) -> LocalCluster:
        """Start the master and the first hosts' workers; return once each has registered."""
        if shutil.which("unshare") is None or os.geteuid() != 0:
            raise RuntimeError("LocalCluster needs root and the 'unshare' command (util-linux)")
        self.mount.mkdir(parents=True, exist_ok=True)
        for host in self.hosts:
            host.files.mkdir(parents=True, exist_ok=True)
        port = _process.free_port()
        self.master_url = f"spark://127.0.0.1:{port}"
        try:
            self._processes.append(
                _process.start(
                    [
                        *self._spark_class("org.apache.spark.deploy.master.Master"),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--webui-port",
                        "0",
                    ],
                    self._master_log,
                    {**self._env(), "SPARK_LOCAL_IP": "127.0.0.1"},
                )
            )
            _process.wait_until(
                lambda: bool(_WEB_UI.search(_read(self._master_log))),
                120,
                f"the master's web UI (see {self._master_log})",
            )
            self.master_web_url = _WEB_UI.findall(_read(self._master_log))[0]
            for host in self.hosts[: self._workers]:
                self.start_worker(host)
        except BaseException:
            self.stop()
            raise
        return self

    def start_worker(self, host: Host) -> None:
        """Start ``host``'s worker, in its own mount namespace; return once it has registered.

        A host whose worker was started already is left as it is.
        """
        if host.address in self._started:
            return
        self._started.add(host.address)
        work = host.work
        work.mkdir(parents=True, exist_ok=True)
        self._processes.append(
            _process.start(
                [
                    "unshare",
                    "--mount",
                    "--propagation",
                    "private",
                    "sh",
                    "-c",
                    _IN_OWN_MOUNT,
                    "sh",
                    str(host.files),
                    str(self.mount),
                    *self._spark_class("org.apache.spark.deploy.worker.Worker"),
                    "--host",
                    host.address,
                    "--webui-port",
                    "0",
                    "--cores",
                    str(self._cores),
                    "--memory",
                    self._memory,
                    "--work-dir",
                    str(work),
                    self.master_url,
                ],
                self.root / "logs" / f"worker-{host.address}.log",
                {
                    **self._env(),
                    "SPARK_LOCAL_IP": host.address,
                    "SPARK_LOCAL_DIRS": str(work),
                    **({self._node_name_env: host.node} if self._node_name_env else {}),
                },
            )
        )
        _process.wait_until(
            lambda: f"Registering worker {host.address}:" in _read(self._master_log),
            120,
            f"the worker of {host.address} to register (see {self.root / 'logs'})",
        )

    def stop(self) -> None:
        """Stop the workers, their executors and the master."""
        for process in reversed(self._processes):
            _process.stop(process)
        self._processes.clear()
        self._started.clear()

    @property
    def _master_log(self) -> Path:
        return self.root / "logs" / "master.log"

    def _spark_class(self, main: str) -> list[str]:
        return [str(_process.spark_home() / "bin" / "spark-class"), main]

    def _env(self) -> dict[str, str]:
        return {"SPARK_HOME": str(_process.spark_home()), "SPARK_CONF_DIR": str(self._conf_dir())}

    def _conf_dir(self) -> Path:
        # An empty configuration: nothing from the machine's own Spark settings leaks in.
        conf = self.root / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        return conf


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
