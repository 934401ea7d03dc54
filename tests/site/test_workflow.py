"""The GitHub Pages workflow: actionlint finds nothing, and it deploys the way the README says (a Pages
artifact, not a gh-pages branch, with the address from actions/configure-pages)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def _actionlint() -> str:
    """The actionlint that the `test` extra installs (next to this Python), else one on PATH."""
    local = Path(sys.executable).parent / "actionlint"
    found = str(local) if local.exists() else shutil.which("actionlint")
    assert found, "actionlint is missing: pip install -e '.[test]'"
    return found


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _steps(workflow: dict) -> list[tuple[str, int, dict]]:
    return [
        (job, i, step)
        for job, spec in workflow["jobs"].items()
        for i, step in enumerate(spec.get("steps", []))
    ]


def _uses(step: dict, action: str) -> bool:
    return step.get("uses", "").split("@")[0] == action


def test_actionlint_finds_nothing():
    # With shellcheck on PATH, actionlint also checks the `run:` scripts.
    proc = subprocess.run(
        [_actionlint(), "-no-color", str(WORKFLOW)], cwd=ROOT, capture_output=True, text=True
    )
    assert (proc.returncode, proc.stdout + proc.stderr) == (0, "")


def test_actionlint_would_catch_a_mistake(tmp_path):
    """The check can fail: a misspelt step output and an unknown input are findings."""
    bad = WORKFLOW.read_text().replace("steps.pages.outputs.base_url", "steps.pages.outputs.base_ulr")
    bad = bad.replace("with: {path: site}", "with: {path: site, retention: 1}")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    target = tmp_path / ".github" / "workflows" / "pages.yml"
    target.write_text(bad)
    proc = subprocess.run(
        [_actionlint(), "-no-color", str(target)], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "base_ulr" in proc.stdout and "retention" in proc.stdout, proc.stdout


def test_deploys_a_pages_artifact_not_a_branch(workflow):
    steps = _steps(workflow)
    upload = [(job, s) for job, _, s in steps if _uses(s, "actions/upload-pages-artifact")]
    deploy = [(job, s) for job, _, s in steps if _uses(s, "actions/deploy-pages")]
    assert len(upload) == 1 and upload[0][1]["with"]["path"] == "site"
    assert len(deploy) == 1
    build_job, deploy_job = upload[0][0], deploy[0][0]
    needs = workflow["jobs"][deploy_job]["needs"]
    assert deploy_job != build_job and build_job in ([needs] if isinstance(needs, str) else needs)
    assert workflow["jobs"][deploy_job]["environment"]["name"] == "github-pages"
    # The Pages deployment needs these and nothing more: the workflow never pushes to the repository.
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    text = WORKFLOW.read_text()
    assert not re.search(r"gh-pages|gh-deploy|actions-gh-pages|git push", text)


def test_site_url_comes_from_configure_pages(workflow):
    steps = [s for _, _, s in _steps(workflow)]
    pages = [i for i, s in enumerate(steps) if _uses(s, "actions/configure-pages")]
    assert len(pages) == 1
    step_id = steps[pages[0]]["id"]
    builds = [i for i, s in enumerate(steps) if "SITE_URL" in (s.get("env") or {})]
    assert len(builds) == 1 and builds[0] > pages[0]
    build = steps[builds[0]]
    assert build["env"]["SITE_URL"] == f"${{{{ steps.{step_id}.outputs.base_url }}}}/"
    assert build["run"].strip() == "make build"
    # and the build reads it: mkdocs.yml's site_url is that variable
    assert re.search(r"^site_url: !ENV \[SITE_URL,", (ROOT / "mkdocs.yml").read_text(), re.M)
    # the tests run before the build and deploy
    tests = [i for i, s in enumerate(steps) if s.get("run", "").startswith("make test")]
    assert tests and tests[0] < builds[0]
