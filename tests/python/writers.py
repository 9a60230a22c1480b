"""Real writers for the tests: threads appending lines with unique ids to files."""

from __future__ import annotations

import threading
import time
from pathlib import Path


class LineWriter(threading.Thread):
    """Append ``count`` lines ``<prefix>-<n> ... end``; every seventh in two halves with a pause."""

    def __init__(self, path: Path, prefix: str, count: int, pause: float = 0.0) -> None:
        super().__init__(name=f"writer-{prefix}", daemon=True)
        self.path = path
        self.prefix = prefix
        self.count = count
        self.pause = pause  # seconds after each line, for writers that outlast a fault
        self.ids: list[str] = []

    def run(self) -> None:
        with self.path.open("ab") as out:
            for n in range(1, self.count + 1):
                line = f"{self.prefix}-{n} {'x' * (n % 40)} end\n".encode()
                if n % 7 == 0:
                    out.write(line[: len(line) // 2])
                    out.flush()
                    time.sleep(0.02)  # a half-written line stays visible to the source
                    out.write(line[len(line) // 2 :])
                else:
                    out.write(line)
                out.flush()
                self.ids.append(f"{self.prefix}-{n}")
                if self.pause:
                    time.sleep(self.pause)
                elif n % 200 == 0:
                    time.sleep(0.005)


def append(path: Path, ids: list[str]) -> list[str]:
    """Append whole lines at once."""
    with path.open("ab") as out:
        out.write("".join(f"{i} whole end\n" for i in ids).encode())
    return ids
