#!/usr/bin/env bash
# The Debian package on a bare Debian 12: debootstrap a minimal system (no compiler, no
# cmake, no -dev packages) into a folder, install build-deb/han_*.deb there with apt, and
# run the quick start's main job with the installed han (train on the bundled data,
# predict, evaluate, read the man page's configuration). Needs root and Debian's mirror.
# Usage: .ci/check_deb.sh [ROOT_DIR]   (default /tmp/han-deb-root; scripts/package.sh first)
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-/tmp/han-deb-root}
deb=$(ls build-deb/han_*.deb | head -n 1)
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
fi
mount --bind /proc "$root/proc"
trap 'umount "$root/proc"' EXIT
mkdir -p "$root/quickstart"
cp "$deb" "$root/quickstart/"
cp -r configs data "$root/quickstart/"
chroot "$root" /bin/bash -euo pipefail -c '
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends ./quickstart/'"$(basename "$deb")"' >/dev/null
  for tool in g++ cc cmake; do ! command -v $tool >/dev/null || { echo "check_deb: $tool is installed"; exit 1; }; done
  cd /quickstart
  han --version
  han train --config configs/quickstart.json --output runs/quickstart --quiet
  echo "A charming, funny and clever film. Loved it!" | han predict --model runs/quickstart/model.han
  han eval --model runs/quickstart/model.han --data data/test.jsonl | head -n 3
  grep -q "^.SH CONFIGURATION" /usr/share/man/man1/han.1
  han help config trainer.epochs | grep -q "default  10"
  test -f /usr/share/doc/han/docs/configuration.md
  test -f /usr/share/bash-completion/completions/han
  test -f /usr/share/fish/vendor_completions.d/han.fish
  # The MPI module, where han looks for it, with its libraries resolved (libopenmpi3 a dependency).
  if han --version | grep -q ", MPI)"; then
    module=$(ls /usr/lib/*/han/libhan_mpi.so)
    ! ldd "$module" | grep -q "not found" || { echo "check_deb: $module lacks a library"; exit 1; }
  fi
  test -f /usr/share/doc/han/copyright.liblinear
  # han serve runs han-serve (installed beside the modules): a file that is no model is its error.
  serve=$(ls /usr/lib/*/han/han-serve)
  ! ldd "$serve" | grep -q "not found" || { echo "check_deb: $serve lacks a library"; exit 1; }
  han serve --port 0 --model /usr/share/man/man1/han.1 2>&1 | grep -q "not a han model file"
  echo "check_deb: han installed from the package on a bare Debian 12 and ran the quick start"
'
