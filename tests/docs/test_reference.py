"""The API reference names every public name, and the version is the same everywhere."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import treefarm

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"
DIRECTIVE = re.compile(r"^\.\. (auto(?:class|function|data|exception|module)|py:data)::\s+(\S+)", re.M)


def documented(*, modules: bool = True) -> set[str]:
    return {
        name
        for page in API.glob("*.md")
        for kind, name in DIRECTIVE.findall(page.read_text(encoding="utf-8"))
        if modules or kind != "automodule"
    }


def test_every_public_name_has_an_api_entry() -> None:
    missing = sorted(n for n in treefarm.__all__ if f"treefarm.{n}" not in documented())
    assert not missing, (
        f"every name in treefarm.__all__ needs an entry in docs/api/treefarm.md "
        f"(an autodoc directive such as '.. autoclass:: treefarm.NAME'), but got no entry for {missing}"
    )


def test_every_api_entry_is_a_public_name() -> None:
    top = {n for n in documented(modules=False) if n.count(".") == 1}
    stale = sorted(n for n in top if n.split(".")[1] not in treefarm.__all__)
    assert not stale, f"docs/api/treefarm.md should document only names in treefarm.__all__, but got {stale}"


def test_the_extras_public_modules_are_documented() -> None:
    modules = {
        "treefarm.viz",
        "treefarm.dashboard",
        "treefarm.integration.sklearn",
        "treefarm.integration.optuna",
        "treefarm.execution.dask",
        "treefarm.pareto",
    }
    assert modules <= documented(), f"docs/api should document the modules {sorted(modules - documented())}"
    cli = (API / "cli.md").read_text(encoding="utf-8")
    assert ":module: treefarm.cli.main" in cli and ":func: parser" in cli, (
        "docs/api/cli.md should render the parser"
    )


def test_version_is_one_everywhere() -> None:
    metadata = importlib.metadata.version("treefarm")
    command = subprocess.run(
        [sys.executable, "-m", "treefarm.cli.main", "--version"], capture_output=True, text=True, check=True
    ).stdout.split()
    namespace: dict[str, object] = {"__file__": str(ROOT / "docs" / "conf.py"), "__name__": "conf"}
    exec(compile((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"), "docs/conf.py", "exec"), namespace)
    docs = namespace["release"]
    assert treefarm.__version__ == metadata == command[-1] == docs, (
        f"the version should be one, but got treefarm.__version__={treefarm.__version__!r}, "
        f"metadata={metadata!r}, treefarm --version={command!r}, docs={docs!r}"
    )
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and 'attr = "treefarm.__version__"' in pyproject, (
        "pyproject.toml should read the version from treefarm.__version__, not repeat it"
    )


def test_the_changelog_has_this_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(treefarm.__version__)}$", changelog, re.M), (
        f"CHANGELOG.md should have a section '## {treefarm.__version__}' for the current version"
    )
