"""The code passes its linters: ruff's format and rules over the Python (pyproject.toml: tool.ruff), ESLint's
recommended rules over the JavaScript (eslint.config.js; `npm run lint`). `make lint` runs the same three."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUFF = [sys.executable, "-m", "ruff"]


@pytest.mark.parametrize(
    "command",
    [RUFF + ["format", "--check", "."], RUFF + ["check", "."], ["npm", "run", "--silent", "lint"]],
    ids=["ruff-format", "ruff-check", "eslint"],
)
def test_the_code_passes_its_linter(command):
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
