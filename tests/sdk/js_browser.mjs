// The AWS SDK for JavaScript v3 in a real browser: bundled with esbuild for the browser, loaded by
// a page on another origin (a second 127.0.0.1 port), calling `dynalab serve` through CORS —
// preflights with Authorization and the SDK's own headers, and the response headers it must read
// (x-amzn-RequestId, x-amz-crc32). Any console error (a CORS refusal is one) fails the run.
// Usage: node js_browser.mjs ENDPOINT
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { launch, watchedPage } from '../browser/serve-and-launch.mjs';
import { checks } from './lab.mjs';

const endpoint = process.argv[2];
const check = checks();
const here = path.dirname(fileURLToPath(import.meta.url));

// What runs in the page: one session through the SDK, each step reported as [name, ok, detail].
const pageScript = `
import { DynamoDBClient, CreateTableCommand, BatchWriteItemCommand, GetItemCommand, PutItemCommand,
  DeleteTableCommand, paginateQuery } from '@aws-sdk/client-dynamodb';
window.runScenario = async (endpoint) => {
  const results = [];
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', maxAttempts: 1,
    credentials: { accessKeyId: 'browser', secretAccessKey: 'lab' } });
  const created = await client.send(new CreateTableCommand({ TableName: 'browser', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }] }));
  results.push(['CreateTable answers, with the request id the SDK reads from an exposed header',
    created.TableDescription.TableName === 'browser' && /DYNALAB/.test(created.$metadata.requestId ?? ''), created.$metadata.requestId]);
  const puts = Array.from({ length: 25 }, (_, n) => ({ PutRequest: { Item: { pk: { S: 'p' }, sk: { N: String(n) } } } }));
  const written = await client.send(new BatchWriteItemCommand({ RequestItems: { browser: puts } }));
  results.push(['BatchWriteItem of 25', Object.keys(written.UnprocessedItems ?? {}).length === 0, '']);
  const got = await client.send(new GetItemCommand({ TableName: 'browser', Key: { pk: { S: 'p' }, sk: { N: '7' } } }));
  results.push(['GetItem', got.Item?.sk?.N === '7', JSON.stringify(got.Item)]);
  const pages = [];
  for await (const page of paginateQuery({ client, pageSize: 10 }, { TableName: 'browser',
    KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } })) pages.push(page.Count);
  results.push(['Query paginator: 25 items in pages of 10', JSON.stringify(pages) === '[10,10,5,0]' || JSON.stringify(pages) === '[10,10,5]', JSON.stringify(pages)]);
  try {
    await client.send(new PutItemCommand({ TableName: 'browser', Item: { pk: { S: 'p' }, sk: { N: '7' } },
      ConditionExpression: 'attribute_not_exists(pk)' }));
    results.push(['a failed condition is an error', false, 'no error']);
  } catch (e) {
    results.push(['a failed condition is the typed ConditionalCheckFailedException', e.name === 'ConditionalCheckFailedException'
      && e.$metadata.httpStatusCode === 400 && e.message === 'The conditional request failed', e.name + ': ' + e.message]);
  }
  await client.send(new DeleteTableCommand({ TableName: 'browser' }));
  return results;
};
`;

const bundle = await build({
  stdin: { contents: pageScript, resolveDir: here, loader: 'js' },
  bundle: true, platform: 'browser', format: 'iife', write: false, logLevel: 'silent',
});
const html = `<!doctype html><meta charset="utf-8"><title>SDK in a browser</title><script>${bundle.outputFiles[0].text}</script>`;
const site = http.createServer((_, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html); });
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${site.address().port}/`;

const browser = await launch();
const errors = [];
try {
  const page = await watchedPage(await browser.newContext(), errors);
  await page.goto(origin);
  check('the page is on another origin than the endpoint', new URL(origin).origin !== new URL(endpoint).origin);
  const results = await page.evaluate((url) => window.runScenario(url), endpoint);
  for (const [name, ok, detail] of results) check(`${name} (${detail})`, ok);
  // The one 400 is the failed condition above; Chromium logs every 4xx it loads. A CORS refusal
  // would be a different message.
  // Errors carry the step they happened in; this scenario has no named steps.
  const unexpected = errors.filter((e) => !e.endsWith('] console: Failed to load resource: the server responded with a status of 400 (Bad Request)'));
  check(`no other console errors: ${unexpected.join('; ')}`, unexpected.length === 0 && errors.length === 1);
} catch (e) {
  check(`the scenario ran: ${e.message} ${errors.join('; ')}`, false);
} finally {
  await browser.close();
  site.close();
}
check.finish('AWS SDK for JavaScript in Chromium');
