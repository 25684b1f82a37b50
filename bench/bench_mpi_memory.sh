#!/usr/bin/env bash
# What sharing the data across ranks saves in memory: one epoch of `han train` from a token
# cache as 1 process x 2 threads and as 2 ranks x 1 thread (mpirun on this machine); prints,
# per process, the token cache it holds in memory (its log line, from /proc/self/smaps) and
# its peak RSS (/usr/bin/time), each rank's as a ratio to the one process's.
# Usage: bench/bench_mpi_memory.sh [--copies N] [--data FILE] [--dev FILE]
#   default: ../shared/data/imdb/train.jsonl 8 times over (179,952 reviews), imdb's dev split;
#   a small model (E=16, H=8, A=16) so that the corpus, not the model, fills memory;
#   model.linear_member false (rank 0 alone fits it, on the whole split: docs/distributed.md).
set -euo pipefail
cd "$(dirname "$0")/.."
copies=8
data=../shared/data/imdb/train.jsonl
dev=../shared/data/imdb/dev.jsonl
while [ $# -gt 0 ]; do
  case "$1" in
    --copies) copies=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --dev) dev=$2; shift 2 ;;
    *) echo "bench_mpi_memory.sh: unknown option $1 (known: --copies N, --data FILE, --dev FILE)" >&2; exit 2 ;;
  esac
done
han=$(realpath "${HAN_BUILD_DIR:-build}/han")
[ -x "$han" ] || { scripts/build.sh >/dev/null; han=$(realpath build/han); }
command -v mpirun >/dev/null || { echo "bench_mpi_memory.sh: mpirun not found (scripts/setup.sh installs Open MPI)" >&2; exit 2; }
[ -f "$data" ] || { echo "bench_mpi_memory.sh: $data: no such file" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$copies"); do cat "$data"; done >"$out/train.jsonl"
cat >"$out/config.json" <<EOF
{
  "data": {"train": "$out/train.jsonl", "dev": "$(realpath "$dev")", "cache": "$out/cache.hantok"},
  "tokenizer": {"max_sentences": 30, "max_words": 50, "min_count": 5},
  "model": {"embedding_dim": 16, "word_hidden": 8, "sentence_hidden": 8, "attention_dim": 16,
            "linear_member": false},
  "batching": {"strategy": "bucket", "batch_size": 64},
  "trainer": {"epochs": 1, "seed": 1}
}
EOF
"$han" prepare --config "$out/config.json" --quiet >/dev/null
rss=(/usr/bin/time -f "peak_rss_kb %M")
"${rss[@]}" "$han" train --config "$out/config.json" --set trainer.threads=2 --output "$out/one" \
  --log-level debug >/dev/null 2>"$out/one.err"
mpirun --oversubscribe --allow-run-as-root -np 2 "${rss[@]}" "$han" train --config "$out/config.json" \
  --set trainer.threads=1 --output "$out/two" --log-level debug >/dev/null 2>"$out/two.err"
python3 - "$out/one.err" "$out/two.err" <<'PY'
import re, sys
def read(path):
    text = open(path).read()
    held = [float(m) for m in re.findall(r"holds ([0-9.]+) MB of the [0-9.]+ MB token cache", text)]
    size = re.search(r"of the ([0-9.]+) MB token cache", text).group(1)
    rss = [int(m) / 1024 for m in re.findall(r"peak_rss_kb (\d+)", text)]
    return held, rss, size
one_held, one_rss, size = read(sys.argv[1])
two_held, two_rss, _ = read(sys.argv[2])
ratios = lambda xs, base: ", ".join(f"{x:.1f} ({x / base:.2f}x)" for x in xs)
print(f"token cache: {size} MB")
print(f"1 process x 2 threads: holds {one_held[0]:.1f} MB of it; peak RSS {one_rss[0]:.1f} MB")
# (the ranks' lines interleave: each list is in the order the ranks logged)
print(f"2 ranks x 1 thread: hold {ratios(two_held, one_held[0])} MB; peak RSS {ratios(two_rss, one_rss[0])} MB")
PY
