// Builds the playground into dist/ from index.html: the web crate compiled to WebAssembly, bound
// by wasm-bindgen, shrunk by wasm-opt -Oz, its JavaScript, WebAssembly and CSS named by their
// content's hash (a new build is never served from an old cache), the page's folders and files
// copied beside them. index.html says what goes in with `data-build` links; this script writes
// them out as the page's <link>s and the script that starts the module.
//
// It does what trunk did for this page, without trunk: trunk took 19 of the 22 minutes a cold
// scripts/playground spent (it had to be compiled first), for a build this small.
//
// node scripts/build-site.mjs   (cargo, wasm-bindgen and wasm-opt on PATH; CARGO_TARGET_DIR honoured)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const target = resolve(root, process.env.CARGO_TARGET_DIR ?? 'target');
const page = readFileSync(join(root, 'index.html'), 'utf8');
const links = [...page.matchAll(/^\s*<link data-build rel="([\w-]+)" href="([^"]+)"[^>]*>\n/gm)].map((m) => ({ line: m[0], rel: m[1], href: m[2], tag: m[0] }));
const crate = links.find((l) => l.rel === 'rust');
if (!crate) throw new Error('index.html names no crate (<link data-build rel="rust" href="…/Cargo.toml" data-bin="…">)');
const bin = crate.tag.match(/data-bin="([^"]+)"/)?.[1] ?? basename(crate.href.replace('/Cargo.toml', ''));

function run(command, args) {
  execFileSync(command, args, { cwd: root, stdio: 'inherit' });
}

/** The first 16 hex digits of the content's SHA-256, for a file name; and its SRI digest. */
function digests(bytes) {
  return {
    name: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(bytes).digest('base64')}`,
  };
}

run('cargo', ['build', '--quiet', '--locked', '--offline', '--release', '--target', 'wasm32-unknown-unknown', '-p', bin, '--bin', bin]);
// wasm-bindgen and wasm-opt once per compiled module: scripts/test builds the site twice (its
// browser suites, then the release archives), and wasm-opt -Oz is most of a warm build.
const compiled = readFileSync(join(target, 'wasm32-unknown-unknown/release', `${bin}.wasm`));
const cache = join(target, 'site-build');
const bound = join(cache, digests(compiled).name);
const wasmFile = join(bound, `${bin}_bg.wasm`);
if (!existsSync(join(bound, 'done'))) {
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(bound, { recursive: true });
  run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', bound, '--out-name', bin, join(target, 'wasm32-unknown-unknown/release', `${bin}.wasm`)]);
  // The features rustc 1.95 emits for wasm32-unknown-unknown, which wasm-opt must be told of.
  run('wasm-opt', ['-Oz', '--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals',
    '--enable-reference-types', '--enable-multivalue', wasmFile, '-o', wasmFile]);
  writeFileSync(join(bound, 'done'), '');
}
// wasm-bindgen writes snippets/ when a crate brings JavaScript of its own: none does today, and
// this build does not place them, so it says so rather than ship a page that cannot start.
if (existsSync(join(bound, 'snippets'))) throw new Error(`${bound}/snippets: JavaScript snippets are not placed by this build yet`);

// Written into a fresh folder, then swapped in, so dist/ is never half a build.
const out = join(root, 'dist.building');
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const emit = (bytes, stem, extension) => {
  const { name, integrity } = digests(bytes);
  const file = `${stem}-${name}.${extension}`;
  writeFileSync(join(out, file), bytes);
  return { href: `./${file}`, integrity };
};
const wasm = emit(readFileSync(wasmFile), bin, 'wasm');
const glue = emit(readFileSync(join(bound, `${bin}.js`)), bin, 'js');

let head = `<link rel="modulepreload" href="${glue.href}" crossorigin="anonymous" integrity="${glue.integrity}">\n`
  + `  <link rel="preload" href="${wasm.href}" crossorigin="anonymous" integrity="${wasm.integrity}" as="fetch" type="application/wasm">\n`;
for (const link of links) {
  const source = join(root, link.href);
  if (link.rel === 'css') {
    const css = emit(readFileSync(source), basename(link.href, '.css'), 'css');
    head += `  <link rel="stylesheet" href="${css.href}" integrity="${css.integrity}">\n`;
  } else if (link.rel === 'copy-dir' || link.rel === 'copy-file') {
    cpSync(source, join(out, basename(link.href)), { recursive: true });
  } else if (link.rel !== 'rust') {
    throw new Error(`index.html: <link data-build rel="${link.rel}"> is not a kind this build knows`);
  }
}
// The module started as the page loads; its exports on window for the browser tests' probes.
head += `  <script type="module">
import init, * as bindings from '${glue.href}';
await init({ module_or_path: '${wasm.href}' });
window.wasmBindings = bindings;
</script>\n`;
let html = page;
for (const link of links) html = html.replace(link.line, '');
html = html.replace('</head>', `  ${head}</head>`);
writeFileSync(join(out, 'index.html'), html);

rmSync(join(root, 'dist'), { recursive: true, force: true });
renameSync(out, join(root, 'dist'));
console.log(`dist/: ${wasm.href.slice(2)} ${(readFileSync(join(root, 'dist', wasm.href)).length / 1024).toFixed(0)} KiB, ${glue.href.slice(2)}, ${links.length - 1} files and folders copied`);
