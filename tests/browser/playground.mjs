// The playground end to end, in headless Chromium against the built dist/ served from a sub-path:
// a table with a GSI from the form (and a refused one), the orders example, a Query with its items
// and capacity breakdown, next page, a pasted AWS CLI command, a conditional-check failure and a
// cancelled transaction with their reasons, a fixture file, reload, export/import, a corrupt
// import, a share link opened in a fresh browser and in the same tab, the keyboard, screens from
// 360 px (nothing wider than the screen), axe-core on every tab, the generator, long share links,
// the start panel, a workshop step failed then passed (progress kept across a reload), a challenge
// graded (a naive solution, then the reference), a pack opened by URL.
// Any console error fails the run. Usage: node tests/browser/playground.mjs [dist] [screenshot.png]
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, watchedPage, steps } from './serve-and-launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const screenshot = process.argv[3];
const { server, url } = await serve(dist, '/lab/');
const browser = await launch();
const errors = [];
const run = steps();
const { step } = run;

const t = (page, id) => page.locator(`[data-test="${id}"]`);
const notice = (page) => t(page, 'notice');
const tab = (page, name) => page.getByRole('tab', { name }).click();

async function runPattern(page, title) {
  await tab(page, 'Console');
  await page.getByRole('button', { name: title }).click();
  await t(page, 'run').click();
}

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await watchedPage(context, errors);
  await page.goto(url);
  await page.getByRole('heading', { name: 'Dynalab' }).waitFor();

  await step('a refused table definition shows DynamoDB\'s error next to the name field', async () => {
    await tab(page, 'Tables');
    await t(page, 'table-name').fill('ab');
    await t(page, 'create-table').click();
    const error = t(page, 'field-error');
    await error.waitFor();
    assert.match(await error.textContent(), /^ValidationException: 1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3/);
  });

  await step('a table with a GSI from the form', async () => {
    await t(page, 'table-name').fill('people');
    await t(page, 'range-name').fill('');
    await t(page, 'add-gsi').click();
    await t(page, 'index-name').fill('by_email');
    await t(page, 'index-hash').fill('email:S');
    await t(page, 'create-table').click();
    await notice(page).getByText('Table `people` created.').waitFor();
    assert.equal(await t(page, 'table-card').count(), 1);
    await tab(page, 'Items');
    await t(page, 'item-editor').fill('{"pk": "p1", "email": "a@example.com", "age": 12345678901234567890.5}');
    await t(page, 'save-item').click();
    await t(page, 'item-editor').fill('{"pk": "p2"}');
    await t(page, 'save-item').click();
    // Written in the engine's worker: the summary follows when it says so.
    await page.waitForFunction(() => /^2 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''));
    await t(page, 'items-view').selectOption('by_email');
    assert.match(await t(page, 'items-summary').textContent(), /Index by_email: 1 of the table's 2 items .* sparse/);
    await t(page, 'items-view').selectOption('');
    await t(page, 'item-row').nth(1).waitFor(); // rows come from the engine's worker
    assert.match(await page.locator('main').textContent(), /N 12345678901234567890\.5/);
  });

  await step('an invalid item is refused with DynamoDB\'s message and nothing changes', async () => {
    await t(page, 'item-editor').fill('{"email": "no key"}');
    await t(page, 'save-item').click();
    assert.match(await t(page, 'item-error').textContent(), /^ValidationException: One or more parameter values were invalid: Missing the key pk in the item/);
    assert.match(await t(page, 'items-summary').textContent(), /^2 items/);
  });

  await step('the orders example loads from the gallery', async () => {
    await tab(page, 'Examples & fixtures');
    await t(page, 'load-example-orders').click();
    await notice(page).getByText('Loaded the Orders service example').waitFor();
  });

  await step('a Query shows its items, Count and the capacity arithmetic, and follows the next page', async () => {
    // The Console's patterns are the workbook's (examples/orders-service.workbook.json): one list.
    await tab(page, 'Console');
    const titles = await t(page, 'pattern').allTextContents();
    assert.equal(titles.length, 8, titles.join(' | '));
    assert.equal(titles[1], "AP2 — A user's orders, newest first, 20 per page");
    await page.getByRole('button', { name: titles[1] }).click();
    // The same request with a page of 3, to follow the pages.
    await t(page, 'request').fill((await t(page, 'request').inputValue()).replace('"Limit": 20', '"Limit": 3'));
    await t(page, 'run').click();
    const result = t(page, 'result');
    await result.waitFor();
    const grid = await t(page, 'grid').textContent();
    assert.ok(grid.indexOf('ORDER#2026-11-09#o8') < grid.indexOf('ORDER#2026-11-08#o7'), grid);
    assert.match(await t(page, 'counts').textContent(), /Count 3 of ScannedCount 3/);
    const capacity = await t(page, 'capacity').textContent();
    assert.match(capacity, /0\.5 RCU/);
    assert.match(capacity, /eventually consistent read/);
    assert.match(capacity, /\d+ B → 1 × 4 KB → ×½ eventually consistent = 0\.5 RCU/);
    assert.match(await t(page, 'paging').textContent(), /ended because it evaluated its Limit of 3 item\(s\)\. LastEvaluatedKey: .*ORDER#2026-11-07#o6/);
    await t(page, 'next-page').click();
    await page.waitForFunction(() => document.querySelector('[data-test="grid"]')?.textContent.includes('ORDER#2026-11-06#o5'));
    assert.match(await t(page, 'grid').textContent(), /ORDER#2026-11-04#o3/);
  });

  await step('a pasted AWS CLI command runs as is', async () => {
    await t(page, 'cli-mode').click();
    await t(page, 'cli').fill(`aws dynamodb get-item \\
  --table-name orders \\
  --key '{"pk": {"S": "SKU#ink"}, "sk": {"S": "STOCK"}}' \\
  --consistent-read --return-consumed-capacity TOTAL`);
    await t(page, 'run').click();
    await page.waitForFunction(() => document.querySelector('[data-test="grid"]')?.textContent.includes('SKU#ink'));
    assert.match(await t(page, 'grid').textContent(), /qty.*N 40/s);
    assert.match(await t(page, 'capacity').textContent(), /strongly consistent read.*= 1 RCU/s);
    await t(page, 'cli').fill('aws dynamodb list-backups');
    await t(page, 'run').click();
    assert.match(await t(page, 'cli-error').textContent(), /`list-backups` is not an operation Dynalab runs/);
    // Every operation the JSON console runs runs as a command too: PartiQL, TTL, tags, Streams.
    for (const [command, shown] of [
      [`aws dynamodb execute-statement --statement "SELECT * FROM orders WHERE pk = 'SKU#ink'"`, 'ExecuteStatement succeeded'],
      ['aws dynamodb describe-time-to-live --table-name orders', 'DescribeTimeToLive succeeded'],
      ['aws dynamodb tag-resource --resource-arn arn:aws:dynamodb:us-east-1:000000000000:table/orders --tags Key=team,Value=lab', 'TagResource succeeded'],
      ['aws dynamodb list-tags-of-resource --resource-arn arn:aws:dynamodb:us-east-1:000000000000:table/orders', 'ListTagsOfResource succeeded'],
      ['aws dynamodbstreams list-streams --table-name orders', 'ListStreams succeeded'],
    ]) {
      await t(page, 'cli-mode').click();
      await t(page, 'cli').fill(command);
      await t(page, 'run').click();
      await page.waitForFunction((text) => document.querySelector('[data-test="result"]')?.textContent.includes(text), shown);
    }
  });

  await step('PartiQL runs in the console', async () => {
    await t(page, 'cli-mode').click();
    await page.getByRole('button', { name: 'DynamoDB JSON' }).click();
    await t(page, 'operation').selectOption('ExecuteStatement');
    await t(page, 'request').fill(JSON.stringify({ Statement: "SELECT sk, qty FROM orders WHERE pk = ? AND begins_with(sk, 'ITEM#')", Parameters: [{ S: 'ORDER#o3' }] }));
    await t(page, 'run').click();
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('ExecuteStatement succeeded'));
    assert.match(await t(page, 'grid').textContent(), /S ITEM#pad.*N 1.*S ITEM#pen/s);
    assert.match(await t(page, 'capacity').textContent(), /0\.5 RCU/);
  });

  await step('a conditional-check failure shows its name, message and the old item', async () => {
    await runPattern(page, 'AP8 — Ship an order: it leaves the open-orders index');
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('UpdateItem succeeded'));
    // Shipped once; again, asking for the item as it was when the condition failed.
    const shipped = JSON.parse(await t(page, 'request').inputValue());
    await t(page, 'request').fill(JSON.stringify({ ...shipped, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    await t(page, 'run').click();
    await t(page, 'error-name').waitFor();
    assert.equal(await t(page, 'error-name').textContent(), 'ConditionalCheckFailedException');
    assert.equal(await t(page, 'error-message').textContent(), 'The conditional request failed');
    assert.match(await t(page, 'result').textContent(), /ORDER#2026-11-05#o4.*SHIPPED/s);
  });

  await step('a cancelled transaction shows its CancellationReasons in order', async () => {
    await runPattern(page, 'AP7 — Sign up with an email already taken is refused');
    await page.waitForFunction(() => document.querySelector('[data-test="error-name"]')?.textContent === 'TransactionCanceledException');
    assert.match(await t(page, 'error-message').textContent(), /^Transaction cancelled, please refer cancellation reasons for specific reasons \[None, ConditionalCheckFailed\]$/);
    assert.deepEqual(await t(page, 'reason-code').allTextContents(), ['None', 'ConditionalCheckFailed']);
    // The item ReturnValuesOnConditionCheckFailure returns shows beside its reason.
    await t(page, 'operation').selectOption('TransactWriteItems');
    await t(page, 'request').fill(JSON.stringify({ TransactItems: [{ Put: { TableName: 'orders',
      Item: { pk: { S: 'EMAIL#ada@example.com' }, sk: { S: 'EMAIL' } }, ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }] }));
    await t(page, 'run').click();
    await t(page, 'reason-item').waitFor();
    assert.match(await t(page, 'reason-item').textContent(), /"pk": "EMAIL#ada@example.com"/);
  });

  await step('the keyboard runs a request (Ctrl+Enter) and the write is explained per index', async () => {
    await runPattern(page, 'AP5 — Place an order: take stock, write order and line item');
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('succeeded'));
    const capacity = await t(page, 'capacity').textContent();
    assert.match(capacity, /orders · index open_orders/);
    assert.match(capacity, /the item now has the index key/);
    assert.match(capacity, /transaction: the table's write units are charged twice/);
    await page.getByRole('textbox', { name: 'Request JSON' }).fill('{"TableName": "orders"}');
    await page.getByRole('combobox', { name: /Operation/ }).selectOption('DescribeTable');
    await page.getByRole('textbox', { name: 'Request JSON' }).fill('{"TableName": "orders"}');
    await page.getByRole('textbox', { name: 'Request JSON' }).press('Control+Enter');
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('DescribeTable succeeded'));
    // No items: the raw JSON is what shows, and the switch says so.
    assert.equal(await t(page, 'show-grid').getAttribute('aria-pressed'), 'false');
    assert.ok(await t(page, 'show-grid').isDisabled());
    assert.equal(await t(page, 'show-raw').getAttribute('aria-pressed'), 'true');
    // Leaving the Console and coming back finds the editor and the result as they were.
    await tab(page, 'Tables');
    await tab(page, 'Console');
    assert.equal(await t(page, 'operation').inputValue(), 'DescribeTable');
    assert.equal(await t(page, 'request').inputValue(), '{"TableName": "orders"}');
    assert.ok((await t(page, 'result').textContent()).includes('DescribeTable succeeded'), 'the result is still shown');
  });

  await step('changing the operation keeps what the user wrote unless they agree to replace it', async () => {
    await t(page, 'request').fill('{"TableName": "orders", "mine": true}');
    page.once('dialog', (dialog) => dialog.dismiss());
    await t(page, 'operation').selectOption('Scan');
    assert.equal(await t(page, 'request').inputValue(), '{"TableName": "orders", "mine": true}');
    page.once('dialog', (dialog) => dialog.accept());
    await t(page, 'operation').selectOption('GetItem');
    assert.match(await t(page, 'request').inputValue(), /"Key": \{/);
    // An untouched template is replaced without asking.
    await t(page, 'operation').selectOption('Query');
    assert.match(await t(page, 'request').inputValue(), /"KeyConditionExpression": "pk = :pk"/);
  });

  await step('with a stream enabled, a write shows the records a consumer would receive', async () => {
    await tab(page, 'Console');
    await t(page, 'operation').selectOption('UpdateTable');
    await t(page, 'request').fill(JSON.stringify({ TableName: 'orders', StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }));
    await t(page, 'run').click();
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('UpdateTable succeeded'));
    // AP8 for another open order (o4 was shipped above).
    await tab(page, 'Console');
    await page.getByRole('button', { name: 'AP8 — Ship an order: it leaves the open-orders index' }).click();
    await t(page, 'request').fill((await t(page, 'request').inputValue()).replace('ORDER#2026-11-05#o4', 'ORDER#2026-11-09#o8'));
    await t(page, 'run').click();
    await t(page, 'stream').waitFor();
    const records = await t(page, 'stream-record').allTextContents();
    assert.equal(records.length, 1, records.join('\n'));
    assert.match(records[0], /^ordersMODIFY.*ORDER#2026-11-09#o8.*000000000000000000001.*OldImage .*"OPEN".*NewImage .*"SHIPPED"/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the stream records widen the page by ${overflow}px`);
  });

  await step('the Patterns view runs a workbook: verdicts, cost chart, a pattern in the console, the note', async () => {
    await tab(page, 'Patterns');
    await t(page, 'workbook-example').selectOption('hot-counter.workbook.json');
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: FAIL');
    assert.match(await t(page, 'verdict-row').first().textContent(), /C1.*fail: hot partition key `PAGE#home` on counters: 5000 WCU\/s .* shard the key 7 ways/);
    await t(page, 'workbook-example').selectOption('orders-service.workbook.json');
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: PASS');
    assert.equal(await t(page, 'verdict-row').count(), 8);
    assert.equal(await t(page, 'cost-chart').locator('.bar').count(), 8);
    const [note] = await Promise.all([page.waitForEvent('download'), t(page, 'download-note').click()]);
    const chunks = [];
    for await (const chunk of await note.createReadStream()) chunks.push(chunk);
    assert.match(Buffer.concat(chunks).toString(), /^# Design check: Orders service\n/);
    // Every problem of a broken design, listed once; nothing runs.
    await t(page, 'workbook').fill(JSON.stringify({ format: 'dynalab-workbook/1', name: 'x', tables: [],
      patterns: [{ id: 'a', description: 'd', type: 'read', peak_rps: -1, consistency: 'eventual', requests: [{ operation: 'Select', request: {} }] }] }));
    await t(page, 'run-all').click();
    await t(page, 'workbook-error').waitFor(); // checked in the engine's worker
    assert.equal(await t(page, 'workbook-error').locator('li').count(), 3);
    assert.match(await t(page, 'workbook-error').textContent(),
      /^Invalid design \(3 problems\): nothing was run\.tables: at least one tablepatterns\[0\]\.peak_rps: must be a number ≥ 0patterns\[0\]\.requests\[0\] \(a\): `Select` is not a DynamoDB operation/);
    // Other design formats are converted when run, with what was left out said.
    await t(page, 'workbook').fill(readFileSync(new URL('../imports/dynamodb_data_model.json', import.meta.url), 'utf8'));
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: PASS');
    assert.match(await t(page, 'import-notes').textContent(), /Read as a DynamoDB MCP server data model.*pattern 4 \(Search products by text\) not imported/);
    assert.match(await t(page, 'workbook').inputValue(), /"format": "dynalab-workbook\/1"/);
    await t(page, 'workbook').fill(readFileSync(new URL('../imports/design-cost-model.json', import.meta.url), 'utf8'));
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: FAIL');
    assert.match(await t(page, 'import-notes').textContent(), /Order: 40,000,000 items of 1536 B in production → 4,700 in the fixture/);
    assert.equal(await t(page, 'verdict-row').count(), 6);
    // A design without access patterns (a NoSQL Workbench model with a provisioned table) proves
    // nothing: its proposals are shown as such, never as a verdict, with its declared capacity.
    await t(page, 'workbook').fill(readFileSync(new URL('../designs/workbench-tickets-provisioned.json', import.meta.url), 'utf8'));
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: NOTHING PROVEN');
    assert.match(await t(page, 'cost-headline').textContent(), /^nothing proven: .*declared capacity \$2\.85 a month$/);
    assert.ok(await t(page, 'verdict-row').count() >= 1);
    for (const row of await t(page, 'verdict-row').all()) assert.match(await row.textContent(), /proposed, not counted: /);
    // The modelling method's Markdown: the shipped example passes; the method's text pasted as it
    // is written runs too, stays Markdown in the editor, and says what it lacks.
    await t(page, 'workbook-example').selectOption('orders-service.design.md');
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: PASS');
    assert.equal(await t(page, 'verdict-row').count(), 5);
    await t(page, 'workbook').fill(readFileSync(new URL('../../crates/lab/src/design/testdata/method-example-as-written.md', import.meta.url), 'utf8'));
    await t(page, 'run-all').click();
    await page.waitForFunction(() => document.querySelector('[data-test="design-verdict"]')?.textContent === 'Design verdict: FAIL');
    assert.match(await t(page, 'import-notes').textContent(), /Read as a design document \(the modelling method's Markdown\)\..*taken from the layout's notes on User/);
    assert.match(await t(page, 'verdict-row').nth(4).textContent(), /fail: no call: it has no row in a design note/);
    assert.match(await t(page, 'workbook').inputValue(), /^# The method's example/);
    await t(page, 'workbook-example').selectOption('hot-counter.workbook.json');
    await t(page, 'run-all').click();
    // The same design, write-sharded, side by side.
    await t(page, 'compare-workbook').fill(readFileSync(new URL('../../examples/hot-counter-sharded.workbook.json', import.meta.url), 'utf8'));
    await t(page, 'compare').click();
    await t(page, 'compare-row').nth(1).waitFor();
    assert.equal(await t(page, 'compare-row').count(), 2);
    assert.match(await t(page, 'compare-row').first().textContent(), /^C1UpdateItem · 1 WCU · on demand: \$8212\.50 a month at peak · failUpdateItem · 1 WCU · on demand: \$8212\.50 a month at peak · pass$/);
    // Each total says its design's verdict: the failing one is not just "cheaper".
    assert.match(await t(page, 'compare-totals').textContent(), /^A, fail — on demand: \$8220\.71 a month at peak\. B, pass — on demand: \$8294\.63 a month at peak\.$/);
    // "At peak" says what it counts: units per second, at the pattern's request rate.
    assert.match(await t(page, 'verdict-row').first().textContent(), /5000 WCU\/s at 5000 requests\/s/);
    await page.getByRole('button', { name: 'C2 in the console' }).click();
    assert.match(await t(page, 'request').inputValue(), /"TableName": "counters"/);
  });

  await step('a fixture file goes in whole, and a bad one changes nothing', async () => {
    await tab(page, 'Items');
    await t(page, 'items-table').selectOption('people');
    await tab(page, 'Examples & fixtures');
    await t(page, 'fixture-file').setInputFiles({ name: 'people.json', mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify([{ pk: 'f1', tags: ['x'] }, { pk: { S: 'f2' }, n: { N: '5' } }])) });
    await notice(page).getByText(/Loaded a JSON array of items \(2 puts, 0 deletes\)/).waitFor();
    await t(page, 'fixture-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify([{ pk: 'f3' }, { pk: 'p1', n: 'overwritten' }, { nokey: 1 }])) });
    await notice(page).getByText(/The fixture was refused at write 3 of 3: ValidationException: .*Missing the key pk.* The 2 earlier write\(s\) were undone/).waitFor();
    await tab(page, 'Items');
    assert.match(await t(page, 'items-summary').textContent(), /^4 items/);
    await t(page, 'item-row').nth(3).waitFor(); // rows come from the engine's worker
    assert.doesNotMatch(await page.locator('main').textContent(), /overwritten|f3/);
    // Keys lead the grid, and each edit link names its item by its key.
    assert.deepEqual((await t(page, 'item-list').locator('th').allTextContents()).slice(0, 3), ['Edit', 'size', 'pk']);
    assert.ok((await t(page, 'edit-item').allTextContents()).includes('edit pk = f1'));
  });

  await step('TTL: an item expiring in 30 minutes is still there until the lab clock moves 1 h on', async () => {
    await tab(page, 'Console');
    await t(page, 'operation').selectOption('UpdateTimeToLive');
    await t(page, 'request').fill(JSON.stringify({ TableName: 'people', TimeToLiveSpecification: { AttributeName: 'exp', Enabled: true } }));
    await t(page, 'run').click();
    await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('UpdateTimeToLive succeeded'));
    await tab(page, 'Items');
    await t(page, 'items-table').selectOption('people');
    const soon = Math.floor(Date.now() / 1000) + 1800;
    await t(page, 'item-editor').fill(`{"pk": "expiring", "exp": ${soon}}`);
    await t(page, 'save-item').click();
    await page.waitForFunction(() => /^5 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''));
    await t(page, 'advance-hour').click();
    await notice(page).getByText('Lab time is 1 h ahead of real time; the TTL sweep removed 1 expired item(s).').waitFor();
    assert.match(await t(page, 'items-summary').textContent(), /^4 items/);
    assert.equal(await t(page, 'lab-time').textContent(), 'Lab time: now + 1 h');
  });

  await step('a reload finds everything still there', async () => {
    await page.waitForTimeout(600); // the auto-save runs 400 ms after the last change
    await page.reload();
    await tab(page, 'Items');
    await t(page, 'items-table').selectOption('orders');
    const [, count] = /^(\d+) items/.exec(await t(page, 'items-summary').textContent());
    assert.ok(Number(count) > 63, `${count} items: the example's fixture and the writes since`);
    await t(page, 'item-row').first().waitFor();
    await tab(page, 'Console');
    await page.getByText('History').click();
    assert.ok((await t(page, 'history').locator('li').count()) >= 6);
  });

  let exported;
  await step('export writes the workspace to a file', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), t(page, 'export').click()]);
    const stream = await download.createReadStream();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    exported = Buffer.concat(chunks).toString();
    const workspace = JSON.parse(exported);
    assert.equal(workspace.format, 'dynalab-workspace/1');
    assert.deepEqual(workspace.tables.map((t) => t.create.TableName), ['orders', 'people']);
  });

  await step('a corrupt or wrong import is refused and the workspace stays intact', async () => {
    for (const [name, body, reason] of [
      ['corrupt.json', '{"format": "dynalab-workspace/1", "tables": [', /Not a workspace file/],
      ['other.json', '{"hello": 1}', /Not a Dynalab workspace/],
      ['bad-table.json', JSON.stringify({ format: 'dynalab-workspace/1', tables: [{ create: { TableName: 'x' }, items: [] }] }), /Table `x`: /],
    ]) {
      await t(page, 'import').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(body) });
      await notice(page).getByText(reason).waitFor();
      assert.match(await notice(page).textContent(), /Import refused: .* Your workspace is unchanged\./);
    }
    await tab(page, 'Tables');
    assert.equal(await t(page, 'table-card').count(), 2);
    // A large file opens with progress, in the worker, and can be cancelled: nothing changes.
    const many = { format: 'dynalab-workspace/1', history: [], tables: [{
      create: { TableName: 'many', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] },
      items: Array.from({ length: 400000 }, (_, i) => ({ pk: { S: `k${i}` }, n: { N: String(i) } })) }] };
    await t(page, 'import').setInputFiles({ name: 'many.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(many)) });
    await t(page, 'cancel-open').click({ timeout: 60000 });
    await notice(page).getByText('Import cancelled. Your workspace is unchanged.').waitFor({ timeout: 60000 });
    assert.equal(await t(page, 'table-card').count(), 2);
    await t(page, 'import').setInputFiles({ name: 'good.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
    await notice(page).getByText('Workspace imported.').waitFor();
  });

  let shareUrl;
  await step('a share link opens the workspace in a fresh browser', async () => {
    await t(page, 'share').click();
    shareUrl = await t(page, 'share-url').inputValue();
    assert.ok(shareUrl.startsWith(url + '#w='), shareUrl.slice(0, 80));
    const fresh = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await watchedPage(fresh, errors);
    await phone.goto(shareUrl);
    await notice(phone).getByText('Opened the shared workspace').waitFor();
    await tab(phone, 'Tables');
    assert.equal(await t(phone, 'table-card').count(), 2);
    // Readable on a phone: nothing wider than the screen but the grids, which scroll in place.
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
    await tab(phone, 'Console');
    assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    await fresh.close();
    // Opened in a tab already showing the playground: the fragment changes, the page does not reload.
    await t(page, 'share-copy').click();
    await notice(page).getByText('Share link copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shareUrl);
    await page.goto(shareUrl);
    await notice(page).getByText('Opened the shared workspace').waitFor();
    assert.match(await notice(page).textContent(), /the Restore previous button brings it back/);
    const damaged = await browser.newContext();
    const other = await watchedPage(damaged, errors);
    await other.goto(url + '#w=AAAA' + shareUrl.slice(-50));
    await notice(other).getByText(/The share link could not be opened: .* Your workspace is unchanged\./).waitFor();
    await damaged.close();
  });

  await step('from 360 px up, no tab is wider than the screen, results included, and the result comes into view', async () => {
    for (const width of [360, 390, 768]) {
      const narrow = await browser.newContext({ viewport: { width, height: 740 } });
      const p = await watchedPage(narrow, errors);
      await p.goto(shareUrl);
      await notice(p).getByText('Opened the shared workspace').waitFor();
      await runPattern(p, "AP2 — A user's orders, newest first, 20 per page");
      await t(p, 'capacity').waitFor();
      // Below the editor on a narrow screen, the result is scrolled to the top of the view (or as
      // far as the page goes).
      await p.waitForFunction(() => {
        const box = document.getElementById('console-result').getBoundingClientRect();
        const atBottom = Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight - 1;
        const inView = box.top >= -2 && box.top < window.innerHeight;
        return window.innerWidth < 700 ? inView && (box.top <= 2 || atBottom) : inView;
      }, null, { timeout: 3000 });
      for (const name of ['Console', 'Tables', 'Items', 'Examples & fixtures', 'Design', 'Patterns', 'Learn']) {
        await tab(p, name);
        if (name === 'Patterns') {
          await t(p, 'run-all').click();
          await t(p, 'design-verdict').waitFor();
        }
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${width} px, ${name}: the page is ${overflow}px wider than the screen`);
      }
      await narrow.close();
    }
  });

  await step('accessible: no serious or critical axe-core violation on any tab, before and after results', async () => {
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(fresh, errors);
    await p.goto(url);
    await p.addScriptTag({ path: path.join(root, 'tests/node_modules/axe-core/axe.min.js') });
    const tabs = ['Console', 'Tables', 'Items', 'Examples & fixtures', 'Design', 'Patterns', 'Learn'];
    const audit = async (when) => {
      for (const name of tabs) {
        await tab(p, name);
        if (when === 'after' && name === 'Patterns') {
          await t(p, 'run-all').click();
          await t(p, 'design-verdict').waitFor();
        }
        const violations = () => p.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
        assert.deepEqual(await violations(), [], `${when} results, ${name}`);
        if (name === 'Learn') {
          for (const pack of ['intro', 'cart']) {
            await t(p, `pack-${pack}`).click();
            assert.deepEqual(await violations(), [], `${when} results, Learn, ${pack}`);
          }
        }
      }
    };
    await audit('before');
    await tab(p, 'Examples & fixtures');
    await t(p, 'load-example-orders').click();
    await runPattern(p, "AP2 — A user's orders, newest first, 20 per page");
    await t(p, 'capacity').waitFor();
    await runPattern(p, 'AP7 — Sign up with an email already taken is refused');
    await t(p, 'reasons').waitFor();
    await audit('after');
    await fresh.close();
  });

  await step('the generator says how many items it makes; good news clears itself; a long share link warns', async () => {
    const big = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(big, errors);
    await p.goto(url);
    await tab(p, 'Examples & fixtures');
    await t(p, 'gen-users').fill('2000');
    await t(p, 'gen-orders').fill('10');
    assert.equal(await t(p, 'gen-preview').textContent(), 'This makes 42,000 items.');
    await t(p, 'gen-users').fill('200000');
    assert.match(await t(p, 'gen-preview').textContent(), /^This makes 4,200,000 items\. — more than the 2,000,000 a browser tab takes$/);
    // A long load is cancelled: what it wrote is undone, nothing half-loaded remains.
    await t(p, 'gen-users').fill('40000');
    await t(p, 'generate').click();
    // Nothing else writes while a load runs (so cancelling it can put the workspace back exactly).
    await tab(p, 'Console');
    await t(p, 'operation').selectOption('PutItem');
    await t(p, 'request').fill(JSON.stringify({ TableName: 'orders', Item: { pk: { S: 'mine' }, sk: { S: 'x' } } }));
    await t(p, 'run').click();
    await p.waitForFunction(() => document.querySelector('[data-test="error-name"]')?.textContent === 'PlaygroundBusy');
    await tab(p, 'Examples & fixtures');
    await t(p, 'cancel-load').click();
    await notice(p).getByText(/^Cancelled after \d+ of 840000 writes\. The \d+ write\(s\) made were undone: nothing changed\.$/).waitFor({ timeout: 30000 });
    await tab(p, 'Items');
    await p.waitForFunction(() => /^0 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''));
    await tab(p, 'Examples & fixtures');
    await t(p, 'gen-users').fill('2000');
    await t(p, 'generate').click();
    await notice(p).getByText(/42,000|42000/).waitFor({ timeout: 60000 });
    await notice(p).waitFor({ state: 'detached', timeout: 9000 });
    await p.waitForTimeout(600);
    await t(p, 'share').click();
    await t(p, 'share-warning').waitFor();
    assert.match(await t(p, 'share-warning').textContent(), /^This link is \d+ KB: .*Export a file/);
    await big.close();
  });

  await step('a workspace larger than localStorage holds is kept in IndexedDB, in parts, across a reload', async () => {
    const big = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(big, errors);
    await p.goto(url);
    await tab(p, 'Examples & fixtures');
    await t(p, 'gen-users').fill('15000');
    await t(p, 'gen-orders').fill('10');
    assert.equal(await t(p, 'gen-preview').textContent(), 'This makes 315,000 items.');
    await t(p, 'generate').click();
    await notice(p).getByText(/315000 writes/).waitFor({ timeout: 120000 });
    // Saved in parts: a list, then each slice of items under its own key.
    const saved = () => p.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('dynalab', 1);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const store = open.result.transaction('workspace').objectStore('workspace');
        const list = store.get('dynalab.workspace.parts');
        list.onerror = () => reject(list.error);
        list.onsuccess = () => {
          const parts = list.result ? JSON.parse(list.result).parts : [];
          let size = 0;
          let items = 0;
          let left = parts.length;
          if (!left) { resolve({ parts: 0, size, items }); open.result.close(); return; }
          for (const part of parts) {
            const get = store.get(part.key);
            get.onerror = () => reject(get.error);
            get.onsuccess = () => {
              size += get.result?.length ?? 0;
              items += get.result ? JSON.parse(get.result).length : 0;
              left -= 1;
              if (!left) { resolve({ parts: parts.length, size, items }); open.result.close(); }
            };
          }
        };
      };
    }));
    let save = { parts: 0, size: 0, items: 0 };
    for (let i = 0; i < 60 && save.items < 315000; i += 1) {
      await p.waitForTimeout(500);
      save = await saved();
    }
    assert.equal(save.items, 315000, `saved ${JSON.stringify(save)}`);
    assert.ok(save.parts > 50 && save.size > 5 * 1024 * 1024, `saved ${JSON.stringify(save)}`);
    assert.equal(await p.evaluate(() => localStorage.getItem('dynalab.workspace')), null, 'one copy, in IndexedDB');
    await p.reload();
    await tab(p, 'Items');
    await p.waitForFunction(() => /^315000 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''), null, { timeout: 60000 });
    // A 1 MB Scan page: thousands of items, only the rows in view drawn; scrolling reaches the last.
    await tab(p, 'Console');
    await t(p, 'operation').selectOption('Scan');
    await t(p, 'request').fill(JSON.stringify({ TableName: 'orders' }));
    await t(p, 'run').click();
    await t(p, 'grid').waitFor();
    const total = Number(await t(p, 'grid').getAttribute('data-rows'));
    assert.ok(total > 2000, `${total} items in the page`);
    assert.ok(await t(p, 'grid').locator('tbody tr:not(.spacer)').count() <= 60, 'only the rows in view are drawn');
    await t(p, 'grid-box').evaluate((box) => { box.scrollTop = box.scrollHeight; });
    await p.waitForFunction(() => !document.querySelector('[data-test="grid"] tbody tr:last-child')?.classList.contains('spacer'));
    // The Items tab lists all 315,000, drawing only the rows in view, fetched from the engine's
    // worker as they scroll in: the last item is reachable.
    await tab(p, 'Items');
    await t(p, 'item-row').first().waitFor();
    assert.equal(await t(p, 'item-list').locator('table').getAttribute('data-rows'), '315000');
    assert.ok(await t(p, 'item-list').locator('tbody tr:not(.spacer)').count() <= 60, 'only the rows in view are drawn');
    await t(p, 'item-list').evaluate((box) => { box.scrollTop = box.scrollHeight; });
    await p.waitForFunction(() => {
      const last = document.querySelector('[data-test="item-list"] tbody tr:last-child');
      return last?.dataset.test === 'item-row';
    });
    // One more item: the next save writes the part it falls in, not the 315,000 items again.
    await p.evaluate(() => window.wasmBindings.last_save_parts()); // counts from here
    await tab(p, 'Console');
    await t(p, 'operation').selectOption('PutItem');
    await t(p, 'request').fill(JSON.stringify({ TableName: 'orders', Item: { pk: { S: 'USER#u42' }, sk: { S: 'NOTE#1' } } }));
    await t(p, 'run').click();
    await p.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('PutItem succeeded'));
    for (let i = 0; i < 60 && (await saved()).items !== 315001; i += 1) await p.waitForTimeout(500);
    const [written, skipped] = (await p.evaluate(() => window.wasmBindings.last_save_parts())).split(' ').map(Number);
    assert.ok(written >= 1 && written <= 3 && skipped > 100, `the save wrote ${written} part(s) and kept ${skipped}`);
    await p.reload();
    await tab(p, 'Items');
    await p.waitForFunction(() => /^315001 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''), null, { timeout: 60000 });
    // A save missing one of its parts is refused whole and kept aside, never restored in part.
    await p.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('dynalab', 1);
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const store = open.result.transaction('workspace', 'readwrite').objectStore('workspace');
        const list = store.get('dynalab.workspace.parts');
        list.onsuccess = () => {
          const removed = store.delete(JSON.parse(list.result).parts[7].key);
          removed.onsuccess = () => { open.result.close(); resolve(); };
          removed.onerror = () => reject(removed.error);
        };
      };
    }));
    await p.reload();
    await notice(p).getByText(/^The saved workspace could not be restored \(part `.*` is missing\); its list of parts is kept under `dynalab\.workspace\.damaged`/).waitFor({ timeout: 60000 });
    await tab(p, 'Items');
    await p.waitForFunction(() => !/^315001 items/.test(document.querySelector('[data-test="items-summary"]')?.textContent ?? '-'));
    await big.close();
  });

  await step('a first visit opens on a start panel; a learner fails a workshop step, then passes it, keeps the progress across a reload, completes the workshop and shares the progress in a link', async () => {
    const learner = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(learner, errors);
    await p.goto(url);
    await t(p, 'start-panel').waitFor();
    assert.equal(await t(p, 'operation').inputValue(), 'CreateTable', 'an empty workspace offers CreateTable, not a Query on a table that is not there');
    await t(p, 'start-example').click();
    await notice(p).getByText('Loaded the Orders service example').waitFor();
    await tab(p, 'Learn');
    await t(p, 'pack-intro').click();
    await t(p, 'step').getByRole('heading', { name: 'One item by its key' }).waitFor();
    // A right answer before the step's tables are loaded says what to press, not only that a table is missing.
    await t(p, 'show-solution').click();
    await t(p, 'run-and-check').click();
    await notice(p).getByText(/ResourceNotFoundException: .*press “Load this step's tables”, then run again/).waitFor();
    await t(p, 'start-step').click();
    await p.getByRole('button', { name: 'Restore previous' }).click();
    await notice(p).getByText('The previous workspace is back.').waitFor();
    await tab(p, 'Items');
    assert.deepEqual(await t(p, 'items-table').locator('option').allTextContents(), ['orders'], 'the example is back, the step\'s table gone');
    await tab(p, 'Learn');
    await t(p, 'start-step').click();
    // The worker loads the step's tables after the click returns: wait for its word, not a moment.
    await notice(p).getByText(/^The step's tables are loaded/).waitFor();
    await tab(p, 'Items');
    assert.deepEqual(await t(p, 'items-table').locator('option').allTextContents(), ['shop'], 'the step\'s tables');
    await tab(p, 'Learn');
    await t(p, 'step-operation').selectOption('Scan');
    await t(p, 'step-request').fill('{"TableName": "shop"}');
    await t(p, 'run-and-check').click();
    await p.locator('[data-test="check-call"][data-passed="false"]').getByText('the request was a Scan').waitFor();
    await t(p, 'checks').getByText('never a Scan').waitFor();
    await t(p, 'show-solution').click();
    await t(p, 'run-and-check').click();
    await t(p, 'checks').getByText('Every check passes: step done.').waitFor();
    await t(p, 'steps').getByText('1. One item by its key ✓').waitFor();
    assert.match(await t(p, 'units-picture').locator('svg').getAttribute('aria-label'), /against the step's budget/);
    await p.waitForTimeout(600); // the auto-save runs 400 ms after the last change
    await p.reload();
    await tab(p, 'Learn');
    await t(p, 'pack-intro').click();
    await t(p, 'steps').getByText('1. One item by its key ✓').waitFor();
    // The rest of the workshop, each step from where the last one left the tables.
    for (const [n, title] of [[2, 'A collection in sort-key order'], [3, 'A sparse index for one question'], [4, 'Run the pattern, read its cost']]) {
      await t(p, 'step').getByRole('heading', { name: title }).waitFor();
      await t(p, 'show-solution').click();
      await t(p, 'run-and-check').click();
      await t(p, 'checks').getByText('Every check passes: step done.').waitFor();
      await t(p, 'steps').getByText(`${n}. ${title} ✓`).waitFor();
      if (n < 4) await t(p, 'next-step').click();
    }
    await t(p, 'workshop-complete').getByText('Workshop complete: every step done.').waitFor();
    assert.equal(await t(p, 'next-step').count(), 0, 'no next step after the last');
    await p.getByRole('button', { name: 'Keys, item collections and sparse indexes' }).locator('..').getByText('4 of 4 steps').waitFor();
    await t(p, 'share').click();
    const link = await t(p, 'share-url').inputValue();
    const friend = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const f = await watchedPage(friend, errors);
    await f.goto(link);
    await tab(f, 'Learn');
    await f.getByText('4 of 4 steps').waitFor();
    await friend.close();
    await learner.close();
  });

  await step('the Learn list is a list (no tab-bar style reaches it) at 1280 and 390 px, and the tab bar follows the tabs pattern', async () => {
    for (const width of [1280, 390]) {
      const learner = await browser.newContext({ viewport: { width, height: 800 } });
      const p = await watchedPage(learner, errors);
      await p.goto(url);
      await tab(p, 'Learn');
      const list = p.locator('.pack-list');
      await list.waitFor();
      const shape = await list.evaluate((e) => ({ display: getComputedStyle(e).display, scroll: e.scrollWidth, client: e.clientWidth }));
      assert.notEqual(shape.display, 'flex', `the pack list is laid out as a row at ${width} px`);
      assert.ok(shape.scroll <= shape.client + 1, `the pack list scrolls sideways at ${width} px: ${shape.scroll} > ${shape.client}`);
      for (const id of ['pack-cart', 'pack-leaderboard']) {
        await t(p, id).scrollIntoViewIfNeeded();
        const box = await t(p, id).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${id} is out of view at ${width} px: ${JSON.stringify(box)}`);
      }
      const formats = await p.locator('.pack-list p').boundingBox();
      assert.ok(formats.height < 80 && formats.width > 120, `"Formats" is squeezed at ${width} px: ${JSON.stringify(formats)}`);
      await learner.close();
    }
    const learner = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(learner, errors);
    await p.goto(url);
    await p.getByRole('tab', { name: 'Console' }).focus();
    const focused = () => p.evaluate(() => document.activeElement?.id);
    const selected = async () => p.locator('[role="tab"][aria-selected="true"]').textContent();
    await p.keyboard.press('ArrowRight');
    assert.deepEqual([await focused(), await selected()], ['tab-tables', 'Tables']);
    await p.keyboard.press('End');
    assert.deepEqual([await focused(), await selected()], ['tab-learn', 'Learn']);
    await p.keyboard.press('ArrowRight');
    assert.deepEqual([await focused(), await selected()], ['tab-console', 'Console']);
    await p.keyboard.press('ArrowLeft');
    assert.deepEqual([await focused(), await selected()], ['tab-learn', 'Learn']);
    await p.keyboard.press('Home');
    assert.deepEqual([await focused(), await selected()], ['tab-console', 'Console']);
    assert.equal(await p.locator('[role="tab"][tabindex="0"]').count(), 1, 'one tab in the Tab order');
    assert.equal(await p.locator('[role="tabpanel"]').getAttribute('aria-labelledby'), 'tab-console');
    await learner.close();
  });

  await step('a challenge: a naive solution fails with the reason, the reference passes with the same grade as the command line', async () => {
    const learner = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const p = await watchedPage(learner, errors);
    await p.goto(url);
    await tab(p, 'Learn');
    await t(p, 'pack-leaderboard').click();
    await t(p, 'naive').click();
    await t(p, 'grade').click();
    await t(p, 'score').getByText('Not yet — 50/100').waitFor();
    await p.locator('[data-test="grade-AP1"][data-verdict="fail"]').getByText('expected [Score:g5, Score:g2, Score:g4] in that order').waitFor();
    const pack = JSON.parse(readFileSync(path.join(root, 'packs/leaderboard.json'), 'utf8'));
    await t(p, 'solution').fill(JSON.stringify(pack.challenge.reference, null, 2));
    await t(p, 'grade').click();
    await t(p, 'score').getByText('Passed — 100/100').waitFor();
    assert.equal(await p.locator('[data-test="pictures"] figure > svg').count(), 2, 'the busiest keys and the cost per pattern, drawn');
    assert.match(await p.locator('[data-test="pictures"] figure > svg').first().getAttribute('aria-label'), /Busiest partition keys/);
    const wide = await p.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 390, `the grade fits a phone: ${wide} px`);
    await learner.close();
  });

  await step('a pack opens from a URL relative to a site under a sub-path', async () => {
    const learner = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(learner, errors);
    await p.goto(`${url}?pack=packs/writes.json`);
    await t(p, 'step').getByRole('heading', { name: 'Create only if absent' }).waitFor();
    const docs = await p.request.get(`${url}docs/pack.md`);
    assert.equal(docs.status(), 200, 'the formats the playground links to are on the site');
    await learner.close();
  });

  await step('embedded in a page of another origin: one workshop step and one pattern, with a link to the full playground, saving nothing', async () => {
    const host = (await import('node:http')).createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><meta charset="utf-8"><title>A blog post</title><link rel="icon" href="data:,">
        <h1>Reading a collection</h1>
        <iframe id="step" title="Try it" width="800" height="700" src="${url}?embed=1&pack=packs/intro.json&step=orders"></iframe>
        <iframe id="pattern" title="A pattern" width="800" height="500" src="${url}?embed=1&workbook=examples/orders-service.workbook.json&pattern=AP2"></iframe>
        <iframe id="nothing" title="Nothing named" width="800" height="200" src="${url}?embed=1"></iframe>`);
    });
    await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
    const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await watchedPage(visitor, errors);
    try {
      await p.goto(`http://127.0.0.1:${host.address().port}/`);
      const frame = p.frameLocator('#step');
      await frame.getByRole('heading', { name: 'A collection in sort-key order' }).waitFor();
      assert.equal(await frame.locator('[data-test="steps"]').count(), 0, 'one step, without the list of steps');
      assert.equal(await frame.getByRole('tab').count(), 0, 'no tabs: compact');
      await frame.locator('[data-test="start-step"]').click();
      await frame.locator('[data-test="show-solution"]').click();
      await frame.locator('[data-test="run-and-check"]').click();
      await frame.getByText('Every check passes: step done.').waitFor();
      const full = await frame.locator('[data-test="open-full"]').getAttribute('href');
      assert.ok(full.startsWith(url) && !full.includes('embed=') && full.includes('pack=packs/intro.json'), full);
      const pattern = p.frameLocator('#pattern');
      await pattern.getByRole('heading', { name: /^AP2 — / }).waitFor();
      await pattern.locator('[data-test="run-pattern"]').click();
      await pattern.locator('[data-test="pattern-verdict"]').getByText(/^pass: Query — 0\.5 RCU/).waitFor();
      // `?embed=1` alone names nothing: it says what it needs instead of loading forever.
      await p.frameLocator('#nothing').locator('[data-test="embed-empty"]').getByText(/needs \?embed=1&pack=URL/).waitFor();
      const own = await visitor.newPage();
      await own.goto(url);
      await own.locator('[data-test="start-panel"]').waitFor();
      await own.close();
    } finally {
      await visitor.close();
      host.close();
    }
  });

  await step('offline once loaded: a reload without network still opens the playground, a workshop and a pack fetched before', async () => {
    const traveller = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await watchedPage(traveller, errors);
    await p.goto(`${url}?pack=packs/scale.json`);
    await t(p, 'step').getByRole('heading', { name: 'Pages and Limit' }).waitFor();
    await p.evaluate(async () => { await navigator.serviceWorker.ready; });
    await p.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 10000 });
    await p.evaluate(async () => {
      for (let i = 0; i < 100 && !(await caches.match('packs/scale.json')); i++) await new Promise((r) => setTimeout(r, 50));
    });
    await traveller.setOffline(true);
    await p.reload();
    await t(p, 'step').getByRole('heading', { name: 'Pages and Limit' }).waitFor();
    await t(p, 'start-step').click();
    await t(p, 'show-solution').click();
    await t(p, 'run-and-check').click();
    await t(p, 'checks').getByText('Every check passes: step done.').waitFor();
    await traveller.setOffline(false);
    await traveller.close();
  });

  await context.close();
  if (screenshot) {
    const clean = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const shot = await watchedPage(clean, errors);
    await shot.goto(url);
    await t(shot, 'start-panel').waitFor();
    await shot.screenshot({ path: screenshot });
    await clean.close();
  }
  assert.deepEqual(errors, [], 'console errors');
  console.log(`${run.passed} passed, 0 failed`);
} finally {
  await browser.close();
  server.close();
}
