"""The web apps' API client types are generated from the API's schema and must match it.

One generated file, web/src/lib/api/schema.d.ts; the admin console imports its types from there.

Fails when an endpoint changed without `./ops/gen-api-client` being run.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cara import api_schema

REPO = Path(__file__).resolve().parents[1]
API_DIR = REPO / "web" / "src" / "lib" / "api"


def test_committed_schema_matches_the_code() -> None:
    committed = (API_DIR / "openapi.json").read_text(encoding="utf-8")
    assert committed == api_schema.render(), "web/src/lib/api/openapi.json is stale: run ./ops/gen-api-client"


def test_generated_types_match_the_schema(tmp_path: Path) -> None:
    generator = REPO / "web" / "node_modules" / ".bin" / "openapi-typescript"
    if not generator.exists() or shutil.which("node") is None:
        pytest.skip("web/node_modules is not installed (./ops/test installs it)")
    out = tmp_path / "schema.d.ts"
    subprocess.run(
        [str(generator), str(API_DIR / "openapi.json"), "-o", str(out)],
        cwd=REPO / "web",
        check=True,
        capture_output=True,
    )
    assert out.read_text() == (API_DIR / "schema.d.ts").read_text(), (
        "web/src/lib/api/schema.d.ts is stale: run ./ops/gen-api-client"
    )
