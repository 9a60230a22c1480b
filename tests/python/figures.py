"""Figures of a real run of the cluster suites, for docs/deploying.md."""

from __future__ import annotations

import json
import os


def record(what: str, value: float | int) -> None:
    """Append a figure to the file that ``AOF_FIGURES`` names, if it names one."""
    path = os.environ.get("AOF_FIGURES")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"what": what, "value": round(value, 1)}) + "\n")
