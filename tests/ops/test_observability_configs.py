"""The observability configs in ops/observability agree with each other and with the code.

Nothing here runs the collector, Tempo, Prometheus or Grafana; the files are
parsed and cross-checked:

* the collector's pipelines: spans are redacted, then exported to Tempo and
  to the spanmetrics connector, whose metrics reach the Prometheus exporter;
* the redaction deletes personal attributes and keeps what the dashboard needs;
* every metric the dashboard queries exists: either an instrument of
  `cara.observability.names` or a series the spanmetrics connector produces
  under the collector's naming settings (computed from the config here, not
  written down a second time), and every label it groups or filters on is
  one those series carry;
* every data source uid a panel names is provisioned, and the ports and hosts
  of the four pieces point at each other.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from cara.config import Settings
from cara.observability.names import INSTRUMENTS

REPO = Path(__file__).resolve().parents[2]
OBS = REPO / "ops" / "observability"
COMPOSE = REPO / "ops" / "deploy" / "compose.yaml"

# Dimensions the spanmetrics connector always adds, as Prometheus labels.
SPANMETRICS_STANDARD_LABELS = {"service_name", "span_name", "span_kind", "status_code"}
# Labels the prometheus exporter adds to every series (job/instance always; the
# service_* ones through resource_to_telemetry_conversion).
RESOURCE_LABELS = {"job", "instance", "service_name", "service_instance_id"}
# What a listener in a container binds to so that the other containers reach it.
ALL_INTERFACES = "0.0.0.0"  # noqa: S104
GRAFANA_BUILTIN_VARIABLES = {"__rate_interval", "__interval", "__range", "__all"}


# --- loading ---------------------------------------------------------------------------


def _yaml(relative: str) -> Any:
    return yaml.safe_load((OBS / relative).read_text(encoding="utf-8"))


@cache
def collector() -> dict[str, Any]:
    return _yaml("otel-collector.yaml")


@cache
def tempo() -> dict[str, Any]:
    return _yaml("tempo.yaml")


@cache
def prometheus() -> dict[str, Any]:
    return _yaml("prometheus.yaml")


@cache
def datasources() -> list[dict[str, Any]]:
    return _yaml("grafana/provisioning/datasources/datasources.yaml")["datasources"]


@cache
def dashboard_files() -> tuple[Path, ...]:
    return tuple(sorted((OBS / "grafana" / "dashboards").glob("*.json")))


@cache
def dashboard() -> dict[str, Any]:
    return json.loads((OBS / "grafana" / "dashboards" / "cara-overview.json").read_text(encoding="utf-8"))


def _datasource(type_: str) -> dict[str, Any]:
    (found,) = [d for d in datasources() if d["type"] == type_]
    return found


def _port(address: str) -> int:
    """Port of "host:port" or of a URL."""
    if "//" in address:
        port = urlsplit(address).port
        assert port is not None, address
        return port
    return int(address.rsplit(":", 1)[1])


def _host(address: str) -> str:
    if "//" in address:
        host = urlsplit(address).hostname
        assert host is not None, address
        return host
    return address.rsplit(":", 1)[0]


def _duration_seconds(text: str) -> float:
    """A Go duration as the collector and Tempo read it ("250ms", "1s", "336h")."""
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)", str(text))
    assert parts and "".join(n + u for n, u in parts) == str(text), f"not a duration: {text!r}"
    return sum(float(n) * units[u] for n, u in parts)


# --- the collector's naming, computed from its config -----------------------------------


def _prometheus_exporter() -> dict[str, Any]:
    return collector()["exporters"]["prometheus"]


def _metric_suffixes() -> bool:
    """Whether the prometheus exporter appends unit and type suffixes (`_seconds`, `_total`)."""
    exporter = _prometheus_exporter()
    strategy = exporter.get("translation_strategy")
    if strategy is not None:
        # The other strategies keep dots in names, which PromQL cannot select without quoting.
        assert strategy.startswith("UnderscoreEscaping"), strategy
        return strategy == "UnderscoreEscapingWithSuffixes"
    return bool(exporter.get("add_metric_suffixes", True))


def _escape(otel_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_:]", "_", otel_name)


@cache
def spanmetrics_series() -> dict[str, str]:
    """The Prometheus names of the spanmetrics connector's series, from the collector config."""
    connector = collector()["connectors"]["spanmetrics"]
    exporter = _prometheus_exporter()
    suffixes = _metric_suffixes()
    base = _escape(connector["namespace"])
    # OpenMetrics exposition names every counter sample *_total, whatever the suffix setting.
    calls = f"{base}_calls" + ("_total" if suffixes or exporter.get("enable_open_metrics") else "")
    unit_word = {"ms": "milliseconds", "s": "seconds"}[connector["histogram"]["unit"]]
    duration = f"{base}_duration" + (f"_{unit_word}" if suffixes else "")
    return {
        "calls": calls,
        "duration_bucket": f"{duration}_bucket",
        "duration_sum": f"{duration}_sum",
        "duration_count": f"{duration}_count",
    }


