// The access code `dynalab export` writes, checked and run: for every design in examples/ and
// tests/designs/ with access patterns, the generated TypeScript must type-check (`tsc --strict`) and
// the Python pass pyflakes and mypy; the generated TypeScript tests (`node --test`, on the npm
// package's engine) and Python tests (pytest, on the Python package's) must pass; then one call of
// a generated function is changed in each language and its test must fail.
//
// node tests/export/generated.mjs DYNALAB_BINARY [NODE_WITH_TYPE_STRIPPING]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, existsSync, mkdirSync, symlinkSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(new URL('../..', import.meta.url).pathname);
const [given, nodeGiven = join(root, 'tests/node_modules/.bin/node')] = process.argv.slice(2);
if (!given) throw new Error('usage: node tests/export/generated.mjs DYNALAB_BINARY [NODE]');
// Absolute: the suites run with their own folder as the working directory.
const binary = resolve(given);
const node = resolve(nodeGiven);

// The corpus's designs dynalab refuses (exit 2 in its manifest) export nothing either.
const refused = new Set(
  JSON.parse(readFileSync(join(root, 'tests/designs/manifest.json'), 'utf8')).designs.filter((d) => d.exit === 2).map((d) => d.file),
);
const designs = [
  ...readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.workbook.json') || f.endsWith('.design.md')).map((f) => join(root, 'examples', f)),
  ...readdirSync(join(root, 'tests/designs'))
    .map((f) => join(root, 'tests/designs', f))
    .filter((f) => statSync(f).isFile() && !/README\.md$|manifest\.json$/.test(f) && !refused.has(f.split('/').pop())),
];

const work = mkdtempSync(join(tmpdir(), 'dynalab-export-'));
// What the generated package.json files name, from this repository: the SDK the tests install
// and the npm package scripts/npm-package built.
const modules = join(work, 'node_modules');
mkdirSync(modules);
symlinkSync(join(root, 'tests/node_modules/@aws-sdk'), join(modules, '@aws-sdk'));
symlinkSync(join(root, 'packages/dynalab'), join(modules, 'dynalab'));
symlinkSync(join(root, 'tests/node_modules/@types'), join(modules, '@types'));
const tsc = join(root, 'tests/node_modules/typescript/bin/tsc');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 300_000 });
  // A command that could not start says why (it has no output of its own).
  const failure = result.error ? `${command}: ${result.error.message}\n` : '';
  return { ok: result.status === 0, output: `${failure}${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The Python checkers' verdicts on one export's code (mypy per folder: each holds a module `access`). */
function checkedPython(dir) {
  const pyflakes = run('python3', ['-m', 'pyflakes', 'access.py', 'test_access.py'], join(dir, 'python'));
  const mypy = run('python3', ['-m', 'mypy', '--ignore-missing-imports', '--no-error-summary', '--cache-dir', join(work, '.mypy_cache'), 'access.py'], join(dir, 'python'));
  return { pyflakes, mypy };
}

function tests(dir) {
  return {
    typescript: run(node, ['--test'], join(dir, 'typescript')),
    python: run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], join(dir, 'python')),
  };
}

const counted = (output, pattern) => Number((output.match(pattern) ?? [])[1] ?? 0);
let failures = 0;
let exported = 0;
let withoutCode = 0;
let orders;
const typed = [];
for (const design of designs) {
  const name = design.slice(root.length + 1);
  const out = join(work, name.replace(/[/.]/g, '_'));
  execFileSync(binary, ['export', design, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (!existsSync(join(out, 'typescript'))) {
    withoutCode += 1;
    continue;
  }
  exported += 1;
  typed.push(join(out, 'typescript/access.ts'), join(out, 'typescript/access.test.ts'));
  for (const [checker, result] of Object.entries(checkedPython(out))) {
    if (!result.ok) {
      failures += 1;
      console.log(`  FAIL ${name}: ${checker}\n${result.output.split('\n').slice(0, 12).join('\n')}`);
    }
  }
  const { typescript, python } = tests(out);
  const ts = `${counted(typescript.output, /ℹ pass (\d+)/)} TypeScript`;
  const py = `${counted(python.output, /(\d+) passed/)} Python`;
  console.log(`  ${typescript.ok && python.ok ? 'ok  ' : 'FAIL'} ${name}: ${ts}, ${py} tests passed`);
  for (const [language, result] of Object.entries({ typescript, python })) {
    if (!result.ok) {
      failures += 1;
      console.log(`    ${language}:\n${result.output.split('\n').filter((l) => /✖|not ok|Error|assert|FAILED|failed|ENOENT/.test(l)).slice(0, 30).join('\n')}`);
    }
  }
  if (name === 'examples/orders-service.workbook.json') orders = out;
}
// Every export's TypeScript in one strict compilation (each folder's files are modules of their own).
const compiled = run(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
  '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--types', 'node', ...typed], work);
console.log(`  ${compiled.ok ? 'ok  ' : 'FAIL'} tsc --strict on ${typed.length} generated TypeScript files`);
if (!compiled.ok) {
  failures += 1;
  console.log(compiled.output.split('\n').slice(0, 20).join('\n'));
}
if (exported < 5) {
  console.log(`  only ${exported} designs had access code: expected the examples and the corpus's designs with patterns`);
  failures += 1;
}

// A changed call must be caught: the newest-first order of the orders example's AP2 reversed.
function mutated(file, from, to) {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${from}`);
  writeFileSync(file, text.replace(from, to));
  return () => writeFileSync(file, text);
}
if (!orders) throw new Error('the orders example exported no access code');
for (const [language, file, from, to] of [
  ['typescript', 'typescript/access.ts', 'ScanIndexForward: false', 'ScanIndexForward: true'],
  ['python', 'python/access.py', '"ScanIndexForward": False', '"ScanIndexForward": True'],
]) {
  const restore = mutated(join(orders, file), from, to);
  const result = tests(orders)[language];
  restore();
  const caught = !result.ok && /AP2|users_orders/.test(result.output);
  console.log(`  ${caught ? 'ok  ' : 'FAIL'} ${language}: ${from} changed to ${to} in the generated code, and its test ${caught ? 'failed' : 'still passed'}`);
  if (!caught) failures += 1;
}

console.log(`${exported} designs exported with access code (${withoutCode} without patterns), ${failures} failure(s)`);
if (failures === 0) rmSync(work, { recursive: true, force: true });
process.exit(failures === 0 ? 0 : 1);
