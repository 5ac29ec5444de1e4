# Sourced by scripts/test and scripts/playground: installs what they use, each step skipped when
# the right version is already there (a warm machine pays nothing; a cold one compiles
# wasm-bindgen-cli beside the workspace). Versions: ../shared/reference/toolchain.md. The site
# itself is built by scripts/build-site.mjs, not trunk (whose own build was most of a cold run).

# One target directory for every checkout on this machine, so a fresh clone (as CI makes) builds warm.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/dynalab/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
export PATH="$HOME/.cargo/bin:$PWD/web/node_modules/.bin:$PATH"

# Each step says when it started (minutes:seconds since the script began), so a slow run shows
# which step grew.
step() { printf '\n== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

ensure_wasm_target() {
  rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
}

# A build tool, not the product: compiled with a profile that compiles fast (no LTO, light
# optimisation, no debug info), in a target directory of its own so it builds beside the workspace.
tool_install() {
  local name=$1
  shift
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_STRIP=true CARGO_PROFILE_RELEASE_INCREMENTAL=false \
    CARGO_TARGET_DIR="$HOME/.cache/dynalab/tools/$name" cargo install --quiet "$@"
}

# Exactly the wasm-bindgen of Cargo.lock.
wasm_bindgen_wanted() { awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock; }
wasm_bindgen_current() { wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $(wasm_bindgen_wanted)"; }

# Not --locked: its own lockfile pins a crate the registry lacks.
ensure_wasm_bindgen() {
  wasm_bindgen_current || tool_install wasm-bindgen wasm-bindgen-cli --version "$(wasm_bindgen_wanted)"
}

# wasm-bindgen-cli (and its test runner), its output in a log under ~/.cache/dynalab/tools, shown
# if it fails; meant to run in the background while the workspace compiles.
ensure_web_tools() {
  mkdir -p "$HOME/.cache/dynalab/tools"
  wasm_bindgen_current && return
  if ! ensure_wasm_bindgen >"$HOME/.cache/dynalab/tools/wasm-bindgen.log" 2>&1; then
    echo "installing wasm-bindgen-cli failed:" >&2
    cat "$HOME/.cache/dynalab/tools/wasm-bindgen.log" >&2
    return 1
  fi
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

# The Python package's build and test tools, and the checkers of the Python access code `dynalab
# export` writes (python/requirements-test.txt), at their pinned versions.
ensure_python_tools() {
  local wanted installed
  wanted=$(sed -n 's/^[a-z0-9-]*==//p' python/requirements-test.txt | paste -sd' ')
  installed=$(python3 -c 'from importlib.metadata import version; print(*(version(p) for p in ("maturin", "pytest", "mypy", "pyflakes")))' 2>/dev/null || true)
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

# The playground into dist/ (scripts/build-site.mjs builds offline, so fetch first). On a cold
# machine wasm-bindgen-cli builds beside the playground's own crates.
build_playground() {
  ensure_wasm_target
  ensure_npm web
  cargo fetch --locked
  if ! wasm_bindgen_current; then
    ensure_web_tools &
    local tools=$!
    cargo build --quiet --locked --offline --release --target wasm32-unknown-unknown -p dynalab-web
    wait "$tools"
  fi
  node scripts/build-site.mjs
}
