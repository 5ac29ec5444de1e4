// The npm package in Chromium: its browser entry loaded as an ES module from a static site under a
// sub-path, the AWS SDK for JavaScript v3 (bundled by esbuild) running against the in-page engine
// through the package's request handler — on the page's main thread and in a module Worker. No
// request may leave the page's own origin, and any console error fails. Usage: node browser.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { serve, launch, watchedPage } from '../browser/serve-and-launch.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.resolve(here, '../../packages/dynalab');
let passed = 0, failed = 0;
const check = (name, ok, detail = '') => { if (ok) passed++; else { failed++; console.log(`FAILED: ${name} ${detail}`); } };

// The site: the package as published (its files only), the SDK as one ES module, a page and a worker.
const site = fs.mkdtempSync(path.join(os.tmpdir(), 'dynalab-npm-site-'));
const files = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'))).files;
for (const file of files.filter((f) => !f.startsWith('LICENSE'))) {
  fs.mkdirSync(path.dirname(path.join(site, 'dynalab', file)), { recursive: true });
  fs.copyFileSync(path.join(packageDir, file), path.join(site, 'dynalab', file));
}
const sdk = await build({
  stdin: { contents: "export * from '@aws-sdk/client-dynamodb';", resolveDir: here, loader: 'js' },
  bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent',
});
fs.writeFileSync(path.join(site, 'sdk.js'), sdk.outputFiles[0].text);

// One session through the SDK; each step reported as [name, ok, detail].
const scenario = `
import { Engine, DynamoDBError, clientConfig, check } from './dynalab/index.browser.js';
import { DynamoDBClient, CreateTableCommand, BatchWriteItemCommand, PutItemCommand, paginateQuery,
  ConditionalCheckFailedException, TransactWriteItemsCommand, TransactionCanceledException } from './sdk.js';

export async function scenario(where) {
  const results = [];
  const engine = new Engine();
  const client = new DynamoDBClient(clientConfig(engine));
  await client.send(new CreateTableCommand({ TableName: 'browser', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }] }));
  const puts = Array.from({ length: 25 }, (_, n) => ({ PutRequest: { Item: { pk: { S: 'p' }, sk: { N: String(n) } } } }));
  await client.send(new BatchWriteItemCommand({ RequestItems: { browser: puts } }));
  const pages = [];
  for await (const page of paginateQuery({ client, pageSize: 10 }, { TableName: 'browser',
    KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } })) pages.push(page.Count);
  results.push([where + ': the Query paginator pages the in-page engine', pages.join() === '10,10,5', pages.join()]);
  try {
    await client.send(new PutItemCommand({ TableName: 'browser', Item: { pk: { S: 'p' }, sk: { N: '7' } }, ConditionExpression: 'attribute_not_exists(pk)' }));
    results.push([where + ': a failed condition throws', false, 'no error']);
  } catch (e) {
    results.push([where + ': the SDK\\'s typed ConditionalCheckFailedException', e instanceof ConditionalCheckFailedException
      && e.$metadata.httpStatusCode === 400, e.name]);
  }
  try {
    await client.send(new TransactWriteItemsCommand({ TransactItems: [
      { Put: { TableName: 'browser', Item: { pk: { S: 'q' }, sk: { N: '1' } } } },
      { ConditionCheck: { TableName: 'browser', Key: { pk: { S: 'p' }, sk: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } }] }));
    results.push([where + ': a cancelled transaction throws', false, 'no error']);
  } catch (e) {
    results.push([where + ': TransactionCanceledException with its reasons', e instanceof TransactionCanceledException
      && e.CancellationReasons.map((r) => r.Code).join() === 'None,ConditionalCheckFailed', e.name]);
  }
  let direct;
  try { engine.execute('GetItem', { TableName: 'nope', Key: { pk: { S: 'a' } } }); } catch (e) { direct = e; }
  results.push([where + ': the engine API throws DynamoDBError', direct instanceof DynamoDBError && direct.name === 'ResourceNotFoundException', direct?.name]);
  const design = await (await fetch(new URL('./design.json', import.meta.url))).text();
  const checked = check(design);
  results.push([where + ': check() runs a workbook in the page', checked.verdict === 'pass' && checked.report.patterns.length === 8, checked.verdict]);
  return results;
}
`;
fs.writeFileSync(path.join(site, 'scenario.js'), scenario);
fs.copyFileSync(path.resolve(here, '../../examples/orders-service.workbook.json'), path.join(site, 'design.json'));
fs.writeFileSync(path.join(site, 'worker.js'), `
import { scenario } from './scenario.js';
scenario('worker').then((results) => postMessage(results), (e) => postMessage([['worker: the scenario ran', false, String(e)]]));
`);
fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><meta charset="utf-8"><title>dynalab in a page</title><link rel="icon" href="data:,">
<script type="module">
import { scenario } from './scenario.js';
window.mainThread = scenario('main thread').catch((e) => [['main thread: the scenario ran', false, String(e)]]);
window.inWorker = new Promise((resolve) => {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => resolve([['worker: loaded', false, event.message]]);
});
</script>`);

const { server, url } = await serve(site, '/lessons/dynamodb/');
const browser = await launch();
const errors = [];
try {
  const context = await browser.newContext();
  const elsewhere = [];
  context.on('request', (request) => { if (!request.url().startsWith(url)) elsewhere.push(request.url()); });
  const page = await watchedPage(context, errors);
  await page.goto(url);
  await page.waitForFunction(() => window.mainThread !== undefined, null, { timeout: 20000 });
  for (const [name, ok, detail] of await page.evaluate(() => window.mainThread)) check(name, ok, detail);
  for (const [name, ok, detail] of await page.evaluate(() => window.inWorker)) check(name, ok, detail);
  check(`no request left the site: ${elsewhere.join(', ')}`, elsewhere.length === 0);
  check(`no console errors: ${errors.join('; ')}`, errors.length === 0);
} catch (e) {
  check(`the page ran: ${e.message} ${errors.join('; ')}`, false);
} finally {
  await browser.close();
  server.close();
  fs.rmSync(site, { recursive: true, force: true });
}
console.log(`npm package in Chromium: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
