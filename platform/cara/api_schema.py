"""Print the API's OpenAPI schema as stable JSON: `python -m cara.api_schema [out.json]`.

The web app's typed client is generated from this file (ops/gen-api-client);
a test keeps the committed copy equal to what the code declares.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def schema() -> dict[str, Any]:
    from cara.main import create_app

    return create_app().openapi()


def render() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if argv:
        Path(argv[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
