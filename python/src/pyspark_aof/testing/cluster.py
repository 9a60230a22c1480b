"""A Spark standalone cluster on one machine whose workers are separate hosts."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pyspark_aof.testing import _process

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

    """

    address: str
    files: Path
    node: str

    def executor_pids(self) -> list[int]:
        """Process ids of the executor JVMs running on this host now."""
        pids = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            is_executor = any(a.endswith(b"CoarseGrainedExecutorBackend") for a in args)
            if is_executor and self.address.encode() in args:
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
    ) -> None:
        self.root = root
        self.mount = mount or root / "data"
        self.hosts = []
        for i in range(hosts):
            address = f"127.0.0.{i + 2}"
            node = address if hosts_per_node == 1 else f"node-{i // hosts_per_node}"
            self.hosts.append(Host(address, root / "hosts" / node, node))
        self._node_name_env = node_name_env
        self.master_url = ""
        self._cores = cores
        self._memory = memory
        self._processes: list[subprocess.Popen[bytes]] = []

    def start(self) -> LocalCluster:
        """Start the master and the workers; return once every worker has registered."""
        if shutil.which("unshare") is None or os.geteuid() != 0:
            raise RuntimeError("LocalCluster needs root and the 'unshare' command (util-linux)")
        self.mount.mkdir(parents=True, exist_ok=True)
        home = _process.spark_home()
        spark_class = str(home / "bin" / "spark-class")
        port = _process.free_port()
        self.master_url = f"spark://127.0.0.1:{port}"
        env = {"SPARK_HOME": str(home), "SPARK_CONF_DIR": str(self._conf_dir())}
        master_log = self.root / "logs" / "master.log"
        try:
            self._processes.append(
                _process.start(
                    [
                        spark_class,
                        "org.apache.spark.deploy.master.Master",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--webui-port",
                        "0",
                    ],
                    master_log,
                    {**env, "SPARK_LOCAL_IP": "127.0.0.1"},
                )
            )
            for host in self.hosts:
                host.files.mkdir(parents=True, exist_ok=True)
                work = self.root / "work" / host.address
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
                            spark_class,
                            "org.apache.spark.deploy.worker.Worker",
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
                            **env,
                            "SPARK_LOCAL_IP": host.address,
                            "SPARK_LOCAL_DIRS": str(work),
                            **({self._node_name_env: host.node} if self._node_name_env else {}),
                        },
                    )
                )
            registered = [f"Registering worker {h.address}:" for h in self.hosts]
            _process.wait_until(
                lambda: all(r in _read(master_log) for r in registered),
                120,
                f"the workers to register (see {self.root / 'logs'})",
            )
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the workers, their executors and the master."""
        for process in reversed(self._processes):
            _process.stop(process)
        self._processes.clear()

    def _conf_dir(self) -> Path:
        # An empty configuration: nothing from the machine's own Spark settings leaks in.
        conf = self.root / "conf"
        conf.mkdir(parents=True, exist_ok=True)
        return conf


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
