#!/usr/bin/env bash
# Installs han's build tools and libraries on Debian 12. Idempotent and non-interactive.
set -euo pipefail
# --fuzz: also clang and its sanitizer/libFuzzer runtimes, for scripts/fuzz.sh.
# --bench: also wrk, the HTTP load generator of scripts/bench_serve.sh, hyperfine (bench/bench.sh's
#          start-up timing), and what scripts/accuracy.sh's baselines and plot need
#          (scikit-learn, fastText, matplotlib; the PyTorch HAN's python3-torch is left to
#          the user: see docs/accuracy.md).
packages=(build-essential cmake libeigen3-dev libcli11-dev nlohmann-json3-dev libspdlog-dev libutf8proc-dev zlib1g-dev libxxhash-dev catch2
          liblinear-dev libblas-dev  # the linear member's solver, linked in with the reference BLAS
          libopenmpi-dev openmpi-bin  # MPI: distributed training (mpirun -np N han train)
          libcpp-httplib-dev pkg-config  # han serve's HTTP (found through its pkg-config file)
          jq parallel curl  # the examples in the README and docs/ (their test runs them)
          time)  # /usr/bin/time: the bad-input test measures peak memory with it
# libxsmm (GEMM kernels) exists for x86-64 only; elsewhere CMake builds without it.
[ "$(dpkg --print-architecture)" = amd64 ] && packages+=(libxsmm-dev)
for arg in "$@"; do
  case "$arg" in
    --fuzz) packages+=(clang-14 libclang-rt-14-dev) ;;
    --bench) packages+=(wrk hyperfine python3-sklearn fasttext python3-matplotlib) ;;
    *) echo "setup.sh: unknown option $arg (known: --fuzz, --bench)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
