#!/usr/bin/env bash
# The alpha-beta scaling model of distributed training (docs/distributed.md), measured here:
#  - MPI_Allreduce times by message size for 2 and 4 ranks, over shared memory and over
#    loopback TCP (--mca btl tcp,self); 4 ranks on a 2-core machine are oversubscribed;
#  - one epoch of configs/paper.json on the bundled reviews as 1 process x 2 threads, and as
#    2 ranks (shared memory, TCP) and 4 ranks (TCP) of 1 thread summing after the backward
#    pass: compute per step and the gradient sum per step that the model must predict; and
#    as 2 ranks with the sum overlapped: the share of each backward stage in a step;
#  - the embedding columns a global batch of 64 N documents touches (IMDB's training split
#    when ../shared holds it, else the bundled reviews).
# Then bench/scaling_model.py fits alpha and beta, checks the model against the runs and
# prints the extrapolation table; the plot goes to OUT/scaling.svg.
# Usage: bench/bench_scaling.sh [OUT]   (default OUT: a temporary folder, removed)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${HAN_BUILD_DIR:-build}
command -v mpirun >/dev/null || { echo "bench_scaling.sh: mpirun not found (scripts/setup.sh installs Open MPI)" >&2; exit 2; }
[ -x "$build/han" ] || scripts/build.sh >/dev/null
cmake --build "$build" --target han_bench_allreduce >/dev/null
if [ $# -gt 0 ]; then out=$1; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
mpi=(mpirun --oversubscribe --allow-run-as-root)
for n in 2 4; do
  "${mpi[@]}" -np $n "$build/han_bench_allreduce" >"$out/allreduce-shm-$n.jsonl"
  "${mpi[@]}" --mca btl tcp,self -np $n "$build/han_bench_allreduce" >"$out/allreduce-tcp-$n.jsonl"
done
common=(train --config configs/paper.json --set trainer.epochs=1 --set data.test= --set trainer.threads=1 --overwrite)
"$build/han" "${common[@]}" --set trainer.threads=2 --output "$out/run-1x2" 2>"$out/train-1x2.txt" >/dev/null
# The sum overlapped with the backward pass (the default): the time of each backward stage.
"${mpi[@]}" -np 2 "$build/han" "${common[@]}" --log-level debug --output "$out/run-2x1-overlap" \
  2>"$out/train-2x1-overlap.txt" >/dev/null
# The runs the model is checked against sum after the backward pass: the sum's whole cost.
common+=(--set trainer.overlap=false)
"${mpi[@]}" -np 2 "$build/han" "${common[@]}" --output "$out/run-2x1-shm" 2>"$out/train-2x1-shm.txt" >/dev/null
"${mpi[@]}" --mca btl tcp,self -np 2 "$build/han" "${common[@]}" --output "$out/run-2x1-tcp" \
  2>"$out/train-2x1-tcp.txt" >/dev/null
"${mpi[@]}" --mca btl tcp,self -np 4 "$build/han" "${common[@]}" --output "$out/run-4x1-tcp" \
  2>"$out/train-4x1-tcp.txt" >/dev/null
texts=../shared/data/imdb/train.jsonl
[ -f "$texts" ] || texts=data/train.jsonl
"$build/han" info --json --model "$out/run-1x2" >"$out/info.json"
python3 - "$texts" "$out/info.json" >"$out/distinct.json" <<'PY'
# Distinct vocabulary words in random global batches of 64 N documents (median of 5 draws),
# with han's vocabulary rule (min_count 6, as configs/paper.json) on a lower-cased word split.
import json, random, re, sys
from collections import Counter
docs = [set(re.findall(r"[a-z0-9']+", json.loads(l)["text"].lower())) for l in open(sys.argv[1])]
counts = Counter(w for d in docs for w in d)
vocab = {w for w, c in counts.items() if c >= 6}
info = json.load(open(sys.argv[2]))
E = info["config"]["model"]["embedding_dim"]
H = info["config"]["model"]["word_hidden"]
dense = 4 * (info["parameters"] - E * info["vocabulary_size"])
# The word GRU's input weights (W, b_ih: the part summed after the pass) and recurrent
# weights (U, b_hh: summed with the embedding columns), both directions.
input_weights, recurrent = 4 * 2 * 3 * H * (E + 1), 4 * 2 * 3 * H * (H + 1)
rng = random.Random(1)
per_batch = {}
for n in (1, 2, 4, 8, 16, 32, 64, 128, 256):
    if 64 * n > len(docs):
        break
    sizes = sorted(len(set().union(*rng.sample(docs, 64 * n)) & vocab) for _ in range(5))
    per_batch[str(n)] = sizes[2]
print(json.dumps({"dense_bytes": dense, "input_weight_bytes": input_weights, "recurrent_bytes": recurrent,
                  "bytes_per_word": 4 * E, "vocabulary": len(vocab),
                  "words_per_batch": per_batch, "texts": sys.argv[1]}))
PY
python3 bench/scaling_model.py "$out"
