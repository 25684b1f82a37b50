#!/usr/bin/env bash
# Accuracy study: trains a han config on the shared corpora with several seeds and runs the
# reference baselines (TF-IDF + LinearSVC, fastText with the tutorial's settings, the PyTorch
# HAN) on the same splits, then prints one table row per corpus. Test accuracy is always taken at the best DEV
# epoch (han train picks it); nothing here looks at test to choose anything.
#
# Usage: research/accuracy.sh [--config FILE] [--seeds N] [--corpora "20news imdb spamassassin"]
#          [--data DIR] [--out DIR] [--log FILE] [--no-baselines] [--set key=value]...
#   --config  han config (default configs/best.json)
#   --seeds   runs seeds 1..N (default 3)
#   --data    corpora root holding <corpus>/{train,dev,test}.jsonl (default ../shared/data);
#             <corpus>/unsup.txt, if present, becomes data.unlabeled when the config pretrains
#   --out     results folder (default runs/accuracy-<config name>); rerunning skips every run
#             whose result is already there, so an interrupted study continues where it stopped
#   --log     TSV that gets one line per finished han run (default <out>/runs.tsv)
#   --set     extra han overrides, applied after the data paths
# With trainer.ensemble = E (in the config or a --set), run i starts at seed 1 + (i-1)·E, so the
# runs' members (seeds seed..seed+E-1) are all different models; its log line lists the members'.
# The PyTorch HAN (BENCH/han_torch.py) runs once per corpus with the paper's sizes and han's
# default budget (10 epochs, test at the best dev epoch), healthy as BENCH/README.md says
# (OpenBLAS's own kernel choice, glibc keeping freed memory); its summary goes to
# <out>/<corpus>/pytorch_han.jsonl. --no-baselines skips it too.
# Env: HAN (default build/han), BENCH (default ../shared/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
config=configs/best.json seeds=3 corpora="20news imdb spamassassin" data=../shared/data
out="" log="" baselines=1 sets=()
while [ $# -gt 0 ]; do
  case $1 in
    --config) config=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --corpora) corpora=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --no-baselines) baselines=0; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "accuracy.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
han=${HAN:-build/han} bench=${BENCH:-../shared/bench} py=/usr/bin/python3
out=${out:-runs/accuracy-$(basename "$config" .json)}
log=${log:-$out/runs.tsv}
mkdir -p "$out"

# A config value as the runs see it: the last --set of KEY (section.key) wins over the config
# file; DEFAULT when neither has it.
setting() {
  local key=$1 default=$2 value="" set
  for set in "${sets[@]:-}"; do
    case $set in "$key="*) value=${set#"$key="} ;; esac
  done
  [ -n "$value" ] && { echo "$value"; return; }
  $py -c 'import json,sys; s,k=sys.argv[2].split("."); v=json.load(open(sys.argv[1])).get(s,{}).get(k)
print(sys.argv[3] if v is None else v)' "$config" "$key" "$default"
}

# True when the runs pretrain skip-gram vectors, so unsup.txt is worth passing.
pretrains() { [ "$(setting model.embeddings null)" = pretrain ]; }

# One han training; its summary line (plus wall seconds) is kept as <out>/<corpus>/seed<N>.json.
run_han() {
  local corpus=$1 seed=$2 d=$data/$1 result=$out/$1/seed$2.json
  [ -s "$result" ] && return 0
  local extra=()
  if [ -f "$d/unsup.txt" ] && pretrains; then extra=(--set "data.unlabeled=$(realpath "$d/unsup.txt")"); fi
  local start=$SECONDS
  "$han" train --config "$config" --output "$out/$corpus/seed$seed" --overwrite --quiet \
    --set "data.train=$(realpath "$d/train.jsonl")" --set "data.dev=$(realpath "$d/dev.jsonl")" \
    --set "data.test=$(realpath "$d/test.jsonl")" "${extra[@]}" "${sets[@]}" --set "trainer.seed=$seed" \
    > "$result.tmp"
  $py -c 'import json,sys; s=json.load(open(sys.argv[1])); s["wall_seconds"]=int(sys.argv[2]); print(json.dumps(s))' \
    "$result.tmp" $((SECONDS - start)) > "$result"
  rm -f "$result.tmp"
  local overrides="${sets[*]:-}"
  $py - "$result" "$config" "$corpus" "$seed" "${overrides//--set /}" >> "$log" <<'EOF'
import json, sys, time
result, config, corpus, seed, overrides = sys.argv[1:]
s = json.load(open(result))
# An ensemble (trainer.ensemble > 1) has no best epoch of its own: its members' are listed,
# and their own test accuracies follow in one more column.
members = s.get("members", [])
best = ",".join(str(m["best_epoch"]) for m in members) if members else "%d" % s["best_epoch"]
extra = ["members_test=" + ",".join("%.4f" % m["test"]["accuracy"] for m in members)] if members else []
print("\t".join([time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), config, corpus, "seed=" + seed,
                 overrides or "-", "best_epoch=" + best, "dev=%.4f" % s["dev_accuracy"],
                 "test=%.4f" % s["test"]["accuracy"], "seconds=%d" % s["wall_seconds"]] + extra))
