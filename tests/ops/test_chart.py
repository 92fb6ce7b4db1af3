"""The Helm chart rendered by Helm's own library, every object validated, and checkov's verdict.

`helm-python-sdk` (Helm v4's Go library in a wheel) renders the chart for each values set a
hospital may install with; `kubernetes-validate` checks every object against the schemas of the
oldest and the newest Kubernetes version the chart is tested on, in strict mode (an unknown field
fails); checkov's Kubernetes policies must find nothing beyond the checks the chart's README
accepts, each with its reason. Checkov runs from its own environment (`.data/checkov-venv`, made
by ./ops/test from requirements-checkov.txt: its pins conflict with the application's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import helm_python
import kubernetes_validate
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CHART = REPO / "ops" / "deploy" / "helm" / "cara"
CHART_README = CHART / "README.md"
RELEASE = "cara"
NAMESPACE = "clinic"
# The chart's kubeVersion floor and the newest schemas kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.25.0", "1.37.0")
DIGEST = "sha256:" + "0" * 63 + "1"

SCENARIOS: dict[str, dict[str, Any]] = {
    "default": {},
    "citus": yaml.safe_load((CHART / "values-citus.yaml").read_text()),
    "autoscaling": {"api": {"autoscaling": {"enabled": True}}},
    "no-pgbouncer": {"pgbouncer": {"enabled": False}, "config": {"DB_TRANSACTION_POOLING": "false"}},
    "digests": {"image": {"digest": DIGEST}, "pgbouncer": {"image": {"digest": DIGEST}}},
}
# Offline: no download of Prisma Cloud's guidelines, which this network cannot reach.
OFFLINE = ("--skip-download",)
CHECKOV_OPTIONS = ("--framework", "kubernetes", "-o", "json", "--quiet", *OFFLINE)
SECRET_LIKE = re.compile(r"SECRET|PASSWORD|KEY|TOKEN|DATABASE_URL|REDIS_URL")


@pytest.fixture(autouse=True)
def clean_state() -> Iterator[None]:
    """These tests render files: no database or Redis reset around each of them."""
    yield


@cache
def rendered(scenario: str) -> tuple[dict[str, str], tuple[dict[str, Any], ...]]:
    with helm_python.Chart.load(CHART) as chart:
        files = chart.render(SCENARIOS[scenario], name=RELEASE, namespace=NAMESPACE, is_install=True)
    objects = tuple(doc for text in files.values() for doc in yaml.safe_load_all(text) if doc)
    return files, objects


def objects(scenario: str) -> tuple[dict[str, Any], ...]:
    return rendered(scenario)[1]


def named(scenario: str, kind: str, name: str) -> dict[str, Any]:
    (found,) = [o for o in objects(scenario) if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def pod_specs(scenario: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(object, pod template) of every workload."""
    for o in objects(scenario):
        if o["kind"] in ("Deployment", "Job"):
            yield o, o["spec"]["template"]


def hooks(o: dict[str, Any]) -> set[str]:
    value = (o["metadata"].get("annotations") or {}).get("helm.sh/hook", "")
    return {h.strip() for h in value.split(",") if h.strip()}


def accepted_checks() -> dict[str, str]:
    """check id -> reason, from the chart README's table of accepted checkov findings."""
    row = re.compile(r"^\|\s*`?(CKV2?_K8S_\d+)`?\s*\|[^|]*\|\s*([^|]+?)\s*\|\s*$", re.M)
    return dict(row.findall(CHART_README.read_text()))


# -- Helm ---------------------------------------------------------------------------------------


