// The npm package's API: requests and responses as JSON text (what the package sends: JSON.stringify,
// one string across, the engine's text back, JSON.parse) against the same values as JavaScript
// objects (serde-wasm-bindgen walks the object on the way in and builds one on the way out); and
// the check report as text parsed in JavaScript against the values the package gets now. Built with `--features codec-bench` into target/npm-api-values (never the shipped package),
// run in this Node, rounds alternating; medians in µs per call, and the ratio values/text (above 1:
// values are slower).
// Usage: node benches/npm-api-values.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
const out = path.join(target, 'npm-api-values');
execFileSync('cargo', ['build', '--locked', '--release', '--target', 'wasm32-unknown-unknown', '-p', 'dynalab-js', '--features', 'codec-bench'], { cwd: root, stdio: 'inherit' });
execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'dynalab', path.join(target, 'wasm32-unknown-unknown/release/dynalab_js.wasm')], { stdio: 'inherit' });
const wasm = await import(pathToFileURL(path.join(out, 'dynalab.js')));
wasm.initSync({ module: readFileSync(path.join(out, 'dynalab_bg.wasm')) });

const engine = new wasm.RawEngine(1_700_000_000_000);
engine.execute('CreateTable', JSON.stringify({ TableName: 'things', BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }] }));
const item = (i) => ({ pk: { S: 'USER#1' }, sk: { S: `ORDER#${String(i).padStart(5, '0')}` }, total: { N: '42.5' },
  status: { S: 'OPEN' }, lines: { L: [{ M: { sku: { S: 'SKU-1' }, qty: { N: '2' } } }] }, note: { S: 'x'.repeat(800) } });
for (let i = 0; i < 100; i += 1) engine.execute('PutItem', JSON.stringify({ TableName: 'things', Item: item(i) }));
const workbook = readFileSync(path.join(root, 'examples/orders-service.workbook.json'), 'utf8');

let n = 0;
const calls = {
  'PutItem 1 KB': [
    () => JSON.parse(engine.execute('PutItem', JSON.stringify({ TableName: 'things', Item: item(n++ % 100) })) || '{}'),
    () => engine.executeValues('PutItem', { TableName: 'things', Item: item(n++ % 100) }),
  ],
  'GetItem 1 KB': [
    () => JSON.parse(engine.execute('GetItem', JSON.stringify({ TableName: 'things', Key: { pk: { S: 'USER#1' }, sk: { S: 'ORDER#00007' } } }))),
    () => engine.executeValues('GetItem', { TableName: 'things', Key: { pk: { S: 'USER#1' }, sk: { S: 'ORDER#00007' } } }),
  ],
  'Query 100 items': [
    () => JSON.parse(engine.execute('Query', JSON.stringify({ TableName: 'things', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'USER#1' } } }))),
    () => engine.executeValues('Query', { TableName: 'things', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'USER#1' } } }),
  ],
  'check workbook': [
    () => JSON.parse(wasm.checkText(workbook, 1_700_000_000_000)),
    () => wasm.check(workbook, 1_700_000_000_000),
  ],
};
// The two paths must give the same answer, or the comparison means nothing.
for (const [name, [text, values]] of Object.entries(calls)) {
  if (name.startsWith('PutItem')) continue;
  if (!isDeepStrictEqual(text(), values())) throw new Error(`${name}: the two paths answer differently`);
}
const time = (f, times) => { const start = process.hrtime.bigint(); for (let i = 0; i < times; i += 1) f(); return Number(process.hrtime.bigint() - start) / 1000 / times; };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, [text, values]] of Object.entries(calls)) {
  const times = name.startsWith('check') ? 5 : 2000;
  const rounds = { text: [], values: [] };
  for (let r = 0; r < 7; r += 1) { rounds.text.push(time(text, times)); rounds.values.push(time(values, times)); }
  const [t, v] = [median(rounds.text), median(rounds.values)];
  console.log(`${name.padEnd(16)} text ${t.toFixed(1).padStart(9)} µs   values ${v.toFixed(1).padStart(9)} µs   values/text ${(v / t).toFixed(2)}`);
}
