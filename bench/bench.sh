#!/usr/bin/env bash
# Speed and memory of han against the PyTorch HAN reference (../shared/bench/han_torch.py),
# side by side in one run on fixed slices of ../shared/data (see bench/bench.py).
# Needs: scripts/setup.sh, and python3-torch python3-numpy libopenblas0-openmp hyperfine fasttext from Debian.
# Usage: bench/bench.sh [--quick] [--shared DIR] [--reps N] [--only-startup]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
cmake --build "${HAN_BUILD_DIR:-build}" --target han_bench_roofline >/dev/null
exec /usr/bin/python3 bench/bench.py --build "${HAN_BUILD_DIR:-build}" "$@"
