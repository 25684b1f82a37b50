#!/usr/bin/env bash
# Accuracy against training time: trains han configs on the shared corpora with several seeds,
# runs the reference baselines on the same splits, and writes a table (<out>/accuracy.md) and a
# plot of test score against training time (<out>/accuracy.svg). Test scores are taken at the
# best DEV epoch (han train picks it); nothing here looks at test to choose anything.
#
# Usage: scripts/accuracy.sh [--configs "default configs/best.json"] [--seeds N] [--corpora "..."]
#          [--data DIR] [--out DIR] [--log FILE] [--no-baselines] [--no-torch] [--set key=value]...
#   --configs  han configs, each trained with every seed; "default" is a config of {} (the
#              defaults). --config FILE is --configs FILE. Default: "default configs/best.json"
#   --seeds    runs seeds 1..N (default 3)
#   --corpora  of 20news imdb spamassassin reuters21578 (multi-label, micro-F1) and imdb-rating
#              (IMDB's 1-10 ratings as numbers, RMSE); default: all five
#   --data     corpora root holding <folder>/{train,dev,test}.jsonl (default ../shared/data);
#              <folder>/unsup.txt, if present, becomes data.unlabeled when the config pretrains
#   --out      results folder (default runs/accuracy); rerunning skips every run whose result
#              is already there, so an interrupted study continues where it stopped
#   --log      TSV that gets one line per finished han run (default <out>/runs.tsv)
#   --no-baselines  skips the baselines; --no-torch skips only the PyTorch HAN (the slowest)
#   --set      extra han overrides for every config, applied after the data paths
# With trainer.ensemble = E, run i starts at seed 1 + (i-1)·E, so the runs' members are all
# different models. The baselines: TF-IDF 1-2-grams with LinearSVC (single-label), one-vs-rest
# logistic regression (multi-label) or ridge (regression), C or alpha picked on dev
# (BENCH/sklearn_baseline.py, research/task_baselines.py); fastText with -lr 1 -epoch 25
# -wordNgrams 2 (single-label); the PyTorch HAN (BENCH/han_torch.py, single-label) at the
# paper's sizes, 10 epochs, one seed, healthy as BENCH/README.md says.
# Env: HAN (default build/han), BENCH (default ../shared/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
configs="default configs/best.json" seeds=3 corpora="20news imdb spamassassin reuters21578 imdb-rating"
data=../shared/data out=runs/accuracy log="" baselines=1 torch=1 sets=()
while [ $# -gt 0 ]; do
  case $1 in
    --configs) configs=$2; shift 2 ;;
    --config) configs=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --corpora) corpora=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --no-baselines) baselines=0; shift ;;
    --no-torch) torch=0; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "accuracy.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
han=${HAN:-build/han} bench=${BENCH:-../shared/bench} py=/usr/bin/python3
log=${log:-$out/runs.tsv}
mkdir -p "$out"
echo '{}' > "$out/default.json"

# A config's file: "default" is the empty config.
config_file() { if [ "$1" = default ]; then echo "$out/default.json"; else echo "$1"; fi; }
config_name() { basename "$1" .json; }

# The data folder, task and han settings of a corpus name.
corpus_folder() { case $1 in imdb-rating) echo imdb ;; *) echo "$1" ;; esac; }
corpus_task() {
  case $1 in
    20news|imdb|spamassassin) echo single ;;
    reuters21578) echo multilabel ;;
    imdb-rating) echo regression ;;
    *) echo single ;;  # another folder of single-label jsonl
  esac
}
task_sets() {
  case $(corpus_task "$1") in
    multilabel) echo "--set model.task=multilabel" ;;
    regression) echo "--set model.task=regression --set data.target_key=rating" ;;
  esac
}

# A config value as the runs see it: the last --set of KEY (section.key) wins over the config
# file; DEFAULT when neither has it.
setting() {
  local config=$1 key=$2 default=$3 value="" set
  for set in "${sets[@]:-}"; do
    case $set in "$key="*) value=${set#"$key="} ;; esac
  done
  [ -n "$value" ] && { echo "$value"; return; }
  $py -c 'import json,sys; s,k=sys.argv[2].split("."); v=json.load(open(sys.argv[1])).get(s,{}).get(k)
print(sys.argv[3] if v is None else v)' "$config" "$key" "$default"
}

