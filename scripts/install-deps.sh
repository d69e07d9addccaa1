#!/usr/bin/env bash
# Installs the Debian 12 packages qgpu studio builds against, then its LibTorch (PyPI's torch wheel, through
# scripts/install-libtorch.sh). Idempotent: does nothing when all are present.
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config ccache git
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libqscintilla2-qt6-dev libgl-dev libgl1-mesa-dri
  libimgui-dev libstb-dev
  clang-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev
  libgtest-dev libgmock-dev nlohmann-json3-dev libclang-rt-19-dev
  python3-venv clang-format xvfb xauth x11-apps imagemagick
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exec "$(dirname "$0")/install-libtorch.sh" >/dev/null
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
"$(dirname "$0")/install-libtorch.sh" >/dev/null
