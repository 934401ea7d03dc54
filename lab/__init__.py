"""The C9 lab: our small decoder-only Transformer trained in four precisions on the CPU.

An optional extra (``pip install .[lab]``: torch 2.13.0, CPU build); the site never imports it.
``python -m lab.run`` runs everything and writes ``lab/results/c09-precision.json``, which the site
reads at build time through ``c9/figures/lab.py`` and ``c9/views/lab_charts.py``.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG_PATH = HERE / "config.json"
RESULTS_PATH = HERE / "results" / "c09-precision.json"


def load_config(path: Path = CONFIG_PATH) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