EOF
}

# The baselines do not depend on the config; their JSON lines go to <out>/<corpus>/baselines.jsonl.
run_baselines() {
  local corpus=$1 d=$data/$1 result=$out/$1/baselines.jsonl
  [ -s "$result" ] && return 0
  { $py "$bench/sklearn_baseline.py" "$d" --methods svc
    FT_RUNS="tuned:-lr 1.0 -epoch 25 -wordNgrams 2" "$bench/fasttext_baseline.sh" "$d" 2 "$corpus"
  } > "$result.tmp"
  mv "$result.tmp" "$result"
}

# The PyTorch HAN reference, one run (seed 1): its summary line, named like the baselines'.
run_pytorch_han() {
  local corpus=$1 d=$data/$1 result=$out/$1/pytorch_han.jsonl
  [ -s "$result" ] && return 0
  # Debian's torch calls the system BLAS: without OpenBLAS that is the reference BLAS, several
  # times slower (a handicapped reference, whatever it is compared on).
  local blas
  blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || true)
  case $blas in
    *openblas*) ;;
    *) echo "accuracy.sh: the PyTorch HAN would run on ${blas:-no BLAS}, not OpenBLAS:" \
         "apt-get install python3-torch libopenblas0-pthread (or --no-baselines)" >&2; exit 2 ;;
  esac
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
    MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
    $py "$bench/han_torch.py" --train "$d/train.jsonl" --dev "$d/dev.jsonl" --test "$d/test.jsonl" \
    --mask renorm --pack --bucket --epochs 10 --threads 2 --seed 1 > "$result.log"
  $py - "$result.log" "$corpus" > "$result.tmp" <<'EOF'
import json, sys
summary = [json.loads(l) for l in open(sys.argv[1]) if '"type": "summary"' in l][-1]
print(json.dumps({"dataset": sys.argv[2], "method": "pytorch-han", "args": "--mask renorm --pack --bucket --epochs 10",
                  "dev_acc": summary["best_dev_acc"], "test_acc": summary["test_acc_at_best_dev"],
                  "best_epoch": summary["best_dev_epoch"], "epochs": summary["epochs_run"],
                  "wall_secs": summary["wall_secs"]}))
EOF
  mv "$result.tmp" "$result"
}

step=$(setting trainer.ensemble 1)
for corpus in $corpora; do
  mkdir -p "$out/$corpus"
  if [ "$baselines" = 1 ]; then run_baselines "$corpus"; run_pytorch_han "$corpus"; fi
  for i in $(seq 1 "$seeds"); do run_han "$corpus" $((1 + (i - 1) * step)); done
done

$py - "$out" $corpora <<'EOF'
import glob, json, os, statistics, sys
out, corpora = sys.argv[1], sys.argv[2:]
def mean_sd(xs):
    if not xs: return "-"
    return "%.3f ± %.3f" % (statistics.mean(xs), statistics.stdev(xs) if len(xs) > 1 else 0.0)
print("| corpus | han test (mean ± sd) | n | han dev (mean) | s/run | TF-IDF + LinearSVC | fastText tuned | PyTorch HAN |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for c in corpora:
    runs = [json.load(open(p)) for p in sorted(glob.glob(f"{out}/{c}/seed*.json"))]
    base = {}
    for name in ("baselines.jsonl", "pytorch_han.jsonl"):
        if os.path.exists(f"{out}/{c}/{name}"):
            base.update({b["method"]: b["test_acc"] for b in map(json.loads, open(f"{out}/{c}/{name}"))})
    dev = ["%.3f" % statistics.mean(r["dev_accuracy"] for r in runs)] if runs else ["-"]
    secs = ["%d" % statistics.mean(r["wall_seconds"] for r in runs)] if runs else ["-"]
    print(f"| {c} | {mean_sd([r['test']['accuracy'] for r in runs])} | {len(runs)} | {dev[0]} | {secs[0]} | "
          f"{base.get('tfidf12-linearsvc', '-')} | {base.get('fasttext-tuned', '-')} | {base.get('pytorch-han', '-')} |")
EOF
