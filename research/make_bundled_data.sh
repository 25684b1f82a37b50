#!/usr/bin/env bash
# Regenerates data/ (the bundled slice) from the full IMDB corpus in ../shared/data/imdb:
# the first lines of each split (the splits are stored in a fixed shuffled order).
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/data/imdb}
head -n 4000 "$src/train.jsonl" > data/train.jsonl
head -n 500 "$src/dev.jsonl" > data/dev.jsonl
head -n 1000 "$src/test.jsonl" > data/test.jsonl
