# syntax=docker/dockerfile:1
#
# One image for every Cara process. The API is the default command; the worker,
# the scheduler and the migrations run the same image with another command:
#   python -m dramatiq workers.registry --processes 1 --threads 4 --worker-shutdown-timeout 30000
#   python -m workers.scheduler
#   sh -c "python -m tenants upgrade && python -m cara.seed"

# -- the two web apps ------------------------------------------------------------------------
FROM node:20 AS web
WORKDIR /src
# Manifests before sources, so the npm ci layers are reused until a lockfile changes.
COPY web/package.json web/package-lock.json web/
COPY admin-web/package.json admin-web/package-lock.json admin-web/
WORKDIR /src/web
RUN npm ci --no-audit --no-fund --loglevel=error
WORKDIR /src/admin-web
RUN npm ci --no-audit --no-fund --loglevel=error
WORKDIR /src
COPY web/ web/
COPY admin-web/ admin-web/
WORKDIR /src/web
RUN npm run build
WORKDIR /src/admin-web
RUN npm run build

# -- Python packages -------------------------------------------------------------------------
# Built in their own stage so pip and its caches stay out of the runtime image. The venv is
# at the same path in both stages because its scripts and symlinks are absolute.
# The Debian release is named (trixie, 13) so that the apt packages below can be pinned.
FROM python:3.11-slim-trixie AS python-deps
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
COPY requirements.txt requirements-speech.txt /tmp/
RUN /opt/venv/bin/pip install --upgrade pip \
 && /opt/venv/bin/pip install -r /tmp/requirements.txt \
 && /opt/venv/bin/pip install --require-hashes --no-deps -r /tmp/requirements-speech.txt
# The API package lives in platform/cara so that no package is named `platform` (it would
# shadow the standard library). As ops/lib/bootstrap.sh does for .venv, a .pth file puts
# platform/ (cara) and the application root (tenants, workers) on every interpreter's path,
# including the processes Dramatiq and the tenant migrations start.
RUN printf '%s\n%s\n' /app/platform /app \
    > "$(/opt/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cara-paths.pth"

# -- runtime ---------------------------------------------------------------------------------
FROM python:3.11-slim-trixie
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CARA_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000
# DejaVu: the Unicode fonts the signed-note PDF is set in (cara.consultations.export); without
# them the PDF falls back to a Latin-1 core font and replaces every other character.
# Pinned to trixie's version: a rebuild installs the same font files.
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-dejavu-core=2.37-8 \
 && rm -rf /var/lib/apt/lists/*
# A fixed numeric id, so Kubernetes can verify runAsNonRoot without a name lookup.
RUN groupadd --system --gid 10001 cara \
 && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home \
      --shell /usr/sbin/nologin cara
COPY --from=python-deps /opt/venv /opt/venv
WORKDIR /app
# cara.main finds the built web apps relative to the application root (web/dist, admin-web/dist).
COPY platform/ platform/
COPY tenants/ tenants/
COPY workers/ workers/
COPY --from=web /src/web/dist web/dist
COPY --from=web /src/admin-web/dist admin-web/dist
# Bytecode is compiled now because the root filesystem is read-only at run time.
RUN python -m compileall -q platform tenants workers
# The code stays owned by root: the application user can read it, not change it.
USER 10001:10001
EXPOSE 8000
# The API's liveness route (200 while the process serves HTTP, whatever the database does). The
# worker and the scheduler run this image with another command and their own check
# (`python -m workers.health worker|scheduler`, as compose.yaml and the chart's probes do).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/api/health/live' % os.environ.get('PORT', '8000'), timeout=4)"]
CMD ["python", "-m", "cara.serve"]
