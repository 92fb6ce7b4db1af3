#!/usr/bin/env bash
# The floor under ops/bench/citus_vs_single.py: what the coordinator's hop costs by itself, with no
# API in front. One tenant-shaped transaction (BEGIN; SET LOCAL ROLE <tenant role>; one row by a
# unique key from the tenant's schema; COMMIT), run by pgbench against
#
#   single: a database on worker1 without the citus extension: plain PostgreSQL, same binaries
#           and settings as every node of the local cluster;
#   citus:  a database on the coordinator whose schema is distributed (on a worker), reached
#           through the workers' PgBouncers with one cached connection per worker and role, as
#           Cara's database is set up by `ops/citus/cluster poolers` and the platform migration.
#
#   ops/bench/citus_floor.sh [clients (20)] [seconds (10)] [rounds (2)]
#
# Prints transactions per second and the CPU per transaction of every process of the cluster
# (nodes and PgBouncers: nothing else uses it meanwhile), single and citus alternating, and the
# ratios. Uses the running local cluster (ops/citus/cluster start); its two throwaway databases
# and role are dropped at the end.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=$REPO_ROOT/ops/citus/cluster
CITUS_DATA=${CITUS_DATA:-$REPO_ROOT/.data/citus}
PORT=${CITUS_PORT:-5440}
CLIENTS=${1:-20}
SECONDS_EACH=${2:-10}
ROUNDS=${3:-2}
ROWS=1000
DB_SINGLE=floor_single
DB_CITUS=floor_citus
ROLE=floor_tenant
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres)
TICK=$(getconf CLK_TCK)

cluster_cpu_ticks() { # every process of the local cluster, live and reaped children included
  local pids="" f
  for f in "$CITUS_DATA"/nodes/*/postmaster.pid "$CITUS_DATA"/nodes/*/pgbouncer.pid; do
    [ -f "$f" ] && pids="$pids $(head -1 "$f")"
  done
  python3 - "$pids" <<'PY'
import os, sys
roots = {int(p) for p in sys.argv[1].split()}
total = 0
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    if int(p) in roots:
        total += sum(int(x) for x in f[11:15])
    elif int(f[1]) in roots:
        total += sum(int(x) for x in f[11:15])
print(total)
PY
}

cleanup() {
  "$CLUSTER" dropdb "$DB_CITUS" >/dev/null 2>&1 || true
  "${PSQL[@]}" -p $((PORT + 1)) -d postgres -c "DROP DATABASE IF EXISTS $DB_SINGLE WITH (FORCE)" >/dev/null 2>&1 || true
  for p in $PORT $((PORT + 1)) $((PORT + 2)); do
    "${PSQL[@]}" -p "$p" -d postgres -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1 || true
  done
  rm -f "${SCRIPT:-}"
}
trap cleanup EXIT

schema_sql() { # the tenant's table, rows and grants
  cat <<SQL
CREATE TABLE t.doctors (id uuid PRIMARY KEY, account_id uuid UNIQUE NOT NULL, name text, specialty text,
  updated_at timestamptz NOT NULL DEFAULT now());
INSERT INTO t.doctors (id, account_id, name, specialty)
  SELECT gen_random_uuid(), ('00000000-0000-0000-0000-' || lpad(to_hex(i), 12, '0'))::uuid,
         'Doctor ' || i, 'cardiology' FROM generate_series(1, $ROWS) i;
GRANT USAGE ON SCHEMA t TO $ROLE;
GRANT SELECT ON t.doctors TO $ROLE;
SQL
}

cleanup
"$CLUSTER" createdb "$DB_CITUS" >/dev/null
"$CLUSTER" poolers "$DB_CITUS" >/dev/null
"${PSQL[@]}" -p "$PORT" -d "$DB_CITUS" -c "CREATE ROLE $ROLE LOGIN" \
  -c "ALTER DATABASE $DB_CITUS SET citus.max_cached_conns_per_worker = 1" \
  -c "SET citus.enable_schema_based_sharding = on" -c "CREATE SCHEMA t" \
  -c "$(schema_sql)" >/dev/null
