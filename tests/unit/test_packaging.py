"""The package's metadata: every dependency is used, PostgreSQL is an extra, the licence
is there. (scripts/wheel-check.sh installs the built wheel and uses it.)"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _name(requirement: str) -> str:
    """The distribution's normalized name: "ruamel.yaml>=0.18" -> "ruamel-yaml"."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def _imported_modules() -> set[str]:
    """Top-level modules that src/wirespeed imports (anywhere, also inside functions)."""
    found: set[str] = set()
    for path in (ROOT / "src" / "wirespeed").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


def test_every_dependency_is_imported() -> None:
    providers = importlib.metadata.packages_distributions()  # module -> distributions
    imported = {
        _name(distribution)
        for module in _imported_modules()
        for distribution in providers.get(module, [])
    }
    unused = [req for req in PROJECT["dependencies"] if _name(req) not in imported]
    assert unused == []


def test_postgresql_is_an_extra() -> None:
    assert not [req for req in PROJECT["dependencies"] if _name(req).startswith("psycopg")]
    assert [_name(req) for req in PROJECT["optional-dependencies"]["postgres"]] == ["psycopg"]


def test_the_licence_is_mit_and_shipped() -> None:
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the wirespeed authors" in text