def spanmetrics_labels() -> set[str]:
    dimensions = collector()["connectors"]["spanmetrics"]["dimensions"]
    return {_escape(d["name"]) for d in dimensions} | SPANMETRICS_STANDARD_LABELS


def instrument_names() -> dict[str, Any]:
    return {i.prometheus_name: i for i in INSTRUMENTS}


# --- PromQL, enough of it to find metric and label names ---------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)")
_SELECTOR = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)?\s*\{([^{}]*)\}")
_MATCHER_LABEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")
_RANGE = re.compile(r"\[[^\]]*\]")
_IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
_KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


class Query:
    def __init__(self, expr: str) -> None:
        self.expr = expr
        text = expr.replace("$__tags", "")  # Grafana's span tags, expanded into matchers
        text = _STRING.sub('""', text)
        self.grouping: set[str] = set()
        for _, labels in _GROUPING.findall(text):
            self.grouping |= {label.strip() for label in labels.split(",") if label.strip()}
        text = _GROUPING.sub(" ", text)
        self.matchers: set[str] = set()
        for _, body in _SELECTOR.findall(text):
            self.matchers |= set(_MATCHER_LABEL.findall(body))
        text = _SELECTOR.sub(lambda m: f" {m.group(1) or ''} ", text)
        text = _RANGE.sub(" ", text)
        self.metrics = {
            m.group(0)
            for m in _IDENT.finditer(text)
            if m.group(0).lower() not in _KEYWORDS and not text[m.end() :].lstrip().startswith("(")
        }

    @property
    def labels(self) -> set[str]:
        return self.grouping | self.matchers


