// The playground under load, in headless Chromium: generate 100,000 items through the UI (4,000
// users × 12 orders, skew 1), then time a 20-item Query and a 1 MB Scan page as the app reports
// them (performance.now around the engine call). While the load runs, a requestAnimationFrame loop
// records the longest gap between frames: the page's responsiveness, during the load and in the
// two seconds after it, when the workspace is auto-saved. The Scan page is also timed on screen:
// from the Run click to the second frame after it (the result drawn). Also the shipped size.
// WebAssembly memory (it only grows, so it is the peak) after the load and after the auto-save:
// the engine's (its Web Worker's, `engine_memory_bytes`) where the build has one, else the page's.
// After a reload: when the page answers a click (interactive), and when the items are back.
// Beside it, alternating with the page's runs: the same items (the first run's exported
// workspace) written by the same engine through the npm package in Node (packages/dynalab,
// built by scripts/npm-package), the engine's own time without a page: the page's load and its
// restore are quoted as ratios of it.
// Usage: node benches/playground.mjs [dist] [repetitions, default 5] [users, default 4000]
// (40000 users make the 1,000,000-item workspace). Loopback only.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { serve, launch, watchedPage } from '../tests/browser/serve-and-launch.mjs';
import { Engine } from '../packages/dynalab/index.node.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const repetitions = Number(process.argv[3] ?? 5);
const users = Number(process.argv[4] ?? 4000);
const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
const { server, url } = await serve(dist);
const browser = await launch();
const errors = [];
const t = (page, id) => page.locator(`[data-test="${id}"]`);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function runRequest(page, operation, request) {
  await page.getByRole('tab', { name: 'Console' }).click();
  await t(page, 'operation').selectOption(operation);
  await t(page, 'request').fill(JSON.stringify(request));
  await t(page, 'run').click();
  const status = page.locator('.status.ok');
  await status.waitFor();
  const text = await status.textContent();
  await page.getByRole('tab', { name: 'Items' }).click(); // clears the result for the next run
  return Number(/in ([\d.]+) ms/.exec(text)[1]);
}

