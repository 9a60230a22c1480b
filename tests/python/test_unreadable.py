"""A file or directory that cannot be read for a while keeps its place: no loss, no duplicate.

Permissions do not bind root, so as root the query runs as ``nobody`` (through ``setpriv``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sink import committed_rows, line_ids

APP = Path(__file__).with_name("unreadable_app.py")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the unprivileged user may write: pytest's own is private to root."""
    work = Path(tempfile.mkdtemp(prefix="aof-unreadable-"))
    work.chmod(0o777)
    yield work
    shutil.rmtree(work, ignore_errors=True)


def _as_unprivileged(work: Path) -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.fail("running as root without setpriv (util-linux): root reads every file")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def test_unreadable_file_and_directory_keep_their_place(shared_dir: Path) -> None:
    env = {**os.environ, "HOME": str(shared_dir), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [*_as_unprivileged(shared_dir), sys.executable, str(APP), str(shared_dir)],
        env=env,
        cwd=APP.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    rows = committed_rows(shared_dir / "out")
    counts = line_ids(rows)
    assert [i for i, n in counts.items() if n > 1] == [], "lines delivered twice"
    assert set(counts) == set(result["ids"]), "lines lost or never written"
    assert len(rows) == len(result["ids"])
    # While unreadable, the other file's lines came and the locked ones waited.
    assert result["seen"]["fileUnreadable"] == 50 + 50 + 3 * 20
    assert result["seen"]["directoryUnlisted"] == 100 + 6 * 20
    assert {r["file_id"] for r in rows if r["value"].startswith("a-")} == {
        r["file_id"] for r in rows if r["value"] == "a-0 held end"
    }, "the file came back under a new id"
    assert set(result["bytesLost"]) == {0}
