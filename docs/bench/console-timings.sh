#!/usr/bin/env bash
# The operator console's page timings at 1,000,000 messages with 10,000 dead letters on PostgreSQL
# (docs/benchmarks.md, "Operator console"): creates the database consolebench on the local server,
# migrates and fills it (docs/bench/console-million.sql), starts `outbox console` on it, and prints
# min / median / max of 11 requests of each page's reads and actions, in ms. Drops the database at
# the end. Run from the root of a clone: bash docs/bench/console-timings.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PSQL=(psql -q -h 127.0.0.1 -U postgres)
URL='jdbc:postgresql://127.0.0.1:5432/consolebench?user=postgres'
TOKEN=console-timings-0123456789
PORT=18555
B=http://127.0.0.1:$PORT
"${PSQL[@]}" -d test -c 'drop database if exists consolebench' -c 'create database consolebench'
./outbox migrate --db "$URL"
"${PSQL[@]}" -d consolebench -f docs/bench/console-million.sql
"${PSQL[@]}" -d consolebench -c 'vacuum analyze outbox_message'
./outbox console --db "$URL" --port $PORT --token $TOKEN --actions > /tmp/console-timings.log 2>&1 &
console=$!
trap 'kill $console 2>/dev/null || true; wait $console 2>/dev/null || true; "${PSQL[@]}" -d test -c "drop database if exists consolebench with (force)"' EXIT
for _ in $(seq 1 120); do grep -qs "open http" /tmp/console-timings.log && break; sleep 1; done
echo "commit $(git rev-parse --short HEAD)"
echo "first overview (no sample yet: reads every row): $(curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -w '%{time_total}' $B/api/overview) s"
run() {
  local u=$1; shift
  for _ in $(seq 1 11); do
    curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -w '%{time_total}\n' "$@" "$B$u"
  done | sort -n | awk -v u="$u $*" '{a[NR]=$1} END {printf "| %s | %.0f | %.0f | %.0f |\n", u, a[1]*1000, a[6]*1000, a[11]*1000}'
}
echo "| request | min ms | median ms | max ms |"
for u in / /console.js /console.css /api/overview '/api/dead-letters?limit=50' \
  '/api/dead-letters?topic=topic-3&limit=50' '/api/dead-letters?aggregate=agg-1234&limit=50' \
  '/api/dead-letters?limit=50&after=975000' \
  '/api/dead-letters?from=2026-01-01T00:00:00Z&before=2030-01-01T00:00:00Z&limit=50' \
  '/api/dead-letters?limit=500' /api/unknown '/api/message?id=msg-975001'; do
  run "$u"
done
J='Content-Type: application/json'
run /api/topics/pause -X POST -H "$J" -d '{"topic":"topic-9"}'
run /api/topics/resume -X POST -H "$J" -d '{"topic":"topic-9"}'
run /api/dead-letters/requeue -X POST -H "$J" -d '{"ids":["no-such-id"]}'