# The role was made on every node by the coordinator (Citus propagates CREATE ROLE).
"${PSQL[@]}" -p $((PORT + 1)) -d postgres -c "CREATE DATABASE $DB_SINGLE" >/dev/null
"${PSQL[@]}" -p $((PORT + 1)) -d "$DB_SINGLE" -c "CREATE SCHEMA t" -c "$(schema_sql)" >/dev/null
placed=$("${PSQL[@]}" -p "$PORT" -d "$DB_CITUS" -At -c \
  "SELECT nodeport FROM citus_shards WHERE table_name = 't.doctors'::regclass")
tasks=$("${PSQL[@]}" -p "$PORT" -d "$DB_CITUS" -At -c \
  "EXPLAIN SELECT * FROM t.doctors WHERE account_id = '00000000-0000-0000-0000-000000000001'" |
  sed -n 's/.*Task Count: //p')

SCRIPT=$(mktemp --suffix=.pgbench)
cat >"$SCRIPT" <<SQL
\\set i random(1, $ROWS)
BEGIN;
SET LOCAL ROLE $ROLE;
SELECT id, name, specialty, updated_at FROM t.doctors
  WHERE account_id = ('00000000-0000-0000-0000-' || lpad(to_hex(:i::integer), 12, '0'))::uuid;
COMMIT;
SQL

echo "host: $(nproc) CPUs; pgbench -c $CLIENTS -j 2 -T $SECONDS_EACH, $ROUNDS rounds, simple and prepared protocol"
echo "single: 127.0.0.1:$((PORT + 1))/$DB_SINGLE (plain PostgreSQL)"
echo "citus:  127.0.0.1:$PORT/$DB_CITUS (coordinator; the schema on the worker at port $placed, reached through its PgBouncer; Task Count $tasks)"

declare -A TPS CPU
run() { # run <name> <port> <db> <mode>
  local before after out tps n
  before=$(cluster_cpu_ticks)
  out=$(pgbench -n -h 127.0.0.1 -p "$2" -U postgres -c "$CLIENTS" -j 2 -T "$SECONDS_EACH" -M "$4" -f "$SCRIPT" "$3" 2>&1)
  after=$(cluster_cpu_ticks)
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  [ -n "$tps" ] && [ -n "$n" ] || { echo "pgbench failed: $out" >&2; exit 1; }
  local cpu
  cpu=$(python3 -c "print(f'{($after - $before) / $TICK / $n * 1000:.3f}')")
  echo "  $1 $4: $tps tps, cluster CPU $cpu ms/transaction"
  TPS[$1-$4]="${TPS[$1-$4]:-} $tps"
  CPU[$1-$4]="${CPU[$1-$4]:-} $cpu"
}

for mode in simple prepared; do
  for r in $(seq "$ROUNDS"); do
    echo "round $r ($mode)"
    if [ $((r % 2)) = 1 ]; then
      run single $((PORT + 1)) "$DB_SINGLE" "$mode"; run citus "$PORT" "$DB_CITUS" "$mode"
    else
      run citus "$PORT" "$DB_CITUS" "$mode"; run single $((PORT + 1)) "$DB_SINGLE" "$mode"
    fi
  done
done
echo
for mode in simple prepared; do
  python3 - "$mode" "${TPS[single-$mode]}" "${TPS[citus-$mode]}" "${CPU[single-$mode]}" "${CPU[citus-$mode]}" <<'PY'
import statistics as st, sys
mode, ts, tc, cs, cc = sys.argv[1], *[[float(x) for x in a.split()] for a in sys.argv[2:]]
a, b, c, d = st.mean(ts), st.mean(tc), st.mean(cs), st.mean(cc)
print(f"{mode}: single {a:.0f} tps, citus {b:.0f} tps: citus / single = {b / a:.2f}; "
      f"CPU per transaction single {c:.3f} ms, citus {d:.3f} ms: single / citus = {c / d:.2f}")
PY
done
