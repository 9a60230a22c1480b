"""The README and docs/: every relative link and anchor resolves, every runnable block runs.

A block runs unless the line before its fence is ``<!-- not run: <why> -->``. Python blocks of a
page run in order in one namespace holding ``spark`` (a local session with the connector, at
Spark's defaults: ``user_session.py``) and ``aof``; shell blocks run with ``bash``; data blocks
(YAML, JSON, text, diagrams) never run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKED = [*PAGES, *sorted((ROOT / "bench").glob("*.md"))]  # the generated figures' pages too
DATA = {"yaml", "json", "text", "mermaid", "properties", ""}
RUN = {"python", "bash", "sh"}
NOT_RUN = re.compile(r"<!-- not run: \S.* -->")
FENCE = re.compile(r"^```(\S*)")
LINK = re.compile(r"\]\(([^)]+)\)")  # [text](target), a target with spaces too


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, where it starts, its text and whether it runs."""

    page: Path
    line: int
    language: str
    code: str
    runs: bool

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, in order."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    start: int | None = None
    for n, line in enumerate(lines):
        fence = FENCE.match(line)
        if fence and start is None:
            start, language = n, fence.group(1)
        elif line.startswith("```") and start is not None:
            marked = start > 0 and NOT_RUN.fullmatch(lines[start - 1].strip()) is not None
            code = "\n".join(lines[start + 1 : n])
            found.append(Block(page, start + 1, language, code, not marked))
            start = None
    return found


def anchors(page: Path) -> set[str]:
    """The anchors a code host gives the headings of ``page``."""
    found: set[str] = set()
    in_block = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_block = not in_block
        elif not in_block and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            kept = "".join(c for c in title if c in " -_" or unicodedata.category(c)[0] in "LN")
            anchor = kept.replace(" ", "-")
            n = 1
            while anchor in found:  # a repeated heading gets -1, -2, ...
                anchor = f"{kept.replace(' ', '-')}-{n}"
                n += 1
            found.add(anchor)
    return found


def outside_blocks(page: Path) -> str:
    """The text of ``page`` without its code blocks."""
    return re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)


@pytest.mark.parametrize("page", LINKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(outside_blocks(page)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no {resolved}")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: no heading gives #{anchor}")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_runs_or_says_why_not(page: Path) -> None:
    unknown = [
        f"{b} ({b.language})" for b in blocks(page) if b.runs and b.language not in RUN | DATA
    ]
    assert unknown == [], "a block in a language the suite cannot run needs <!-- not run: ... -->"


# What a quiet session never prints: an INFO or ERROR line, a stack trace, or a warning of ours.
NOISE = re.compile(r" (INFO|ERROR) |^\s+at |Traceback|Exception| WARN \S+: aof: ")


def test_the_python_blocks_run_and_a_session_at_spark_defaults_stays_quiet(tmp_path: Path) -> None:
    """Run as a user runs them: one script, Spark's default log level, queries stopped mid-run.

    Spark's own start-up warnings are Spark's; an INFO or ERROR line, a stack trace or a
    warning of the source's is not.
    """
    here = Path(__file__).parent
    done = subprocess.run(
        [sys.executable, str(here / "user_session.py"), *map(str, PAGES)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(here)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "FAILED" not in done.stdout, done.stdout
    assert re.search(r"^ran [1-9]\d* blocks$", done.stdout, re.M), done.stdout
    lines = done.stderr.splitlines()
    noisy = [i for i, line in enumerate(lines) if re.search(NOISE, line)]
    # Each with the line before it: a stack trace's first line says who logged it.
    shown = sorted({j for i in noisy for j in (i - 1, i) if j >= 0})
    assert noisy == [], "\n".join(lines[j] for j in shown[:60])


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_shell_blocks_run(page: Path, tmp_path: Path) -> None:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # pyspark-aof
    for block in blocks(page):
        if block.runs and block.language in ("bash", "sh"):
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", block.code],
                cwd=tmp_path,
                env={**os.environ, "PATH": path},
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, f"{block}: {done.stderr[-2000:]}"
