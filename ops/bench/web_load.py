"""First load of the public pages on a slow phone link (issue #18 "Web").

Serves the built apps (web/dist at /, admin-web/dist at /admin/) the way the
product does (cara.kit.static.mount_spa behind the same GZipMiddleware), with
no database, then drives Debian's Chromium through playwright-core
(ops/bench/web_load.mjs) with DevTools throttling: 750 kb/s down, 250 kb/s up,
100 ms round trip, CPU 4x slower, cold cache (a fresh context per load). For
each page it prints the median time from navigation start until the login
form's email field is visible (target < 2 s), and the JavaScript/CSS bytes on
the wire before it was (the builds' Brotli/gzip files, served as the product
serves them: Chromium asks for Brotli over HTTPS only, so gzip here). Beside
them, in the same run, the floor of this link: a bare HTML page with the same
form and no script (ratio = page / floor).

It also prints the initial JavaScript + CSS (gzip) of each app from the build
output: the entry chunk and everything it imports statically, plus the route's
lazy chunk and its English translations for the clinician app (targets: <= 100 kB
for the clinician app's public routes, <= 150 kB for the admin console).

    .venv/bin/python ops/bench/web_load.py [--runs 3] [--build] [--out DIR]

--out DIR builds both apps into DIR/web and DIR/admin-web and measures those
(web/dist is rebuilt by every run of ./ops/test on a shared tree).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "platform"))

BARE_FORM = b"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>floor</title></head>
<body><main><h1>Doctor Login</h1><form><label>Email <input type="email" name="email"></label>
<label>Password <input type="password" name="password"></label><button>Login</button></form>
</main></body></html>"""

PAGES = [
    ["floor (bare HTML form)", "/__bench/bare.html", "input[type=email]"],
    ["web /doctor-login", "/doctor-login", "input[type=email]"],
    ["web / (role selection)", "/", "[role=radiogroup]"],
    ["admin /admin/login", "/admin/login", "input[name=email]"],
]
THROTTLE = {"downKbps": 750, "upKbps": 250, "rttMs": 100, "cpu": 4}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


WEB_DIST = REPO / "web" / "dist"
ADMIN_DIST = REPO / "admin-web" / "dist"


def _app() -> Any:
    from fastapi import FastAPI
    from fastapi.middleware.gzip import GZipMiddleware
    from fastapi.responses import Response

    from cara.kit.static import mount_spa

    app = FastAPI()
    app.add_api_route(
        "/__bench/bare.html", lambda: Response(BARE_FORM, media_type="text/html"), methods=["GET"]
    )
    mount_spa(app, prefix="/admin", dist=ADMIN_DIST)
    mount_spa(app, prefix="", dist=WEB_DIST, reserved=("api/", "admin/", "__bench/"))
    # As cara.main: the apps' scripts travel compressed.
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    return app


def _serve(port: int) -> None:
    import uvicorn

    uvicorn.run(_app(), host="127.0.0.1", port=port, log_level="warning")


def _gzip_kb(path: Path) -> float:
    return len(gzip.compress(path.read_bytes(), 9)) / 1024


def _closure(manifest: dict[str, Any], key: str, seen: set[str]) -> set[str]:
    entry = manifest.get(key)
    if not entry or entry["file"] in seen:
        return seen
    seen.add(entry["file"])
    for css in entry.get("css", []):
        seen.add(css)
    for imported in entry.get("imports", []):
        _closure(manifest, imported, seen)
    return seen