try {
  const loads = [];
  const gaps = [];
  const saveGaps = [];
  const queries = [];
  const warmQueries = [];
  const scans = [];
  const scansOnScreen = [];
  const memoryLoaded = [];
  const memorySaved = [];
  const memoryRestored = [];
  const interactive = [];
  const restoreGaps = [];
  const scanGaps = [];
  const saved = [];
  const restored = [];
  const inNode = [];
  let exported = null;
  let items = 0;
  /** The exported workspace's tables and items written through the npm package's engine in
   * Node, each PutItem's request text made before the clock starts (as the page's generator
   * makes its texts): the engine's own time. */
  const loadInNode = () => {
    const engine = new Engine({ now: 1_700_000_000_000 });
    const started = performance.now();
    for (const table of exported) {
      engine.execute('CreateTable', table.create);
      for (const request of table.requests) engine.execute('PutItem', request);
    }
    const took = performance.now() - started;
    // Its memory back to the WebAssembly instance, so the next load starts as this one did.
    engine.free();
    return took;
  };
  for (let run = 0; run < repetitions; run++) {
    if (exported) inNode.push(loadInNode());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const page = await watchedPage(context, errors);
    await page.goto(url);
    await page.getByRole('tab', { name: 'Examples & fixtures' }).click();
    await t(page, 'gen-users').fill(String(users));
    await t(page, 'gen-orders').fill('12');
    await t(page, 'gen-skew').fill('1');
    await page.evaluate(() => {
      window.longestGap = 0;
      let last = performance.now();
      const tick = (now) => { window.longestGap = Math.max(window.longestGap, now - last); last = now; if (!window.stopTicks) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    await t(page, 'generate').click();
    const notice = page.locator('[data-test="notice"]', { hasText: 'Loaded' });
    await notice.waitFor({ timeout: 600_000 });
    const text = await notice.textContent();
    const loaded = /in (\d+) ms: (\d+) writes/.exec(text);
    loads.push(Number(loaded[1]));
    items = Number(loaded[2]);
    const memory = () => page.evaluate(() => window.wasmBindings.engine_memory_bytes ? window.wasmBindings.engine_memory_bytes() : window.wasmBindings.wasm_memory_bytes());
    memoryLoaded.push(await memory());
    const loadedAt = await page.evaluate(() => performance.now());
    gaps.push(await page.evaluate(() => window.longestGap));
    // The auto-save runs 400 ms after the last change: keep watching frames through it.
    await page.evaluate(() => { window.longestGap = 0; });
    await page.waitForTimeout(2000);
    saveGaps.push(await page.evaluate(() => { window.stopTicks = true; return window.longestGap; }));
    memorySaved.push(await memory());
    // The save is complete when its list of parts names every item; then a reload restores it.
    const savedItems = () => page.evaluate(() => new Promise((resolve) => {
      const open = indexedDB.open('dynalab', 1);
      open.onsuccess = () => {
        const get = open.result.transaction('workspace').objectStore('workspace').get('dynalab.workspace.parts');
        get.onsuccess = () => {
          resolve(get.result ? JSON.parse(get.result).parts.reduce((n, p) => n + p.items, 0) : 0);
          open.result.close();
        };
      };
    }));
    while (await savedItems() < items) await page.waitForTimeout(250);
    saved.push(await page.evaluate(() => performance.now()) - loadedAt);
    if (!exported) {
      // The same items for the Node side: the workspace as the Export button writes it.
      const [download] = await Promise.all([page.waitForEvent('download'), t(page, 'export').click()]);
      const chunks = [];
      for await (const chunk of await download.createReadStream()) chunks.push(chunk);
      exported = JSON.parse(Buffer.concat(chunks).toString()).tables.map((table) => ({
        create: table.create,
        requests: table.items.map((item) => JSON.stringify({ TableName: table.create.TableName, Item: item })),
      }));
      inNode.push(loadInNode());
    }
    const reloadStart = Date.now();
    await page.reload();
    // Interactive: a tab answers a click (the restore may still run).
    await page.getByRole('tab', { name: 'Items' }).click();
    await page.locator('[role="tab"][aria-selected="true"]', { hasText: 'Items' }).waitFor();
    interactive.push(Date.now() - reloadStart);
    await page.evaluate(() => {
      window.longestGap = 0; window.stopTicks = false;
      let last = performance.now();
      const tick = (now) => { window.longestGap = Math.max(window.longestGap, now - last); last = now; if (!window.stopTicks) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    await page.waitForFunction((n) => new RegExp(`^${n} items`).test(document.querySelector('[data-test="items-summary"]')?.textContent ?? ''), items, { timeout: 600_000 });
    restored.push(Date.now() - reloadStart);
    restoreGaps.push(await page.evaluate(() => { window.stopTicks = true; return window.longestGap; }));
    memoryRestored.push(await memory());
    const query = { TableName: 'orders', KeyConditionExpression: 'pk = :u AND begins_with(sk, :o)',
      ExpressionAttributeValues: { ':u': { S: 'USER#u0' }, ':o': { S: 'ORDER#' } }, ScanIndexForward: false, Limit: 20 };
    // The first run after a reload compiles the engine's query path (cold); then warm runs.
    queries.push(await runRequest(page, 'Query', query));
    const again = [];
    for (let i = 0; i < 3; i++) again.push(await runRequest(page, 'Query', query));
    warmQueries.push(median(again));
    scans.push(await runRequest(page, 'Scan', { TableName: 'orders', ReturnConsumedCapacity: 'TOTAL' }));
    await page.getByRole('tab', { name: 'Console' }).click();
    await t(page, 'operation').selectOption('Scan');
    await t(page, 'request').fill(JSON.stringify({ TableName: 'orders', ReturnConsumedCapacity: 'TOTAL' }));
    // From the click until the result is drawn (the frame after it appears); frames watched meanwhile.
    const [onScreen, gap] = await page.evaluate(async () => {
      let longest = 0;
      let last = performance.now();
      const start = last;
      document.querySelector('[data-test="run"]').click();
      for (;;) {
        const now = await new Promise((resolve) => requestAnimationFrame(resolve));
        longest = Math.max(longest, now - last);
        last = now;
        if (document.querySelector('.status.ok')?.textContent.includes('Scan succeeded')) break;
      }
      const drawn = await new Promise((resolve) => requestAnimationFrame(resolve));
      return [drawn - start, Math.max(longest, drawn - last)];
    });
    scansOnScreen.push(onScreen);
    scanGaps.push(gap);
    await context.close();
  }
  const files = fs.readdirSync(dist).filter((f) => /\.(wasm|js)$/.test(f));
  const gzipped = files.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length, 0);
  console.log(`runs: ${repetitions} (medians; all: load ${loads.join('/')} ms, longest frame gap ${gaps.map((g) => g.toFixed(0)).join('/')} ms)`);
  console.log(`load ${items.toLocaleString('en')} generated items: ${median(loads)} ms in the page; the same items through the npm package in Node: ${median(inNode).toFixed(0)} ms (runs: ${inNode.map((n) => n.toFixed(0)).join('/')}); page / Node ${(median(loads) / median(inNode)).toFixed(2)}×`);
  console.log(`WebAssembly memory after the load: ${mib(median(memoryLoaded))} MiB; after the auto-save: ${mib(median(memorySaved))} MiB`);
  console.log(`auto-save complete (every part in IndexedDB) ${median(saved).toFixed(0)} ms after the load; after a reload the page answers a click in ${median(interactive)} ms and every item is back in ${median(restored)} ms (${(median(restored) / median(inNode)).toFixed(2)}× the Node load; longest frame gap meanwhile ${median(restoreGaps).toFixed(0)} ms), using ${mib(median(memoryRestored))} MiB`);
  console.log(`longest gap between frames during the load: ${median(gaps).toFixed(0)} ms`);
  console.log(`longest gap between frames in the 2 s after it (the auto-save): ${median(saveGaps).toFixed(0)} ms (runs: ${saveGaps.map((g) => g.toFixed(0)).join('/')})`);
  console.log(`Query, 20 items of the hottest user: ${median(queries).toFixed(2)} ms the first time after the reload, ${median(warmQueries).toFixed(2)} ms after (the timer's resolution is 0.1 ms)`);
  console.log(`Scan, first 1 MB page: ${median(scans).toFixed(2)} ms in the engine, ${median(scansOnScreen).toFixed(0)} ms until drawn (runs: ${scansOnScreen.map((s) => s.toFixed(0)).join('/')}), longest frame gap meanwhile ${median(scanGaps).toFixed(0)} ms`);
  console.log(`shipped wasm + JS, gzip -9: ${(gzipped / 1024).toFixed(0)} KB`);
  if (errors.length) { console.log(errors.join('\n')); process.exitCode = 1; }
} finally {
  await browser.close();
  server.close();
}
