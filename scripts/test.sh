#!/usr/bin/env bash
# Sets up (apt-get), builds and runs every test. Exit code: 0 only if all tests pass.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DHAN_TESTS=ON
ctest --test-dir "${HAN_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
