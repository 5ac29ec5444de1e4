// The CDK app `dynalab export` writes, synthesized and read back: for every design in examples/ and
// tests/designs/, the exported cdk/ folder must type-check (`tsc --strict`, against aws-cdk-lib's
// own types), `node app.ts` must synthesize it (as `cdk synth` runs it, no AWS account involved),
// and `dynalab check` of the synthesized template must read as the design's tables: keys,
// attribute definitions, indexes and projections, billing, declared capacity and auto scaling,
// time to live, stream, class, deletion protection, tags and vector indexes. Then one change to a generated stack
// (an index's projection) must be caught by the same comparison.
//
// node tests/export/cdk.mjs DYNALAB_BINARY [NODE_WITH_TYPE_STRIPPING]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { designs } from './designs.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const [given, nodeGiven = join(root, 'tests/node_modules/.bin/node')] = process.argv.slice(2);
if (!given) throw new Error('usage: node tests/export/cdk.mjs DYNALAB_BINARY [NODE]');
const binary = resolve(given);
const node = resolve(nodeGiven);

const work = mkdtempSync(join(tmpdir(), 'dynalab-cdk-'));
// What cdk/package.json names, from tests/node_modules (tests/package.json pins them).
mkdirSync(join(work, 'node_modules'));
for (const name of ['aws-cdk-lib', 'constructs', '@types']) {
  symlinkSync(join(root, 'tests/node_modules', name), join(work, 'node_modules', name));
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000, ...options });
  const failure = result.error ? `${command}: ${result.error.message}\n` : '';
  return { ok: result.status === 0, output: `${failure}${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The workbook dynalab reads a file as (`dynalab check FILE --format workbook`). */
function workbook(file) {
  return JSON.parse(execFileSync(binary, ['check', file, '--format', 'workbook'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 30 }));
}

/** What an export must keep of a design: per table, its definition as DynamoDB and the deployment see it. */
function shape(book) {
  const byName = (a, b) => String(a.IndexName ?? a.TableName).localeCompare(String(b.IndexName ?? b.TableName));
  const indexes = (list = []) => list.map((i) => ({
    IndexName: i.IndexName, KeySchema: i.KeySchema, Projection: i.Projection ?? null, ProvisionedThroughput: i.ProvisionedThroughput ?? null,
  })).sort(byName);
  const scaling = (declared) => {
    if (!declared) return null;
    const indexes = Object.fromEntries(Object.entries(declared.indexes ?? {})
      .filter(([, d]) => d.read_scaling || d.write_scaling)
      .map(([name, d]) => [name, { read: d.read_scaling ?? null, write: d.write_scaling ?? null }]));
    const kept = { read: declared.read_scaling ?? null, write: declared.write_scaling ?? null, indexes };
    return kept.read || kept.write || Object.keys(indexes).length ? kept : null;
  };
  return book.tables.map((t) => ({
    TableName: t.TableName,
    KeySchema: t.KeySchema,
    AttributeDefinitions: [...t.AttributeDefinitions].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName)),
    BillingMode: t.BillingMode ?? (t.ProvisionedThroughput ? 'PROVISIONED' : 'PAY_PER_REQUEST'),
    ProvisionedThroughput: t.ProvisionedThroughput ?? null,
    GlobalSecondaryIndexes: indexes(t.GlobalSecondaryIndexes),
    LocalSecondaryIndexes: indexes(t.LocalSecondaryIndexes),
    Stream: t.StreamSpecification?.StreamViewType ?? null,
    TableClass: t.TableClass ?? null,
    DeletionProtectionEnabled: t.DeletionProtectionEnabled ?? null,
    Tags: t.Tags ?? null,
    VectorIndexes: t.VectorIndexes ?? null,
    TimeToLive: (book.setup ?? []).map((c) => c.request)
      .find((r) => r?.TableName === t.TableName && r.TimeToLiveSpecification)?.TimeToLiveSpecification.AttributeName ?? null,
    Scaling: scaling(book.capacity?.[t.TableName]),
  })).sort(byName);
}

/** The first place two shapes part, as a path and both values. */
function difference(a, b, path = '') {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = difference(a[key], b[key], `${path}${Array.isArray(a) ? `[${key}]` : `.${key}`}`);
      if (found) return found;
    }
  }
  return `${path || '(the whole)'}: the design has ${JSON.stringify(a)}, the synthesized template ${JSON.stringify(b)}`;
}

/** Synthesizes one exported cdk/ folder as `cdk synth` does; the template's path, or why not. */
function synthesized(cdk) {
  const result = run(node, ['app.ts'], { cwd: cdk, env: { ...process.env, CDK_OUTDIR: 'cdk.out' } });
  if (!result.ok) return { problem: result.output.split('\n').slice(0, 15).join('\n') };
  const templates = readdirSync(join(cdk, 'cdk.out')).filter((f) => f.endsWith('.template.json'));
  if (templates.length !== 1) return { problem: `cdk.out holds ${templates.length} templates` };
  return { template: join(cdk, 'cdk.out', templates[0]) };
}

let failures = 0;
let checked = 0;
const typed = [];
let orders;
for (const design of designs(root)) {
  const name = design.slice(root.length + 1);
  const out = join(work, name.replace(/[/.]/g, '_'));
  execFileSync(binary, ['export', design, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const cdk = join(out, 'cdk');
  typed.push(join(cdk, 'design-stack.ts'), join(cdk, 'app.ts'));
  const { template, problem } = synthesized(cdk);
  const wanted = shape(workbook(design));
  const found = template ? difference(wanted, shape(workbook(template))) : problem;
  console.log(`  ${found ? 'FAIL' : 'ok  '} ${name}: ${found ?? `synthesized, and the template reads back as the design's ${wanted.length} table(s)`}`);
  if (found) failures += 1;
  checked += 1;
  if (name === 'examples/orders-service.workbook.json') orders = { design, cdk };
}

const compiled = run(process.execPath, [join(root, 'tests/node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--target', 'es2022',
  '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--types', 'node', ...typed], { cwd: work });
console.log(`  ${compiled.ok ? 'ok  ' : 'FAIL'} tsc --strict on ${typed.length} generated CDK files`);
if (!compiled.ok) {
  failures += 1;
  console.log(compiled.output.split('\n').slice(0, 20).join('\n'));
}
if (checked < 20) {
  console.log(`  only ${checked} designs exported: expected the examples and the design corpus`);
  failures += 1;
}

// A changed stack must be caught: the orders example's index projects every attribute instead of `total`.
if (!orders) throw new Error('the orders example was not exported');
const stack = join(orders.cdk, 'design-stack.ts');
const text = readFileSync(stack, 'utf8');
const from = 'projectionType: dynamodb.ProjectionType.INCLUDE,';
if (!text.includes(from)) throw new Error(`${stack} no longer holds ${from}`);
writeFileSync(stack, text.replace(from, '').replace(/\n\s*nonKeyAttributes: \[[^\]]*\],/, ''));
const again = synthesized(orders.cdk);
const caught = again.template && difference(shape(workbook(orders.design)), shape(workbook(again.template)));
console.log(`  ${caught ? 'ok  ' : 'FAIL'} the orders stack's INCLUDE projection removed: ${caught ? `caught (${caught})` : 'not caught'}`);
if (!caught) failures += 1;
if (!existsSync(join(orders.cdk, 'cdk.json'))) {
  console.log('  FAIL the export wrote no cdk.json');
  failures += 1;
}

console.log(`${checked} designs' CDK apps synthesized and read back, ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