def test_the_chart_lints_without_error() -> None:
    result = helm_python.lint(CHART, values=SCENARIOS["default"], strict=False, namespace=NAMESPACE)
    assert result["errors"] == [], result
    assert not [m for m in result["messages"] if m["severity"] >= 3], result["messages"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_scenario_renders_what_it_says(scenario: str) -> None:
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects(scenario)}
    assert ("Deployment", "cara-api") in kinds and ("Job", "cara-migrate") in kinds
    assert (("Deployment", "cara-pgbouncer") in kinds) == (scenario != "no-pgbouncer")
    assert (("HorizontalPodAutoscaler", "cara-api") in kinds) == (scenario == "autoscaling")
    for o in objects(scenario):
        assert o["metadata"].get("namespace") == NAMESPACE, f"{o['kind']} {o['metadata']['name']}"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_object_validates_strictly(scenario: str, version: str) -> None:
    for o in objects(scenario):
        try:
            kubernetes_validate.validate(o, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{o['kind']} {o['metadata']['name']} on Kubernetes {version}: {exc.message}")


# -- install order --------------------------------------------------------------------------------


def test_no_hook_that_needs_the_database_runs_before_the_release_exists() -> None:
    """A pre-install hook runs before any object of the release: not its PgBouncer Service either."""
    for scenario in ("default", "citus"):
        job = named(scenario, "Job", "cara-migrate")
        assert "pre-install" not in hooks(job), "the migrations could not reach the release's PgBouncer"
        assert {"post-install", "pre-upgrade"} <= hooks(job)
        assert any(
            o["kind"] == "Service" and o["metadata"]["name"] == "cara-pgbouncer" and not hooks(o)
            for o in objects(scenario)
        ), "PgBouncer is an ordinary object of the release"


def test_the_migrations_wait_for_the_database_first() -> None:
    job = named("default", "Job", "cara-migrate")
    pod = job["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    assert init["command"][:4] == ["python", "-m", "tenants", "wait-db"]
    assert init["envFrom"] == pod["containers"][0]["envFrom"], "the same DATABASE_URL as the migrations"


# -- probes, network, secrets -----------------------------------------------------------------------


@pytest.mark.parametrize("component", ["worker", "scheduler"])
def test_worker_and_scheduler_are_probed_on_their_heartbeat(component: str) -> None:
    deployment = named("default", "Deployment", f"cara-{component}")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = container[probe]["exec"]["command"]
        assert command[:4] == ["python", "-m", "workers.health", component], (probe, command)
        assert float(command[command.index("--max-age") + 1]) >= 20, "at least two beats' time"
    assert (REPO / "workers" / "health.py").is_file()


@pytest.mark.parametrize("scenario", ["default", "no-pgbouncer"])
def test_every_pod_has_a_network_policy(scenario: str) -> None:
    policies = [o for o in objects(scenario) if o["kind"] == "NetworkPolicy"]
    for o, template in pod_specs(scenario):
        labels = template["metadata"]["labels"]
        covering = [p for p in policies if p["spec"]["podSelector"]["matchLabels"].items() <= labels.items()]
        assert covering, f"{o['kind']} {o['metadata']['name']} has no NetworkPolicy"
        assert all("Ingress" in p["spec"]["policyTypes"] for p in covering)


def test_only_the_api_port_and_pgbouncer_take_connections() -> None:
    api = named("default", "NetworkPolicy", "cara-api")["spec"]
    assert [r["ports"] for r in api["ingress"]] == [[{"protocol": "TCP", "port": 8000}]]
    pgb = named("default", "NetworkPolicy", "cara-pgbouncer")["spec"]
    (rule,) = pgb["ingress"]
    assert rule["from"] == [
        {
            "podSelector": {
                "matchLabels": {"app.kubernetes.io/name": "cara", "app.kubernetes.io/instance": RELEASE}
            }
        }
    ]
    for component in ("worker", "scheduler", "migrate"):
        assert named("default", "NetworkPolicy", f"cara-{component}")["spec"]["ingress"] == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_secrets_come_only_from_secret_objects(scenario: str) -> None:
    for o, template in pod_specs(scenario):
        spec = template["spec"]
        for container in [*spec.get("initContainers", []), *spec["containers"]]:
            for var in container.get("env", []):
                if SECRET_LIKE.search(var["name"]):
                    assert "value" not in var, f"{o['metadata']['name']}: {var['name']} is a literal"
                    assert "secretKeyRef" in var.get("valueFrom", {}), var
            for source in container.get("envFrom", []):
                assert set(source) <= {"secretRef", "configMapRef"}, source
    for o in objects(scenario):
        assert o["kind"] != "Secret", "the chart holds no secret value"
        if o["kind"] == "ConfigMap":
            assert not [k for k in o["data"] if SECRET_LIKE.search(k)], o["data"]


def test_a_digest_pins_every_image() -> None:
    for _, template in pod_specs("digests"):
        spec = template["spec"]
        for container in [*spec.get("initContainers", []), *spec["containers"]]:
            assert container["image"].endswith("@" + DIGEST), container["image"]


# -- checkov ---------------------------------------------------------------------------------------


def checkov_program() -> str | None:
    configured = os.environ.get("CARA_CHECKOV")
    if configured:
        return configured
    own = REPO / ".data" / "checkov-venv" / "bin" / "checkov"
    if own.is_file():
        return str(own)
    # Another worktree of the same repository may hold the environment (the main checkout).
    common = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if common:
        shared = Path(common).parent / ".data" / "checkov-venv" / "bin" / "checkov"
        if shared.is_file():
            return str(shared)
    return shutil.which("checkov")


def checkov_failures(scenario: str, tmp_path: Path) -> list[tuple[str, str]]:
    program = checkov_program()
    if program is None:
        pytest.skip("checkov is not installed (./ops/test makes .data/checkov-venv)")
    files, _ = rendered(scenario)
    for path, text in files.items():
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    run = subprocess.run(
        [program, "-d", str(tmp_path), *CHECKOV_OPTIONS],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE", "CHECKOV_RUN_SCA_PACKAGE_SCAN_V2": "false"},
    )
    assert run.returncode in (0, 1), run.stderr[-2000:]
    report = json.loads(run.stdout)
    report = report[0] if isinstance(report, list) else report
    assert report["summary"]["parsing_errors"] == 0, report["summary"]
    assert report["summary"]["resource_count"] >= len(objects(scenario)) - 1
    return [(c["check_id"], c["resource"]) for c in report["results"]["failed_checks"]]


def test_the_readme_gives_a_reason_for_every_accepted_check() -> None:
    accepted = accepted_checks()
    assert set(accepted) == {"CKV_K8S_15", "CKV_K8S_35", "CKV_K8S_43"}, accepted
    assert all(len(reason) > 40 for reason in accepted.values()), accepted


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_checkov_fails_no_check_but_the_accepted_ones(scenario: str, tmp_path: Path) -> None:
    failures = checkov_failures(scenario, tmp_path)
    unaccepted = sorted({f for f in failures if f[0] not in accepted_checks()})
    assert unaccepted == [], unaccepted


def test_with_digests_only_the_secret_environment_check_remains(tmp_path: Path) -> None:
    assert {check for check, _ in checkov_failures("digests", tmp_path)} == {"CKV_K8S_35"}


def test_checkov_fails_no_check_of_the_dockerfile() -> None:
    program = checkov_program()
    if program is None:
        pytest.skip("checkov is not installed (./ops/test makes .data/checkov-venv)")
    run = subprocess.run(
        [
            program,
            "-f",
            str(REPO / "Dockerfile"),
            "--framework",
            "dockerfile",
            "-o",
            "json",
            "--quiet",
            *OFFLINE,
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE"},
    )
    report = json.loads(run.stdout)
    report = report[0] if isinstance(report, list) else report
    assert report["summary"]["passed"] > 0, report["summary"]
    failed = [(c["check_id"], c["check_name"]) for c in report["results"]["failed_checks"]]
    assert failed == [], failed
