#!/usr/bin/env bash
# Times a first run on a machine that has never seen this project: a fresh clone run with a fresh
# HOME, so an empty CARGO_HOME (registry), no wasm-bindgen, an empty target directory and
# empty npm and tool caches. Kept from this machine: the Rust toolchain with its wasm32 target
# (rustup), Node, Python and its installed packages, Chromium and Java (system packages).
# Usage: benches/cold-start.sh playground|test [WORKDIR]   (playground: until it serves)
set -euo pipefail
what=${1:?playground or test}
root=${2:-$(mktemp -d /tmp/dynalab-cold.XXXX)}
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/home" "$root/rustbin"
for tool in cargo rustc rustup rustdoc rustfmt cargo-fmt cargo-clippy clippy-driver; do
  ln -sf "$HOME/.cargo/bin/$tool" "$root/rustbin/$tool"
done
git clone -q "$repo" "$root/src"
cd "$root/src"
cold=(env -i HOME="$root/home" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="$root/home/.cargo"
  PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}" TERM=dumb LANG=C.UTF-8 PORT=8931
  PATH="$root/rustbin:${PYENV_ROOT:-$HOME/.pyenv}/shims:/usr/local/bin:/usr/bin:/bin")
start=$(date +%s)
if [ "$what" = playground ]; then
  "${cold[@]}" bash scripts/playground >"$root/out.log" 2>&1 &
  pid=$!
  until grep -q "^== .*serving dist" "$root/out.log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "scripts/playground stopped: $root/out.log" >&2; exit 1; }
    sleep 2
  done
  echo "served after $(($(date +%s) - start)) s (log: $root/out.log)"
  kill "$pid"
else
  status=0
  "${cold[@]}" bash scripts/test >"$root/out.log" 2>&1 || status=$?
  echo "scripts/test: exit $status after $(($(date +%s) - start)) s (log: $root/out.log; each step says when it started)"
fi
