#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) into ${HAN_BUILD_DIR:-build-fuzz} and
# runs each for the given seconds (default 60) from its seed corpus in fuzz/corpus/<target>.
# New inputs found go to ${HAN_BUILD_DIR}/corpus/<target> (the committed seeds stay small);
# a crash leaves ${HAN_BUILD_DIR}/crash-* and makes this script exit non-zero.
# Usage: scripts/fuzz.sh [seconds] [target ...]   (setup: scripts/setup.sh --fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build_dir=${HAN_BUILD_DIR:-build-fuzz}
cxx=${HAN_FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$cxx" ]; then
  echo "fuzz.sh: clang++ not found; run scripts/setup.sh --fuzz" >&2
  exit 2
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DHAN_FUZZ=ON -DHAN_TESTS=OFF -DHAN_NATIVE=OFF >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for src in fuzz/*.cpp; do targets+=("$(basename "$src" .cpp)"); done
fi
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$build_dir/corpus/$t" "$build_dir/artifacts/$t"
  echo "== $t (${seconds}s)"
  # -rss_limit_mb / -malloc_limit_mb: a memory blow-up is a finding, not a hang.
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build_dir/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$build_dir/artifacts/$t/" \
      "$build_dir/corpus/$t" "fuzz/corpus/$t" 2> "$build_dir/$t.log"; then
    failed+=("$t")
    tail -40 "$build_dir/$t.log" >&2
  fi
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" "$build_dir/$t.log" | tr '\n' ' ' || true
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs in $build_dir/artifacts/)" >&2
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets ran ${seconds}s without a finding"