def _panels(panels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for panel in panels:
        out.append(panel)
        out.extend(_panels(panel.get("panels", [])))
    return out


def data_panels() -> list[dict[str, Any]]:
    return [p for p in _panels(dashboard()["panels"]) if p["type"] != "row"]


def dashboard_promql() -> list[tuple[str, Query]]:
    """(where, query) for every PromQL expression of the dashboard."""
    out = []
    for panel in data_panels():
        for target in panel.get("targets", []):
            uid = (target.get("datasource") or panel["datasource"])["uid"]
            if _datasource_types().get(uid) == "prometheus":
                out.append((f"panel {panel['title']!r} {target['refId']}", Query(target["expr"])))
    return out


def variable_queries() -> list[tuple[str, str, str]]:
    """(variable, metric, label) for every label_values() variable."""
    out = []
    for variable in dashboard()["templating"]["list"]:
        query = variable.get("query")
        text = query.get("query", "") if isinstance(query, dict) else str(query or "")
        for metric, label in re.findall(r"label_values\(\s*([A-Za-z_:][\w:]*)\s*,\s*(\w+)\s*\)", text):
            out.append((variable["name"], metric, label))
    return out


def traces_to_metrics_queries() -> list[tuple[str, Query]]:
    links = _datasource("tempo")["jsonData"]["tracesToMetrics"]
    # Grafana reads `$$` in a provisioning file as a literal `$`.
    return [
        (f"tracesToMetrics {q['name']!r}", Query(q["query"].replace("$$", "$"))) for q in links["queries"]
    ]


def all_promql() -> list[tuple[str, Query]]:
    return dashboard_promql() + traces_to_metrics_queries()


@cache
def _datasource_types() -> dict[str, str]:
    return {d["uid"]: d["type"] for d in datasources()}


# --- collector ------------------------------------------------------------------------------


def _pipelines(signal: str) -> dict[str, dict[str, Any]]:
    pipelines = collector()["service"]["pipelines"]
    found = {name: p for name, p in pipelines.items() if name.split("/")[0] == signal}
    assert found, f"no {signal} pipeline"
    return found


def test_every_component_a_pipeline_names_is_defined_and_every_defined_one_is_used() -> None:
    config = collector()
    connectors = set(config.get("connectors", {}))
    used: dict[str, set[str]] = {"receivers": set(), "processors": set(), "exporters": set()}
    as_exporter: set[str] = set()
    as_receiver: set[str] = set()
    for name, pipeline in config["service"]["pipelines"].items():
        for section in ("receivers", "processors", "exporters"):
            for component in pipeline.get(section, []):
                defined = set(config.get(section, {}))
                if section != "processors":
                    defined |= connectors
                assert component in defined, f"pipeline {name} uses undefined {section[:-1]} {component}"
                used[section].add(component)
        as_receiver |= set(pipeline["receivers"]) & connectors
        as_exporter |= set(pipeline["exporters"]) & connectors
    for section, names in used.items():
        assert set(config.get(section, {})) <= names, f"{section} defined but in no pipeline"
    # A connector is the exporter of one pipeline and the receiver of another, or it does nothing.
    assert connectors == as_exporter == as_receiver
    assert set(config["service"]["extensions"]) == set(config["extensions"])


def test_otlp_receiver_listens_on_the_standard_ports_for_other_containers() -> None:
    protocols = collector()["receivers"]["otlp"]["protocols"]
    assert _port(protocols["grpc"]["endpoint"]) == 4317
    assert _port(protocols["http"]["endpoint"]) == 4318  # what the Python processes use
    for protocol in protocols.values():
        assert _host(protocol["endpoint"]) == ALL_INTERFACES, "localhost is unreachable from the app"


def test_traces_pipeline_exports_to_tempo_and_to_spanmetrics_whose_metrics_reach_prometheus() -> None:
    exporters = collector()["exporters"]
    (traces,) = _pipelines("traces").values()
    assert "otlp" in traces["receivers"]
    to_tempo = [e for e in traces["exporters"] if e.split("/")[0] in ("otlp", "otlp_grpc")]
    assert len(to_tempo) == 1, traces["exporters"]
    endpoint = exporters[to_tempo[0]]["endpoint"]
    assert _host(endpoint) == "tempo"
    assert exporters[to_tempo[0]]["tls"]["insecure"] is True
    tempo_grpc = tempo()["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"]
    assert _port(endpoint) == _port(tempo_grpc), "the collector sends where Tempo does not listen"
    assert "spanmetrics" in traces["exporters"]

    metrics = _pipelines("metrics")
    receiving = [p for p in metrics.values() if "spanmetrics" in p["receivers"]]
    assert len(receiving) == 1
    assert "prometheus" in receiving[0]["exporters"]
    assert any("otlp" in p["receivers"] and "prometheus" in p["exporters"] for p in metrics.values()), (
        "the processes' own instruments (OTLP metrics) must reach Prometheus too"
    )


def _redaction_processors() -> list[str]:
    return [name for name in collector()["processors"] if name.split("/")[-1] == "redaction"]


def test_redaction_runs_in_every_traces_pipeline_before_anything_is_exported() -> None:
    redaction = _redaction_processors()
    assert "attributes/redaction" in redaction
    for name, pipeline in _pipelines("traces").items():
        processors = pipeline["processors"]
        assert processors[0] == "memory_limiter", name
        assert processors[-1] == "batch", name
        for processor in redaction:
            assert processor in processors, f"{processor} missing from {name}"
            assert 0 < processors.index(processor) < processors.index("batch")


def _deleted(attribute: str) -> bool:
    """Whether attributes/redaction deletes this span attribute (patterns are RE2, searched)."""
    for action in collector()["processors"]["attributes/redaction"]["actions"]:
        if action["action"] != "delete":
            continue
        if action.get("key") == attribute:
            return True
        if "pattern" in action and re.search(action["pattern"], attribute):
            return True
    return False


@pytest.mark.parametrize(
    "attribute",
    [
        "enduser.id",
        "enduser.role",
        "user.email",
        "http.request.header.authorization",
        "http.request.header.cookie",
        "http.response.header.set_cookie",
        "http.url",
        "url.full",
        "url.query",
        "client.address",
        "net.peer.ip",
        "gen_ai.prompt",
        "gen_ai.prompt.0.content",
        "gen_ai.completion",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.call.arguments",
        "db.query.parameter.email",
    ],
)
def test_redaction_deletes_attributes_that_can_carry_personal_data(attribute: str) -> None:
    assert _deleted(attribute)


def test_redaction_keeps_the_attributes_metrics_and_traces_are_read_by() -> None:
    dimensions = [d["name"] for d in collector()["connectors"]["spanmetrics"]["dimensions"]]
    kept = [
        *dimensions,
        "http.method",
        "http.target",
        "db.system",
        "db.statement",
        "messaging.message.id",
        "cara.retries",
        "gen_ai.operation.name",
        "gen_ai.system",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.prompt_tokens",
        "error.type",
    ]
    assert [a for a in kept if _deleted(a)] == []


def test_redaction_strips_exception_messages_from_span_events_and_status() -> None:
    (transform,) = [p for p in _redaction_processors() if p.startswith("transform/")]
    groups = collector()["processors"][transform]["trace_statements"]
    by_context: dict[str, str] = {}
    for group in groups:
        by_context[group["context"]] = by_context.get(group["context"], "") + "\n".join(group["statements"])
    assert 'delete_key(attributes, "exception.message")' in by_context["spanevent"]
    assert 'delete_key(attributes, "exception.stacktrace")' in by_context["spanevent"]
    assert "status.message" in by_context["span"]


def test_spanmetrics_buckets_cover_5ms_to_60s_and_the_thresholds_the_dashboard_uses() -> None:
    connector = collector()["connectors"]["spanmetrics"]
    # Explicit, because defaults have changed between releases and the names depend on them.
    assert connector["namespace"]
    assert connector["histogram"]["unit"] in ("ms", "s")
    buckets = [_duration_seconds(b) for b in connector["histogram"]["explicit"]["buckets"]]
    assert buckets == sorted(set(buckets)), "buckets must be strictly increasing"
    assert buckets[0] <= 0.005
    assert buckets[-1] >= 60
    # A quantile can only be told apart from a threshold that is a bucket boundary.
    assert Settings.model_fields["summary_timeout_seconds"].default in buckets
    for query in _traceql_queries():
        for threshold in re.findall(r"duration\s*>\s*(\d+(?:ms|s|m))", query):
            assert _duration_seconds(threshold) in buckets, query


def test_own_metric_names_are_the_ones_in_names_py() -> None:
    exporter = _prometheus_exporter()
    assert "namespace" not in exporter, "a namespace would prefix every name listed in names.py"
    assert exporter["resource_to_telemetry_conversion"]["enabled"] is True, "service_name label"
    if _metric_suffixes():
        # With suffixes on, only brace-annotation units (dropped) keep names.py's names; its
        # instruments are gauges, which get no `_total`.
        assert all(re.fullmatch(r"\{[^}]*\}", i.unit) for i in INSTRUMENTS)


# --- dashboard --------------------------------------------------------------------------------


def test_dashboard_files_are_json_and_the_overview_is_schema_39() -> None:
    assert dashboard_files(), "no dashboard"
    for path in dashboard_files():
        json.loads(path.read_text(encoding="utf-8"))
    board = dashboard()
    assert board["schemaVersion"] == 39
    assert board["uid"] == "cara-overview"
    ids = [p["id"] for p in _panels(board["panels"])]
    assert len(ids) == len(set(ids)), "panel ids must be unique"
    assert dashboard_promql(), "no PromQL found: the parser or the dashboard is broken"


def test_every_metric_the_dashboard_queries_exists() -> None:
    known = set(instrument_names()) | set(spanmetrics_series().values())
    unknown = []
    for where, query in all_promql():
        assert query.metrics, f"{where}: no metric in {query.expr}"
        unknown += [f"{where}: {m}" for m in sorted(query.metrics - known)]
    unknown += [f"variable {v}: {m}" for v, m, _ in variable_queries() if m not in known]
    assert unknown == []


def test_every_instrument_of_names_py_is_on_the_dashboard() -> None:
    shown = set().union(*(query.metrics for _, query in dashboard_promql()))
    assert set(instrument_names()) - shown == set()


def test_dashboard_shows_span_derived_request_job_and_model_series() -> None:
    series = spanmetrics_series()
    exprs = [query.expr for _, query in dashboard_promql()]

    def having(*parts: str) -> list[str]:
        return [e for e in exprs if all(p in e for p in parts)]

    assert having(series["calls"], "SPAN_KIND_SERVER", "by (span_name)")
    assert having(series["calls"], "SPAN_KIND_SERVER", 'http_status_code=~"5..')
    assert having(series["calls"], "SPAN_KIND_SERVER", "STATUS_CODE_ERROR")
    for q in ("0.5", "0.95", "0.99"):
        assert having(f"histogram_quantile({q},", series["duration_bucket"], "SPAN_KIND_SERVER")
    assert having(series["calls"], "SPAN_KIND_CONSUMER", "by (cara_actor)")
    assert having(series["calls"], "SPAN_KIND_CONSUMER", "STATUS_CODE_ERROR", "by (cara_actor)")
    assert having("histogram_quantile(0.95,", series["duration_bucket"], "cara_actor")
    assert having("histogram_quantile(0.95,", series["duration_bucket"], "gen_ai_request_model")


def test_every_label_a_query_groups_or_filters_on_exists_on_its_series() -> None:
    span_series = set(spanmetrics_series().values())
    own = instrument_names()
    problems = []
    for where, query in all_promql():
        spans, owns = query.metrics & span_series, query.metrics & set(own)
        if spans and owns:
            problems.append(f"{where}: mixes span-derived and own metrics")
            continue
        if spans:
            allowed = spanmetrics_labels()
        else:
            allowed = RESOURCE_LABELS.union(*({_escape(a) for a in own[m].attributes} for m in owns))
        # `le` is the bucket label, and only means something to histogram_quantile.
        if "histogram_quantile(" in query.expr and spanmetrics_series()["duration_bucket"] in query.metrics:
            allowed = allowed | {"le"}
        problems += [f"{where}: label {label}" for label in sorted(query.labels - allowed)]
    for variable, metric, label in variable_queries():
        allowed = spanmetrics_labels() if metric in span_series else RESOURCE_LABELS
        if label not in allowed:
            problems.append(f"variable {variable}: label {label}")
    assert problems == []


def test_grafana_variables_used_are_defined() -> None:
    defined = {v["name"] for v in dashboard()["templating"]["list"]} | GRAFANA_BUILTIN_VARIABLES
    assert "service" in defined
    used = set()
    for _, query in dashboard_promql():
        used |= set(_VARIABLE.findall(query.expr))
    assert "service" in used
    assert used - defined == set()


def test_every_panel_names_a_provisioned_datasource_by_uid() -> None:
    types = _datasource_types()
    assert types == {"prometheus": "prometheus", "tempo": "tempo"}
    refs = []
    for panel in data_panels():
        refs.append((panel["title"], panel["datasource"]))
        refs += [(f"{panel['title']} {t['refId']}", t["datasource"]) for t in panel.get("targets", [])]
    refs += [(f"variable {v['name']}", v["datasource"]) for v in dashboard()["templating"]["list"]]
    for where, ref in refs:
        assert isinstance(ref, dict), f"{where}: data source by name, not uid"
        assert ref["uid"] in types, f"{where}: {ref}"
        assert ref["type"] == types[ref["uid"]], f"{where}: {ref}"


def _traceql_queries() -> list[str]:
    return [
        t["query"]
        for p in data_panels()
        for t in p.get("targets", [])
        if (t.get("datasource") or p["datasource"])["uid"] == "tempo"
    ]


def test_slow_traces_panel_queries_tempo_with_traceql() -> None:
    assert "{ duration > 2s }" in _traceql_queries()


# --- grafana, prometheus, tempo wiring -----------------------------------------------------------


def test_tempo_datasource_links_to_prometheus_series_that_exist() -> None:
    json_data = _datasource("tempo")["jsonData"]
    assert json_data["serviceMap"]["datasourceUid"] in _datasource_types()
    links = json_data["tracesToMetrics"]
    assert links["datasourceUid"] == _datasource("prometheus")["uid"]
    dimensions = {d["name"] for d in collector()["connectors"]["spanmetrics"]["dimensions"]}
    for tag in links["tags"]:
        assert tag["key"] in dimensions | {"service.name"}, tag
        assert tag["value"] in spanmetrics_labels(), tag
    # The service map needs the servicegraph connector's series in Prometheus.
    metrics_receivers = {r for p in _pipelines("metrics").values() for r in p["receivers"]}
    assert "servicegraph" in metrics_receivers
    # Unescaped, Grafana would replace `$__tags` by an (empty) environment variable.
    for query in links["queries"]:
        assert "$" not in query["query"].replace("$$", ""), query


def test_grafana_reaches_prometheus_and_tempo_where_they_listen() -> None:
    tempo_url = _datasource("tempo")["url"]
    assert _host(tempo_url) == "tempo"
    assert _port(tempo_url) == tempo()["server"]["http_listen_port"]
    assert _host(_datasource("prometheus")["url"]) == "prometheus"
    assert _port(_datasource("prometheus")["url"]) == 9090  # Prometheus's default listen port
    providers = _yaml("grafana/provisioning/dashboards/dashboards.yaml")["providers"]
    assert [(p["type"], p["options"]["path"]) for p in providers] == [("file", "/var/lib/grafana/dashboards")]


def test_prometheus_scrapes_the_collector_exporter_every_15s() -> None:
    config = prometheus()
    (job,) = config["scrape_configs"]
    interval = job.get("scrape_interval", config["global"]["scrape_interval"])
    assert _duration_seconds(interval) == 15
    targets = [t for group in job["static_configs"] for t in group["targets"]]
    exporter_port = _port(_prometheus_exporter()["endpoint"])
    assert targets and all(_port(t) == exporter_port for t in targets), (targets, exporter_port)
    # $__rate_interval is computed from this; it must be the real scrape interval.
    assert _duration_seconds(_datasource("prometheus")["jsonData"]["timeInterval"]) == 15


def test_tempo_keeps_traces_14_days_on_local_storage() -> None:
    config = tempo()
    assert _duration_seconds(config["compactor"]["compaction"]["block_retention"]) == 14 * 24 * 3600
    assert config["storage"]["trace"]["backend"] == "local"
    grpc = config["distributor"]["receivers"]["otlp"]["protocols"]["grpc"]
    assert _host(grpc["endpoint"]) == ALL_INTERFACES


def test_the_hosts_these_configs_name_are_services_of_the_compose_file() -> None:
    if not COMPOSE.exists():
        pytest.skip("ops/deploy/compose.yaml not written yet")
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    names = set(services)
    for service in services.values():
        networks = service.get("networks")
        if isinstance(networks, dict):
            for network in networks.values():
                names |= set((network or {}).get("aliases", []))
    hosts = {
        _host(collector()["exporters"]["otlp/tempo"]["endpoint"]),
        *(
            _host(t)
            for job in prometheus()["scrape_configs"]
            for g in job["static_configs"]
            for t in g["targets"]
        ),
        *(_host(d["url"]) for d in datasources()),
    }
    assert hosts - names == set()


# --- alerting rules -------------------------------------------------------------------------

PROMETHEUS_BUILTIN_SERIES = {"up"}  # written by Prometheus itself for every scrape target


def alert_rules() -> list[dict[str, Any]]:
    return [rule for group in _yaml("alerts.yaml")["groups"] for rule in group["rules"]]


def _anchors(markdown: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", markdown.read_text(), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def test_prometheus_loads_the_alert_rules_mounted_by_compose() -> None:
    (rule_file,) = prometheus()["rule_files"]
    prometheus_service = yaml.safe_load(COMPOSE.read_text())["services"]["prometheus"]
    mounts = {m.split(":")[1]: m.split(":")[0] for m in prometheus_service["volumes"] if ":" in m}
    assert rule_file in mounts, f"{rule_file} is not mounted into the prometheus container"
    assert (COMPOSE.parent / mounts[rule_file]).resolve() == OBS / "alerts.yaml"


def test_every_alert_queries_series_that_exist_with_their_labels() -> None:
    span_series = set(spanmetrics_series().values())
    own = instrument_names()
    problems = []
    for rule in alert_rules():
        query = Query(rule["expr"])
        unknown = query.metrics - span_series - set(own) - PROMETHEUS_BUILTIN_SERIES
        problems += [f"{rule['alert']}: metric {m}" for m in sorted(unknown)]
        if query.metrics & span_series:
            allowed = spanmetrics_labels() | {"le"}
        else:
            allowed = RESOURCE_LABELS.union(
                *({_escape(a) for a in own[m].attributes} for m in query.metrics & set(own))
            )
        problems += [f"{rule['alert']}: label {label}" for label in sorted(query.labels - allowed)]
    assert problems == []


def test_every_alert_says_how_bad_and_where_the_runbook_is() -> None:
    anchors = {path: _anchors(REPO / path) for path in ("ops/runbook.md", "ops/observability/README.md")}
    for rule in alert_rules():
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert _duration_seconds(rule["for"]) >= 60, f"{rule['alert']} would page on a single blip"
        path, _, anchor = rule["annotations"]["runbook"].partition("#")
        assert path in anchors, f"{rule['alert']}: runbook {path} is not a known document"
        assert not anchor or anchor in anchors[path], f"{rule['alert']}: no section #{anchor} in {path}"


def test_every_own_backlog_gauge_has_an_alert() -> None:
    alerted = set().union(*(Query(rule["expr"]).metrics for rule in alert_rules()))
    backlog = {"cara_queue_depth", "cara_outbox_pending", "cara_webhooks_pending"}
    assert backlog <= set(instrument_names())
    assert backlog - alerted == set()
