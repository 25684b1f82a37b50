#!/usr/bin/env bash
# Sentence splitting, han's own against ICU's BreakIterator (en@ss=standard): how many of
# the cases in tests/text/sentence_cases.tsv each gets right, and the time on a data file.
# Builds bench/sentences.cpp (target han_bench_sentences; needs libicu-dev) in
# ${HAN_BUILD_DIR:-build}, which must be configured already (scripts/build.sh).
# Usage: scripts/bench_sentences.sh [DATA.jsonl (default data/train.jsonl)] [passes=3]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${HAN_BUILD_DIR:-build}
if ! dpkg-query -W -f='${Status}' libicu-dev 2>/dev/null | grep -q "install ok installed"; then
  echo "bench_sentences.sh: needs libicu-dev (sudo apt-get install libicu-dev)" >&2
  exit 2
fi
cmake -S . -B "$build_dir" >/dev/null
cmake --build "$build_dir" -j 2 --target han_bench_sentences >/dev/null
"$build_dir/han_bench_sentences" tests/text/sentence_cases.tsv "${1:-data/train.jsonl}" "${2:-3}"
