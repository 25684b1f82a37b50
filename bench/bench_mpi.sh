#!/usr/bin/env bash
# MPI against threads on one machine: one epoch of `han train` as 1 rank x 2 threads and as
# 2 ranks x 1 thread (mpirun on localhost), the latter with the gradient sum overlapped with
# the backward pass (trainer.overlap, the default) and after it, alternated, each repeated;
# prints the medians: training docs/s, wall seconds, and from rank 0's log the gradient
# bytes per step, the time per step the sum costs the step and the time waiting for the
# slower rank. The waiting holds the ranks' imbalance, and with overlap also the part of it
# met at the last sum, so what the overlap hides is measured on the two together:
# (summing + waiting after the pass - summing + waiting overlapped) / summing after the pass.
# --link RATE (as root, with tc): the ranks talk over loopback TCP shaped to RATE (e.g.
# 1gbit) by a token bucket on lo, as over a network link, instead of shared memory; lo is
# restored at exit. On one machine the cores that compute also copy the shared-memory sum,
# so only a link that takes time without taking cores shows what the overlap can hide.
# The ranks share the data (trainer.allreduce mpi); bench/bench_scaling.sh fits the scaling model.
# Usage: bench/bench_mpi.sh [--repeats N] [--config FILE] [--link RATE] [--set key=value]...
#   default: configs/paper.json (E=200, H=50, batch 64) on the bundled 4000 reviews, 1 epoch, 5 repeats
set -euo pipefail
cd "$(dirname "$0")/.."
repeats=5
config=configs/paper.json
sets=()
link=
while [ $# -gt 0 ]; do
  case "$1" in
    --repeats) repeats=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --link) link=$2; shift 2 ;;
    *) echo "bench_mpi.sh: unknown option $1 (known: --repeats N, --config FILE, --link RATE, --set key=value)" >&2; exit 2 ;;
  esac
done
han=${HAN_BUILD_DIR:-build}/han
[ -x "$han" ] || scripts/build.sh >/dev/null
command -v mpirun >/dev/null || { echo "bench_mpi.sh: mpirun not found (scripts/setup.sh installs Open MPI)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mpi=(mpirun --oversubscribe --allow-run-as-root)
if [ -n "$link" ]; then
  command -v tc >/dev/null && [ "$(id -u)" = 0 ] || { echo "bench_mpi.sh: --link needs root and tc (iproute2)" >&2; exit 2; }
  tc qdisc add dev lo root tbf rate "$link" burst 1mb latency 200ms
  trap 'tc qdisc del dev lo root; rm -rf "$out"' EXIT
  mpi+=(--mca btl tcp,self)
fi
common=(--config "$config" --set trainer.epochs=1 --set data.test= --overwrite "${sets[@]}")

# One run: "docs_per_second wall_seconds [MB ms_sum ms_wait]" appended to $out/$1.
measure() {
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  "$@" --output "$out/run-$name" >/dev/null 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err" >&2; echo "bench_mpi.sh: the $name run failed" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 - "$out/run-$name/metrics.jsonl" "$out/$name.err" "$start" "$end" >>"$out/$name" <<'PY'
import json, re, sys
metrics, err, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
docs = json.loads(open(metrics).read().splitlines()[-1])["docs_per_second"]
fields = [f"{docs:.1f}", f"{end - start:.2f}"]
log = open(err).read()
m = re.search(r"per step: ([0-9.]+) MB, ([0-9.]+) ms summing[^,]*, (?:([0-9.]+) ms waiting[^,]*, )?.* of ([0-9]+) steps",
              log)
if m:
    fields += [m.group(1), m.group(2), m.group(3) or "0"]  # (with overlap the waiting is in the summing)
    train_docs = int(re.search(r"corpus: ([0-9]+) train", log).group(1))
    fields.append(f"{1e3 * train_docs / docs / int(m.group(4)):.2f}")  # ms per step, from docs/s
print(" ".join(fields))
PY
}

for i in $(seq "$repeats"); do
  echo "bench_mpi: repeat $i/$repeats" >&2
  measure threads "$han" train "${common[@]}" --set trainer.threads=2
  measure ranks "${mpi[@]}" -np 2 "$han" train "${common[@]}" --set trainer.threads=1
  measure after "${mpi[@]}" -np 2 "$han" train "${common[@]}" --set trainer.threads=1 --set trainer.overlap=false
done

python3 - "$out/threads" "$out/ranks" "$out/after" "$repeats" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
  "${link:-shared memory}" <<'PY'
import statistics, sys
def rows(path):
    return [list(map(float, line.split())) for line in open(path)]
threads, ranks, after = rows(sys.argv[1]), rows(sys.argv[2]), rows(sys.argv[3])
med = lambda rs, i: statistics.median(r[i] for r in rs)
print(f"medians of {sys.argv[4]} alternating runs; {sys.argv[5]} cores; ranks over {sys.argv[7]}; "
      f"load average at the end: {sys.argv[6]}")
print("| | 1 rank x 2 threads | 2 ranks x 1 thread, sum overlapped | 2 ranks x 1 thread, sum after backward |")
print("|---|---:|---:|---:|")
print(f"| training docs/s | {med(threads, 0):.0f} | {med(ranks, 0):.0f} | {med(after, 0):.0f} |")
print(f"| wall seconds (whole run) | {med(threads, 1):.1f} | {med(ranks, 1):.1f} | {med(after, 1):.1f} |")
print(f"| gradient bytes per step (MB) | — | {med(ranks, 2):.3f} | {med(after, 2):.3f} |")
print(f"| the sum's cost to the step, ms | — | {med(ranks, 3):.2f} | {med(after, 3):.2f} |")
print(f"| waiting for the slower rank, ms per step | — | {med(ranks, 4):.2f} | {med(after, 4):.2f} |")
outside = lambda rs: statistics.median(r[3] + r[4] for r in rs)
print(f"| summing + waiting, ms per step | — | {outside(ranks):.2f} | {outside(after):.2f} |")
print(f"| whole step, ms (from docs/s) | — | {med(ranks, 5):.2f} | {med(after, 5):.2f} |")
print(f"hidden by the overlap: {(outside(after) - outside(ranks)) / med(after, 3):.0%} of the sum's cost after the pass")
print("every run (docs/s): threads", [r[0] for r in threads], "overlapped", [r[0] for r in ranks],
      "after", [r[0] for r in after])

PY
