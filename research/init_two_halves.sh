#!/usr/bin/env bash
# train --init on the bundled slice in two halves: a parent trained on the first 2,000
# training documents, then a child from it on the last 2,000 (trainer.epochs=3), for each
# seed. Prints each child's accuracy on both halves (training data), dev and test.
# Usage: research/init_two_halves.sh HAN [SEEDS...]   (default seeds: 1 2 3)
# HAN is the binary; the one of commit f91ad19 trains the child's linear member afresh,
# later ones continue the parent's.
set -euo pipefail
han=$(realpath "$1"); shift
if [ $# -eq 0 ]; then set -- 1 2 3; fi
seeds=("$@")
cd "$(dirname "$0")/.."
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
head -n 2000 data/train.jsonl > "$work/half1.jsonl"
tail -n 2000 data/train.jsonl > "$work/half2.jsonl"
accuracy() { "$han" eval --model "$1" --data "$2" --format json | jq .accuracy; }
echo -e "seed\thalf1\thalf2\tdev\ttest"
for seed in "${seeds[@]}"; do
  "$han" train --config configs/quickstart.json --set data.train="$work/half1.jsonl" --set trainer.seed="$seed" \
    --output "$work/parent$seed" --quiet > /dev/null 2>&1
  "$han" train --config configs/quickstart.json --set data.train="$work/half2.jsonl" --set trainer.seed="$seed" \
    --init "$work/parent$seed/model.han" --set trainer.epochs=3 --output "$work/child$seed" --quiet > /dev/null 2>&1
  m="$work/child$seed/model.han"
  echo -e "$seed\t$(accuracy "$m" "$work/half1.jsonl")\t$(accuracy "$m" "$work/half2.jsonl")\t$(accuracy "$m" data/dev.jsonl)\t$(accuracy "$m" data/test.jsonl)"
done
