#!/usr/bin/env bash
# The Quick start: set up, build han (the binary only, not the tests), train on the bundled
# IMDB slice, then predict (stdin and files) and evaluate on its test split.
# Output folder: runs/quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target han
han=build/han
model=runs/quickstart/model.han

echo "== train (configs/quickstart.json on data/train.jsonl, dev data/dev.jsonl)"
$han train --config configs/quickstart.json --output runs/quickstart --overwrite

echo "== predict: one review per line on stdin"
printf '%s\n' \
  "One of the best films I have seen in years. The cast is superb and the ending moved me." \
  "A dull, lifeless script. I wanted my two hours back." \
  "" \
  "The first half drags, but the final act is thrilling and beautifully shot." |
  $han predict --model "$model" --top-k 2

echo "== predict: files, as JSON"
mkdir -p runs/quickstart/examples
echo "Terrible acting and a plot full of holes. Avoid." > runs/quickstart/examples/bad.txt
echo "A charming, funny and clever film. Loved it!" > runs/quickstart/examples/good.txt
$han predict --model "$model" --format json runs/quickstart/examples/*.txt

echo "== predict: attention as HTML (runs/quickstart/explain.html)"
head -n 5 data/test.jsonl | $han predict --model "$model" --data-format jsonl --format html > runs/quickstart/explain.html

echo "== evaluate on data/test.jsonl"
$han eval --model "$model" --data data/test.jsonl
