# Sourced by scripts/test and scripts/playground: installs what they use, each step skipped when
# the right version is already there (a warm machine pays nothing; a cold one ~15 minutes, mostly
# compiling trunk and wasm-bindgen-cli). Versions: ../shared/reference/toolchain.md.

TRUNK_VERSION=0.21.14

# One target directory for every checkout on this machine, so a fresh clone (as CI makes) builds warm.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/dynalab/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PWD/web/node_modules/.bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

ensure_wasm_target() {
  rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
}

ensure_trunk() {
  trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION" || cargo install --locked trunk --version "$TRUNK_VERSION"
}

# Exactly the wasm-bindgen of Cargo.lock. Not --locked: its own lockfile pins a crate the registry lacks.
ensure_wasm_bindgen() {
  local wanted
  wanted=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
  wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wanted" || cargo install wasm-bindgen-cli --version "$wanted"
}

ensure_chromium() {
  if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
    apt-get update -qq && apt-get install -y -qq chromium chromium-driver
  fi
}

ensure_java() {
  if ! java -version >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless
  fi
}

# npm ci in $1 only when a package of its package.json is missing or at another version than the lock.
ensure_npm() {
  local current
  current=$(cd "$1" && node -e '
    const lock = require("./package-lock.json").packages;
    const ok = Object.keys(require("./package.json").dependencies).every((name) => {
      try { return require(`./node_modules/${name}/package.json`).version === lock[`node_modules/${name}`].version; }
      catch (e) { return false; }
    });
    console.log(ok ? "yes" : "no");')
  [ "$current" = yes ] || (cd "$1" && npm ci --no-audit --no-fund)
}

ensure_sdks() {
  local wanted installed
  wanted=$(sed -n 's/^[a-z0-9]*==//p' tests/sdk/requirements.txt | paste -sd' ')
  installed=$(python3 -c 'from importlib.metadata import version; print(*(version(p) for p in ("boto3", "awscli", "jsonschema")))' 2>/dev/null || true)
  [ "$wanted" = "$installed" ] || python3 -m pip install --quiet --disable-pip-version-check -r tests/sdk/requirements.txt
}

# The Python package's build and test tools (python/requirements-test.txt), at their pinned versions.
ensure_python_tools() {
  local wanted installed
  wanted=$(sed -n 's/^[a-z0-9-]*==//p' python/requirements-test.txt | paste -sd' ')
  installed=$(python3 -c 'from importlib.metadata import version; print(*(version(p) for p in ("maturin", "pytest")))' 2>/dev/null || true)
  [ "$wanted" = "$installed" ] || python3 -m pip install --quiet --disable-pip-version-check -r python/requirements-test.txt
}

# The Python package: an abi3 wheel (CPython 3.9 and later) built by maturin into
# $CARGO_TARGET_DIR/wheels, then installed over any earlier build.
build_python_package() {
  ensure_python_tools
  local wheels="${CARGO_TARGET_DIR:-target}/wheels"
  rm -f "$wheels"/dynalab-*.whl
  maturin build --locked --release --quiet -m python/Cargo.toml -o "$wheels"
  python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/dynalab-*.whl
}

# The playground into dist/: trunk runs cargo offline, so fetch first.
build_playground() {
  ensure_wasm_target
  ensure_trunk
  ensure_wasm_bindgen
  ensure_npm web
  cargo fetch --locked
  trunk build --release --offline
}
