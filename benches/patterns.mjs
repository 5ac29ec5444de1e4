// The Patterns view checking a design with a large fixture, in headless Chromium: the orders
// workbook (examples/orders-service.workbook.json) with N more line items in its fixture, "Run all
// patterns" clicked, and the longest gap between frames until the verdict is drawn — whether the
// page froze while the design's scratch engines loaded and ran.
// Usage: node benches/patterns.mjs [dist...] [--items N, default 30000]. Loopback only.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from '../tests/browser/serve-and-launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const at = args.indexOf('--items');
const extra = at >= 0 ? Number(args.splice(at, 2)[1]) : 30000;
const dists = (args.length ? args : [path.join(root, 'dist')]).map((d) => path.resolve(d));
const workbook = JSON.parse(fs.readFileSync(path.join(root, 'examples/orders-service.workbook.json'), 'utf8'));
for (let i = 0; i < extra; i++) workbook.fixtures.orders.push({ pk: `ORDER#x${i}`, sk: 'ITEM#pen', qty: i % 7, price: 2 });
const text = JSON.stringify(workbook);
const browser = await launch();
try {
  for (const dist of dists) {
    const { server, url } = await serve(dist);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByRole('tab', { name: 'Patterns' }).click();
    await page.locator('textarea').first().fill(text);
    await page.evaluate(() => {
      window.longest = 0;
      let last = performance.now();
      const tick = (now) => { window.longest = Math.max(window.longest, now - last); last = now; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    });
    const start = Date.now();
    await page.locator('[data-test="run-all"]').click();
    await page.locator('[data-test="design-verdict"]').waitFor({ timeout: 300000 });
    const took = Date.now() - start;
    const gap = await page.evaluate(() => window.longest);
    console.log(`${dist}: ${workbook.fixtures.orders.length} fixture items; verdict drawn ${took} ms after the click; longest gap between frames ${gap.toFixed(0)} ms`);
    await context.close();
    server.close();
  }
} finally {
  await browser.close();
}
