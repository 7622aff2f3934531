#!/usr/bin/env bash
# Debian packages the tests drive for real: sshd and ssh (the SSH test), tmux (terminal-level
# tests), headless Chromium (the browser test of `specview serve`), a monospace font for its
# screenshots, Prometheus (`watch --prometheus`: its integration test and bench/fleet_watch.py). Installs only what is missing, with one `apt-get update` before; does nothing
# (and needs no network) when everything is there.
set -euo pipefail
packages=(openssh-server openssh-client tmux chromium fonts-dejavu-core prometheus)
missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "deps-debian: apt-get not found; install these yourself: ${missing[*]}" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps-debian: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# other apt users on the machine: wait for the lock instead of failing
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
