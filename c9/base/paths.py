"""Where the course's data files live (the repository in CPython; the unpacked zip in Pyodide)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACTS_FILE = ROOT / "anchor-model.json"
LAB_RESULTS = ROOT / "lab" / "results"
# The lab's result files (c9/core/lab_results.py reads them); only the first is in the page's archive.
LAB_PRECISION = LAB_RESULTS / "c09-precision.json"
LAB_CODEC_CHECK = LAB_RESULTS / "codec-check.json"
LAB_ACTIVATION_CHECK = LAB_RESULTS / "activation-check.json"