def initial_sizes() -> list[tuple[str, float, float]]:
    """(label, JS kB gzip, CSS kB gzip) loaded before the first screen of each app."""
    rows = []
    web = WEB_DIST
    manifest = json.loads((web / ".vite" / "manifest.json").read_text())
    entry = next(k for k, v in manifest.items() if v.get("isEntry"))
    routes = {
        "web /doctor-login": ("src/features/auth/routes/DoctorLogin.tsx", ["common", "auth"]),
        "web / (role selection)": ("src/features/landing/RoleSelectionPage.tsx", ["common", "auth"]),
        "web /doctor-register": ("src/features/register/routes/DoctorRegister.tsx", ["common", "register"]),
    }
    for label, (source, namespaces) in routes.items():
        files = _closure(manifest, entry, set())
        _closure(manifest, source, files)
        for namespace in namespaces:
            _closure(manifest, f"src/locales/en/{namespace}.json", files)
        js = sum(_gzip_kb(web / f) for f in files if f.endswith(".js"))
        css = sum(_gzip_kb(web / f) for f in files if f.endswith(".css"))
        rows.append((label, js, css))
    # The admin console: index.html's module scripts and their modulepreloads, and its stylesheets.
    admin = ADMIN_DIST
    html = (admin / "index.html").read_text()
    import re

    refs = set(re.findall(r'(?:src|href)="/admin/(assets/[^"]+\.(?:js|css))"', html))
    js = sum(_gzip_kb(admin / f) for f in refs if f.endswith(".js"))
    css = sum(_gzip_kb(admin / f) for f in refs if f.endswith(".css"))
    rows.append(("admin /admin/login", js, css))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="cold loads per page (median printed)")
    parser.add_argument("--build", action="store_true", help="build both apps first")
    parser.add_argument(
        "--out", type=Path, help="build (with --build) and serve the apps from DIR/web and DIR/admin-web"
    )
    args = parser.parse_args()
    global WEB_DIST, ADMIN_DIST
    if args.out:
        WEB_DIST, ADMIN_DIST = args.out.resolve() / "web", args.out.resolve() / "admin-web"
    if args.build:
        for app, dist in (("web", WEB_DIST), ("admin-web", ADMIN_DIST)):
            subprocess.run(
                ["npx", "vite", "build", "--outDir", str(dist), "--emptyOutDir"],
                cwd=REPO / app,
                check=True,
                capture_output=True,
            )
    for app, dist in (("web", WEB_DIST), ("admin-web", ADMIN_DIST)):
        if not (dist / "index.html").is_file():
            sys.exit(f"{app} is not built in {dist}: run with --build")

    port = _free_port()
    threading.Thread(target=_serve, args=(port,), daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            httpx.get(f"{base}/__bench/bare.html", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.2)

    result = subprocess.run(
        ["node", str(REPO / "ops" / "bench" / "web_load.mjs")],
        env={
            **os.environ,
            "BASE_URL": base,
            "PAGES": json.dumps(PAGES),
            "RUNS": str(args.runs),
            "THROTTLE": json.dumps(THROTTLE),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(result.stdout + result.stderr)
    loads: dict[str, list[dict[str, Any]]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            loads.setdefault(row["name"], []).append(row)

    print(
        f"First load, cold cache, {THROTTLE['downKbps']} kb/s down / {THROTTLE['upKbps']} kb/s up, "
        f"{THROTTLE['rttMs']} ms RTT, CPU x{THROTTLE['cpu']}, 390x844; median of {args.runs} loads"
    )
    floor = statistics.median(r["formVisibleMs"] for r in loads[PAGES[0][0]])
    print(
        f"{'page':28} {'form visible':>13} {'x floor':>8} {'JS wire kB':>11} {'CSS wire kB':>12}"
        "  all runs (ms)"
    )
    for name, *_ in PAGES:
        rows = loads[name]
        ms = statistics.median(r["formVisibleMs"] for r in rows)
        js = statistics.median(r["bytes"]["script"] for r in rows) / 1024
        css = statistics.median(r["bytes"]["stylesheet"] for r in rows) / 1024
        runs = ", ".join(str(r["formVisibleMs"]) for r in rows)
        verdict = "" if name == PAGES[0][0] else ("  < 2 s: PASS" if ms < 2000 else "  < 2 s: MISS")
        print(f"{name:28} {ms:>10.0f} ms {ms / floor:>7.2f}x {js:>11.1f} {css:>12.1f}  {runs}{verdict}")

    print("\nInitial JavaScript + CSS from the build (gzip -9, kB)")
    print(f"{'app / route':28} {'JS':>7} {'CSS':>7} {'total':>7}  budget")
    for label, js, css in initial_sizes():
        budget = 150 if label.startswith("admin") else 100
        verdict = "PASS" if js <= budget else "MISS"
        print(f"{label:28} {js:>7.1f} {css:>7.1f} {js + css:>7.1f}  JS <= {budget} kB: {verdict}")


if __name__ == "__main__":
    main()
