#!/usr/bin/env bash
# han serve under load, against han predict on stdin with the same model and documents in
# the same run: documents/s, the ratio to han predict's, and p50/p99 latency at 1, 8 and
# 64 concurrent clients, each sending one document per request (wrk, keep-alive
# connections). wrk runs on the same cores as the server: the ratio is what a client on
# this machine sees. han predict runs before each level and after the last; a level's
# ratio is to the mean of the runs just before and after it, as a shared machine's speed
# drifts by 10 % or more over a minute. Needs wrk (scripts/setup.sh --bench) and a built han.
# Usage: scripts/bench_serve.sh MODEL [DATA.jsonl (default data/test.jsonl)] [SECONDS per level (default 10)]
set -euo pipefail
cd "$(dirname "$0")/.."
han=${HAN_BUILD_DIR:-build}/han
model=${1:?usage: scripts/bench_serve.sh MODEL [DATA.jsonl] [SECONDS]}
data=${2:-data/test.jsonl}
seconds=${3:-10}
command -v wrk >/dev/null || { echo "bench_serve.sh: needs wrk (scripts/setup.sh --bench)" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
jq -r '.text | gsub("[\\r\\n]"; " ")' "$data" > "$work/texts.txt"
jq -c '{text: (.text | gsub("[\\r\\n]"; " "))}' "$data" > "$work/bodies.jsonl"
docs=$(wc -l < "$work/texts.txt")

# han predict on stdin: the same documents, ten times over.
for _ in $(seq 10); do cat "$work/texts.txt"; done > "$work/texts10.txt"
predict_rate() {
  local start
  start=$(date +%s.%N)
  "$han" predict -m "$model" --format json < "$work/texts10.txt" > /dev/null
  awk -v n="$((docs * 10))" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print n / (b - a)}'
}
predict_before=$(predict_rate)
predict_rates=$predict_before

"$han" serve -m "$model" --port 0 2> "$work/serve.log" &
server=$!
for _ in $(seq 300); do grep -q listening "$work/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.log")
cat > "$work/post.lua" <<'LUA'
local bodies = {}
for line in io.lines(os.getenv("HAN_BENCH_BODIES")) do bodies[#bodies + 1] = line end
local i = math.random(#bodies)
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "/v1/predict", {["Content-Type"] = "application/json"}, bodies[i])
end
LUA
# The kernel's count of connections dropped because the listen backlog was full.
listen_drops() { nstat -asz TcpExtListenDrops 2>/dev/null | awk '/TcpExtListenDrops/ {print $2}'; }
drops_before=$(listen_drops)
printf '%-9s %11s %8s %9s %8s %8s %7s\n' clients documents/s "/predict" "predict/s" "p50 ms" "p99 ms" errors
# The last level runs 64 clients again while the model is reloaded (SIGHUP) every half second.
for clients in 1 8 64 "64+reload"; do
  reloading=""
  if [ "$clients" = "64+reload" ]; then
    clients=64
    (for _ in $(seq $((seconds * 2))); do sleep 0.5; kill -HUP "$server"; done) &
    reloading=$!
  fi
  threads=$((clients < 2 ? 1 : 2))
  HAN_BENCH_BODIES="$work/bodies.jsonl" wrk -t "$threads" -c "$clients" -d "${seconds}s" --timeout 10s --latency \
    -s "$work/post.lua" "http://127.0.0.1:$port" > "$work/wrk.txt"
  rate=$(awk '/^Requests\/sec/ {print $2}' "$work/wrk.txt")
  ms() { awk -v p="$1" '$1 == p {v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; print v}' "$work/wrk.txt"; }
  errors=$(awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$work/wrk.txt")
  [ -n "$reloading" ] && { wait "$reloading"; clients="64+reload"; }
  predict_after=$(predict_rate)
  predict_rates="$predict_rates $predict_after"
  predict_mean=$(awk -v a="$predict_before" -v b="$predict_after" 'BEGIN {print (a + b) / 2}')
  printf '%-9s %11.0f %8.2f %9.0f %8.1f %8.1f %7d\n' "$clients" "$rate" "$(awk -v a="$rate" -v b="$predict_mean" 'BEGIN {print a / b}')" \
    "$predict_mean" "$(ms 50%)" "$(ms 99%)" "$errors"
  predict_before=$predict_after
done
printf 'han predict (stdin, %d documents), documents/s, in turn: %s\n' "$((docs * 10))" "$(printf '%.0f ' $predict_rates)"
[ -n "$drops_before" ] && echo "connections the kernel dropped (listen backlog full): $(( $(listen_drops) - drops_before ))"
curl -s "http://127.0.0.1:$port/metrics" | grep -E '^han_(documents_total|batch_size_(sum|count)|model_reloads_total)' || true
