#!/usr/bin/env bash
# "Does masking help?" on the full shared corpora (needs ../shared/data): han ablate with
# 3 seeds x {none, renorm, additive} x {bucket, random}, in a smaller setting than the
# paper's (E=64, H=32, A=64, 3 epochs) so the 54 trainings per corpus fit in minutes.
# Usage: research/ablate_corpora.sh [corpus ...]   (default: 20news imdb spamassassin)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${HAN_SHARED:-../shared}
scripts/build.sh >/dev/null
for set in "${@:-20news imdb spamassassin}"; do
  for name in $set; do
    d="$shared/data/$name"
    build/han ablate --config configs/paper.json --seeds 3 --output "runs/ablate-$name" \
      --set data.train="$(realpath "$d/train.jsonl")" --set data.dev="$(realpath "$d/dev.jsonl")" \
      --set data.test="$(realpath "$d/test.jsonl")" \
      --set model.embedding_dim=64 --set model.word_hidden=32 --set model.sentence_hidden=32 \
      --set model.attention_dim=64 --set trainer.epochs=3 --set trainer.patience=0
  done
done
