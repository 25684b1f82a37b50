#!/usr/bin/env bash
# The cross-build check. A model trained by the native build (-march=native) is predicted,
# with --explain, by the portable build (HAN_NATIVE=OFF) once per kernel variant this CPU
# runs (HAN_CPU=generic, avx2, avx512) and once as it picks by itself: every probability and
# attention weight must match the native build's to 1e-5. First it checks that the portable
# build's kernel variants share no symbol: each object must keep its own Eigen code, or the
# linker could put one variant's instructions on another's path.
# Usage: .ci/check_portable.sh [NATIVE_BUILD_DIR] [PORTABLE_BUILD_DIR]   (build, build-portable)
set -euo pipefail
cd "$(dirname "$0")/.."
native=${1:-build}
portable=${2:-build-portable}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$native/han" --version | grep -q "native build" || { echo "$native/han is not a native build" >&2; exit 1; }
"$portable/han" --version | grep -q "portable build" || { echo "$portable/han is not a portable build" >&2; exit 1; }

objects=("$portable"/CMakeFiles/han_kernels_*.dir/src/nn/kernels/variant.cpp.o)
[ -e "${objects[0]}" ] || { echo "no kernel objects in $portable" >&2; exit 1; }
for obj in "${objects[@]}"; do
  variant=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$obj")")")")" .dir)
  variant=${variant#han_kernels_}
  # Global and weak symbols it defines, other than its entry point and its own Eigen's.
  shared=$(nm -C --defined-only "$obj" | awk '$2 ~ /^[A-Z]$/ || $2 == "u"' |
    grep -v -e "han_eigen_${variant}::" -e "han::kernels::kernels_${variant}()" -e "DW.ref.__gxx_personality_v0" || true)
  if [ -n "$shared" ]; then
    echo "kernel variant $variant defines symbols another object could also define:" >&2
    echo "$shared" >&2
    exit 1
  fi
  echo "kernels $variant: no shared symbols"
done

head -n 800 data/train.jsonl > "$tmp/train.jsonl"
head -n 300 data/test.jsonl > "$tmp/test.jsonl"
"$native/han" train --quiet --config configs/quickstart.json --output "$tmp/run" --set data.train="$tmp/train.jsonl" \
  --set data.dev= --set data.test= --set trainer.epochs=1 --set model.embedding_dim=64 --set model.word_hidden=32 \
  --set model.sentence_hidden=32 --set model.attention_dim=64 > /dev/null
predict() { "$1" predict --model "$tmp/run/model.han" --data-format jsonl --format json --top-k 2 --explain < "$tmp/test.jsonl"; }
predict "$native/han" > "$tmp/native.jsonl"

compare() {
  python3 - "$tmp/native.jsonl" "$1" <<'PY'
import json, sys
def floats(x):
    if isinstance(x, float): yield x
    elif isinstance(x, dict):
        for v in x.values(): yield from floats(v)
    elif isinstance(x, list):
        for v in x: yield from floats(v)
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b) == 300, (len(a), len(b))
worst, values = 0.0, 0
for x, y in zip(a, b):
    fx, fy = list(floats(x)), list(floats(y))
    assert len(fx) == len(fy) and x["label"] == y["label"], (x.get("id"), x["label"], y["label"])
    worst = max([worst] + [abs(p - q) for p, q in zip(fx, fy)])
    values += len(fx)
print(f"{values} probabilities and attention weights, largest difference {worst:.2e}")
sys.exit(0 if worst <= 1e-5 else 1)
PY
}

checked=0
for variant in generic avx2 avx512 ""; do
  name=${variant:-"(picked by itself)"}
  if ! version=$(HAN_CPU=$variant "$portable/han" --version 2> "$tmp/err"); then
    grep -q "this CPU cannot run" "$tmp/err" && { echo "portable $name: skipped, $(cat "$tmp/err")"; continue; }
    cat "$tmp/err" >&2
    exit 1
  fi
  HAN_CPU=$variant predict "$portable/han" > "$tmp/portable.jsonl"
  echo -n "portable $name (kernels $(echo "$version" | sed "s/.*kernels \([a-z0-9]*\).*/\1/")): "
  compare "$tmp/portable.jsonl"
  checked=$((checked + 1))
done
echo "cross-build check passed ($checked portable runs against the native build)"
