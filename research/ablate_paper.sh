#!/usr/bin/env bash
# "Does masking help?" at the paper's sizes (configs/paper.json: E=200, H=50, A=100, up to 10
# epochs with patience 3, Adam 1e-3, batch 64, caps 30x50) on the shared corpora (needs
# ../shared/data), each task scored by its main score: 20news and spamassassin (accuracy),
# reuters21578 (multi-label, micro-F1), imdb-rating (IMDB's 1-10 ratings as numbers, RMSE).
#
# Each corpus runs in three parts, each a `han ablate` on the same folder, which re-uses the
# runs already finished (so a stopped part loses at most the run in progress):
#   1. none vs renorm, bucketed batches;  2. and random batches;  3. and additive.
# A part's table (report.md) is complete for the variants it names.
#
# Usage: research/ablate_paper.sh [--hours H] [--seeds N] [--parts P] [corpus ...]
#   corpus: spamassassin reuters21578 20news imdb-rating (default: all four, smallest first)
#   --seeds N: seeds per variant (default 5)
#   --parts P: run parts 1..P of each corpus (default 3), e.g. 1 for the main comparison only
#   --hours H: stop after H hours as Ctrl-C does (finished runs kept); the same command
#              continues where it stopped. Start it with `nice -n 10` on a shared machine.
# Output: runs/paper-ablate-<corpus>/ (report.md, report.html, ablation.json, runs/).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${HAN_SHARED:-../shared}
hours=""
seeds=5
last_part=3
corpora=()
while (($#)); do
  case $1 in
    --hours) hours=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --parts) last_part=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) corpora+=("$1"); shift ;;
  esac
done
((${#corpora[@]})) || corpora=(spamassassin reuters21578 20news imdb-rating)
[[ $last_part =~ ^[1-3]$ ]] || { echo "--parts must be 1, 2 or 3, not '$last_part'" >&2; exit 2; }
scripts/build.sh >/dev/null
deadline=""
[[ -n $hours ]] && deadline=$(( $(date +%s) + $(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }') ))
parts=("--masks none,renorm --batching bucket"
       "--masks none,renorm --batching bucket,random"
       "--masks none,renorm,additive --batching bucket,random")

# The data folder and the task's settings of a corpus name.
corpus_settings() {
  case $1 in
    20news|spamassassin) echo "$1" ;;
    reuters21578) echo "$1 --set model.task=multilabel" ;;
    imdb-rating) echo "imdb --set model.task=regression --set data.target_key=rating" ;;
    *) echo "unknown corpus $1 (spamassassin, reuters21578, 20news, imdb-rating)" >&2; return 2 ;;
  esac
}

for name in "${corpora[@]}"; do
  read -r folder task_sets <<<"$(corpus_settings "$name")"
  d="$shared/data/$folder"
  for ((i = 0; i < last_part; i++)); do
    limit=()
    if [[ -n $deadline ]]; then
      left=$((deadline - $(date +%s)))
      if ((left <= 0)); then echo "time is up before $name part $((i + 1)); run the same command again to continue"; exit 0; fi
      limit=(timeout --signal=INT --kill-after=120 "$left")
    fi
    echo "== $name part $((i + 1))/${#parts[@]}: ${parts[$i]} (seeds $seeds)"
    rc=0
    # shellcheck disable=SC2086  # the part's and the task's options are word lists
    "${limit[@]}" "${HAN_BUILD_DIR:-build}/han" ablate --config configs/paper.json --seeds "$seeds" ${parts[$i]} \
      --output "runs/paper-ablate-$name" --set data.train="$(realpath "$d/train.jsonl")" \
      --set data.dev="$(realpath "$d/dev.jsonl")" --set data.test="$(realpath "$d/test.jsonl")" $task_sets || rc=$?
    case $rc in
      0) ;;
      124|130|143) echo "stopped during $name part $((i + 1)); finished runs are kept in" \
                        "runs/paper-ablate-$name/runs: run the same command again to continue"
                   exit 0 ;;
      *) echo "han ablate failed on $name (exit $rc)" >&2; exit "$rc" ;;
    esac
  done
done
