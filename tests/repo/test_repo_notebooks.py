"""Every notebook executes top to bottom (quick mode: EXACTDP_QUICK=1)."""

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="install the 'notebooks' extra")
nbclient = pytest.importorskip("nbclient", reason="install the 'notebooks' extra")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    os.environ.setdefault("EXACTDP_QUICK", "1")
    os.environ.setdefault("MPLBACKEND", "Agg")
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT / "notebooks")}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
