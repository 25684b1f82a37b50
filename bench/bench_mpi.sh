#!/usr/bin/env bash
# MPI against threads on one machine: one epoch of `han train` as 1 rank x 2 threads and as
# 2 ranks x 1 thread (mpirun on localhost), alternated, each repeated; prints the medians:
# training docs/s, wall seconds, and from rank 0's log the gradient bytes per step, the
# time per step spent summing them across ranks and waiting for the slower rank.
# The ranks share the data (trainer.allreduce mpi); bench/bench_scaling.sh fits the scaling model.
# Usage: bench/bench_mpi.sh [--repeats N] [--config FILE] [--set key=value]...
#   default: configs/paper.json (E=200, H=50, batch 64) on the bundled 4000 reviews, 1 epoch, 5 repeats
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=5
config=configs/paper.json
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "bench_mpi.sh: unknown option $1 (known: --repeats N, --config FILE, --set key=value)" >&2; exit 2 ;;
  esac
done
han=${HAN_BUILD_DIR:-build}/han
[ -x "$han" ] || scripts/build.sh >/dev/null
command -v mpirun >/dev/null || { echo "bench_mpi.sh: mpirun not found (scripts/setup.sh installs Open MPI)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--config "$config" --set trainer.epochs=1 --set data.test= --overwrite "${sets[@]}")

# One run: "docs_per_second wall_seconds [MB ms_sum ms_wait]" appended to $out/$1.
measure() {
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$@" --output "$out/run-$name" >/dev/null 2>"$out/$name.err"
  end=$(date +%s.%N)
  python3 - "$out/run-$name/metrics.jsonl" "$out/$name.err" "$start" "$end" >>"$out/$name" <<'PY'
import json, re, sys
metrics, err, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
docs = json.loads(open(metrics).read().splitlines()[-1])["docs_per_second"]
fields = [f"{docs:.1f}", f"{end - start:.2f}"]
m = re.search(r"per step: ([0-9.]+) MB, ([0-9.]+) ms summing, ([0-9.]+) ms waiting", open(err).read())
if m:
    fields += list(m.groups())
print(" ".join(fields))
PY
}

for i in $(seq "$repeats"); do
  echo "bench_mpi: repeat $i/$repeats" >&2
  measure threads "$han" train "${common[@]}" --set trainer.threads=2
  measure ranks mpirun --oversubscribe --allow-run-as-root -np 2 "$han" train "${common[@]}" --set trainer.threads=1
done

python3 - "$out/threads" "$out/ranks" "$repeats" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import statistics, sys
def rows(path):
    return [list(map(float, line.split())) for line in open(path)]
threads, ranks = rows(sys.argv[1]), rows(sys.argv[2])
med = lambda rs, i: statistics.median(r[i] for r in rs)
print(f"medians of {sys.argv[3]} alternating runs; {sys.argv[4]} cores; load average at the end: {sys.argv[5]}")
print("| | 1 rank x 2 threads | 2 ranks x 1 thread |")
print("|---|---:|---:|")
print(f"| training docs/s | {med(threads, 0):.0f} | {med(ranks, 0):.0f} |")
print(f"| wall seconds (whole run) | {med(threads, 1):.1f} | {med(ranks, 1):.1f} |")
print(f"| gradient bytes per step (MB) | — | {med(ranks, 2):.3f} |")
print(f"| summing across ranks, ms per step | — | {med(ranks, 3):.2f} |")
print(f"| waiting for the slower rank, ms per step | — | {med(ranks, 4):.2f} |")
print("every run (docs/s): threads", [r[0] for r in threads], "ranks", [r[0] for r in ranks])

PY
