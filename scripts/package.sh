#!/usr/bin/env bash
# Builds the Debian package build-deb/han_<version>_<arch>.deb: a portable build (its
# kernels are picked at start-up for the CPU it runs on), with MPI, the man page, bash
# and fish completion and the guides. Install it with: sudo apt install ./build-deb/han_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
HAN_BUILD_DIR=build-deb scripts/build.sh -DHAN_NATIVE=OFF -DHAN_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr
rm -f build-deb/han_*.deb
(cd build-deb && cpack -G DEB >/dev/null)
ls build-deb/han_*.deb
