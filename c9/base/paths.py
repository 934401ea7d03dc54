"""Where the course's data files live (the repository in CPython; the unpacked zip in Pyodide)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACTS_FILE = ROOT / "anchor-model.json"
LAB_RESULTS = ROOT / "lab" / "results"