# One han training; its summary line (plus wall seconds) is kept as
# <out>/<config name>/<corpus>/seed<N>.json.
run_han() {
  local config=$1 corpus=$2 seed=$3
  local d=$data/$(corpus_folder "$2") dir=$out/$(config_name "$1")/$2
  local result=$dir/seed$seed.json
  [ -s "$result" ] && return 0
  mkdir -p "$dir"
  local extra=()
  if [ -f "$d/unsup.txt" ] && [ "$(setting "$config" model.embeddings null)" = pretrain ]; then
    extra=(--set "data.unlabeled=$(realpath "$d/unsup.txt")")
  fi
  local start
  start=$(date +%s.%N)
  # shellcheck disable=SC2046  # task_sets's words are separate arguments
  "$han" train --config "$config" --output "$dir/seed$seed" --overwrite --quiet \
    --set "data.train=$(realpath "$d/train.jsonl")" --set "data.dev=$(realpath "$d/dev.jsonl")" \
    --set "data.test=$(realpath "$d/test.jsonl")" $(task_sets "$corpus") "${extra[@]}" "${sets[@]}" \
    --set "trainer.seed=$seed" > "$result.tmp"
  $py -c 'import json,sys,time; s=json.load(open(sys.argv[1])); s["wall_seconds"]=round(time.time()-float(sys.argv[2]),1); print(json.dumps(s))' \
    "$result.tmp" "$start" > "$result"
  rm -f "$result.tmp"
  local overrides="${sets[*]:-}"
  $py - "$result" "$config" "$corpus" "$seed" "${overrides//--set /}" >> "$log" <<'PY'
import json, sys, time
result, config, corpus, seed, overrides = sys.argv[1:]
s = json.load(open(result))
t = s["test"]
score = next("%s=%.4f" % (k, t[k]) for k in ("accuracy", "micro_f1", "rmse") if k in t)
members = s.get("members", [])
best = ",".join(str(m["best_epoch"]) for m in members) if members else "%d" % s.get("best_epoch", 0)
print("\t".join([time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), config, corpus, "seed=" + seed,
                 overrides or "-", "best_epoch=" + best, "test_" + score, "seconds=%.1f" % s["wall_seconds"]]))
PY
}

# The linear baselines and fastText; their JSON lines go to <out>/baselines/<corpus>.jsonl.
run_baselines() {
  local corpus=$1 d=$data/$(corpus_folder "$1") result=$out/baselines/$1.jsonl
  [ -s "$result" ] && return 0
  mkdir -p "$out/baselines"
  case $(corpus_task "$corpus") in
    single)
      { $py "$bench/sklearn_baseline.py" "$d" --methods svc
        FT_RUNS="tuned:-lr 1.0 -epoch 25 -wordNgrams 2" "$bench/fasttext_baseline.sh" "$d" 2 "$corpus"
      } > "$result.tmp" ;;
    multilabel) $py research/task_baselines.py --task multilabel "$d" > "$result.tmp" ;;
    regression) $py research/task_baselines.py --task regression --target-key rating "$d" > "$result.tmp" ;;
  esac
  mv "$result.tmp" "$result"
}

# The PyTorch HAN reference, one run (seed 1), single-label corpora only.
run_pytorch_han() {
  local corpus=$1 d=$data/$(corpus_folder "$1") result=$out/baselines/$1.pytorch_han.jsonl
  [ -s "$result" ] && return 0
  [ "$(corpus_task "$corpus")" = single ] || return 0
  # Debian's torch calls the system BLAS: without OpenBLAS that is the reference BLAS, several
  # times slower (a handicapped reference, whatever it is compared on).
  local blas
  blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || true)
  case $blas in
    *openblas*) ;;
    *) echo "accuracy.sh: the PyTorch HAN would run on ${blas:-no BLAS}, not OpenBLAS:" \
         "apt-get install python3-torch libopenblas0-pthread (or --no-torch)" >&2; exit 2 ;;
  esac
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
    MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456 \
    $py "$bench/han_torch.py" --train "$d/train.jsonl" --dev "$d/dev.jsonl" --test "$d/test.jsonl" \
    --mask renorm --pack --bucket --epochs 10 --threads 2 --seed 1 > "$result.log"
  $py - "$result.log" "$corpus" > "$result.tmp" <<'PY'
import json, sys
summary = [json.loads(l) for l in open(sys.argv[1]) if '"type": "summary"' in l][-1]
print(json.dumps({"dataset": sys.argv[2], "method": "pytorch-han", "args": "--mask renorm --pack --bucket --epochs 10",
                  "dev_acc": summary["best_dev_acc"], "test_acc": summary["test_acc_at_best_dev"],
                  "best_epoch": summary["best_dev_epoch"], "epochs": summary["epochs_run"],
                  "wall_secs": summary["wall_secs"]}))
PY
  mv "$result.tmp" "$result"
}

names=()
for corpus in $corpora; do
  if [ "$baselines" = 1 ]; then
    run_baselines "$corpus"
    [ "$torch" = 1 ] && run_pytorch_han "$corpus"
  fi
  for c in $configs; do
    config=$(config_file "$c")
    step=$(setting "$config" trainer.ensemble 1)
    for i in $(seq 1 "$seeds"); do run_han "$config" "$corpus" $((1 + (i - 1) * step)); done
  done
done
for c in $configs; do names+=("$(config_name "$(config_file "$c")")"); done
$py scripts/accuracy_report.py "$out" --configs "${names[@]}" --corpora $corpora
