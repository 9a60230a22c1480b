"""The example notebook runs top to bottom in a real Jupyter kernel."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).parents[2] / "examples" / "quickstart.ipynb"


def test_the_quickstart_notebook_runs_without_errors(tmp_path: Path) -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute(
        cwd=str(tmp_path)
    )  # raises CellExecutionError naming the cell that failed
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the plot was not drawn"
    assert any("wrote 3000 lines, read 3000" in o.get("text", "") for o in outputs)


def test_the_notebook_keeps_its_outputs() -> None:
    # What a reader sees on the code host before running anything: the rows, the count, a plot.
    notebook = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no plot stored"
    assert any("wrote 3000 lines, read 3000" in o.get("text", "") for o in outputs)
    assert not any(o.get("name") == "stderr" for o in outputs), "Spark's own log stored"
