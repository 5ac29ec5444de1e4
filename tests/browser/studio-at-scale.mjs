// The design studio at scale and on every screen, in headless Chromium against the built dist/:
// - a 1,000,000-item workspace (40,000 users × 12 orders from the generator) opens the Design tab
//   and is proved, the engine's WebAssembly memory under 512 MB, no error in the console;
// - a return to the Design tab answers from the last proof in under a second;
// - a console trial (a design's transaction run on the workspace) leaves the verdicts as they were
//   and says the items changed, with the proved items one click away, or a proof on them as they are;
// - at 1280×800 and 390×844, nothing on the Design, Patterns and Learn tabs reaches past the
//   screen's edge with a transaction of two actions open; a screenshot of each tab is kept in
//   ARTEFACTS (default target/browser-artefacts) to be looked at.
// Usage: node tests/browser/studio-at-scale.mjs [dist] [users, default 40000]
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, watchedPage, steps, downloadedExport } from './serve-and-launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const users = Number(process.argv[3] ?? 40000);
const artefacts = process.env.ARTEFACTS ?? path.join(root, 'target/browser-artefacts');
mkdirSync(artefacts, { recursive: true });
const library = readFileSync(path.join(root, 'tests/designs/note-library-loans.design.md'), 'utf8');
const { server, url } = await serve(dist, '/lab/');
const browser = await launch();
const errors = [];
const run = steps();
const mib = (bytes) => Math.round(bytes / 2 ** 20);

const t = (page, id) => page.locator(`[data-test="${id}"]`);
const tab = (page, name) => page.getByRole('tab', { name, exact: true }).click();
const verdicts = (page) => page.$$eval('[data-test="pattern-verdict"]', (cells) => cells.map((c) => c.textContent));

/** Elements drawn past the right edge of the screen (or the page wider than it), named. */
async function pastTheEdge(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found = [];
    if (document.documentElement.scrollWidth > width + 1) found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    // Inside a box that scrolls sideways (a chart, a wide result grid) is on screen by scrolling.
    const scrolls = (el) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const style = getComputedStyle(p);
        if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && p.scrollWidth > p.clientWidth) return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('main *, nav.tabs *, header *')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (box.right > width + 1 && !scrolls(el)) {
        found.push(`${el.tagName.toLowerCase()}${el.dataset.test ? `[${el.dataset.test}]` : ''} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 40)}" ends at ${Math.round(box.right)} px`);
      }
    }
    return found.slice(0, 10);
  });
}

/** Opens `text` as the workspace's design from the Design tab and waits for its proof. */
async function openDesign(page, text) {
  await tab(page, 'Design');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByText(/^Paste a design \(/).click();
  await t(page, 'design-document').fill(text);
  await t(page, 'open-design-document').click();
  await t(page, 'notice').getByText(/^The design is open/).waitFor({ timeout: 60000 });
  await t(page, 'studio-verdict').waitFor({ timeout: 60000 });
  await page.getByText(/^Paste a design \(/).click();
}

try {
  const big = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await watchedPage(big, errors);
  await page.goto(url);
  await page.getByRole('heading', { name: 'Dynalab' }).waitFor();

  await run.step('an empty workspace\'s Design tab says where to start, not an error', async () => {
    await tab(page, 'Design');
    await t(page, 'studio-empty').waitFor();
    assert.equal(await t(page, 'studio-error').count(), 0);
  });

  await run.step(`${users * 25} items from the generator: the Design tab proves them, its memory under 512 MB`, async () => {
    await tab(page, 'Examples & fixtures');
    await t(page, 'gen-users').fill(String(users));
    await t(page, 'gen-orders').fill('12');
    const started = Date.now();
    await t(page, 'generate').click();
    // The progress bar sits below the cards: the Generate button stays uncovered.
    await page.locator('.progress').waitFor();
    const covered = await page.evaluate(() => {
      const button = document.querySelector('[data-test="generate"]');
      button.scrollIntoView({ block: 'end' });
      const box = button.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return top === button || button.contains(top) ? null : top?.outerHTML.slice(0, 80);
    });
    assert.equal(covered, null, `the Generate button is covered by ${covered}`);
    await t(page, 'notice').getByText(/written|loaded|items/i).first().waitFor({ timeout: 300000 });
    await page.waitForFunction(() => !document.querySelector('[data-test="cancel-load"]'), null, { timeout: 300000 });
    console.log(`  generated in ${Date.now() - started} ms`);
    const proving = Date.now();
    await tab(page, 'Design');
    await t(page, 'studio-verdict').waitFor({ timeout: 120000 });
    console.log(`  the Design tab proved the workspace (no pattern yet: the calls its keys support) in ${Date.now() - proving} ms`);
    // A pattern with its call, chosen with controls, proved on the million items: it finds them.
    await page.getByText(/^Paste rows/).click();
    await t(page, 'paste-inventory').fill('| # | Pattern | Type | Key inputs | Sort/filter | Peak/s | Consistency |\n|---|---|---|---|---|---|---|\n| 1 | A user\'s orders | read | userId | newest first | 100 | eventual |');
    await t(page, 'add-pasted-rows').click();
    const row = t(page, 'inventory-row').first();
    await row.locator('[data-test="call-operation"]').selectOption('Query');
    await row.locator('[data-test="call-partition"]').fill('USER#<userId>');
    await row.locator('[data-test="call-partition"]').dispatchEvent('change');
    await row.locator('[data-test="call-sort-operator"]').selectOption('begins_with');
    await row.locator('[data-test="call-sort"]').fill('ORDER#');
    const edited = Date.now();
    await row.locator('[data-test="call-sort"]').dispatchEvent('change');
    await page.waitForFunction(() => / · [1-9]\d* item\(s\)/.test(document.querySelector('[data-test="pattern-verdict"]')?.textContent ?? ''), null, { timeout: 120000 });
    console.log(`  a pattern's call proved on every item in ${Date.now() - edited} ms: ${(await verdicts(page))[0]}`);
    const memory = await page.evaluate(() => window.wasmBindings.engine_memory_bytes());
    console.log(`  the engine's WebAssembly memory: ${mib(memory)} MB`);
    assert.ok(memory < 512 * 2 ** 20, `${mib(memory)} MB`);
    assert.deepEqual(errors, []);
  });

  await run.step('a return to the Design tab answers from the last proof in under a second', async () => {
    const before = await t(page, 'studio-verdict').textContent();
    await tab(page, 'Items');
    await page.waitForTimeout(300);
    const started = Date.now();
    await tab(page, 'Design');
    await t(page, 'studio-verdict').waitFor({ timeout: 30000 });
    const took = Date.now() - started;
    console.log(`  back on the Design tab with its verdict in ${took} ms`);
    assert.equal(await t(page, 'studio-verdict').textContent(), before);
    assert.ok(took < 1000, `${took} ms`);
  });

  await run.step('the export of the million-item workspace: the infrastructure, and the README says why no access code', async () => {
    const started = Date.now();
    const files = await downloadedExport(page);
    console.log(`  exported in ${Date.now() - started} ms: ${files.map(([name, size]) => `${name} ${size} B`).join(', ')}`);
    assert.deepEqual(files.map(([name]) => name), ['cloudformation.yaml', 'serverless.yml', 'main.tf', 'cdk/design-stack.ts', 'cdk/app.ts', 'cdk/cdk.json', 'cdk/package.json', 'README.md']);
    const readme = files.find(([name]) => name === 'README.md')[2];
    assert.match(readme, /no access code was written: the design holds [\d,]+ items, more than the 50,000/);
    const memory = await page.evaluate(() => window.wasmBindings.engine_memory_bytes());
    assert.ok(memory < 512 * 2 ** 20, `${mib(memory)} MB after the export`);
    assert.deepEqual(errors, []);
  });
  await big.close();

  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const p = await watchedPage(context, errors);
    await p.goto(url);
    await p.getByRole('heading', { name: 'Dynalab' }).waitFor();
    await openDesign(p, library);

    if (width === 1280) {
      await run.step('a console trial leaves the verdicts as proved, says so, and gives the proved items back', async () => {
        const proved = [await t(p, 'studio-verdict').textContent(), await verdicts(p)];
        assert.match(proved[1][0], /^pass GetItem · 1 item\(s\)/, 'the proof reads the workspace\'s items');
        // Units are rounded as people read them; hints come from this design, not the orders example.
        for (const v of proved[1]) assert.doesNotMatch(v, /\d\.\d{3,} (RCU|WCU)/, v);
        const hints = await p.$$eval('[data-test="inventory"] input[placeholder]', (inputs) => inputs.map((i) => i.placeholder));
        assert.ok(hints.some((h) => h.includes('MEMBER#') || h.includes('BOOK#')), hints.join(' | '));
        assert.ok(!hints.some((h) => /ORDER#|USER#<userId>|'OPEN'|SHIPPED|stock/.test(h)), hints.join(' | '));
        // The transaction, as proved, run on the workspace: it writes.
        const transaction = t(p, 'inventory-row').filter({ has: p.locator('[data-test="call-action"]') }).first();
        await transaction.locator('[data-test="pattern-console"]').click();
        await t(p, 'run').click();
        await t(p, 'result').waitFor();
        assert.match(await t(p, 'result').textContent(), /TransactWriteItems succeeded/);
        await tab(p, 'Design');
        await t(p, 'items-changed').waitFor({ timeout: 30000 });
        assert.deepEqual([await t(p, 'studio-verdict').textContent(), await verdicts(p)], proved);
        await t(p, 'restore-proved-items').click();
        await t(p, 'notice').getByText("The workspace's items are back as the proof found them.").waitFor();
        await t(p, 'items-changed').waitFor({ state: 'detached', timeout: 30000 });
        await p.waitForFunction((want) => document.querySelector('[data-test="studio-verdict"]')?.textContent === want, proved[0], { timeout: 30000 });
        assert.deepEqual(await verdicts(p), proved[1]);
        // Tried again, then proved on the items as they now are: the notice goes.
        await t(p, 'inventory-row').filter({ has: p.locator('[data-test="call-action"]') }).first().locator('[data-test="pattern-console"]').click();
        await t(p, 'run').click();
        await t(p, 'result').waitFor();
        assert.match(await t(p, 'result').textContent(), /TransactWriteItems succeeded/);
        await tab(p, 'Design');
        await t(p, 'prove-on-workspace').click();
        await t(p, 'items-changed').waitFor({ state: 'detached', timeout: 30000 });
      });
    }

    await run.step(`at ${width}×${height}, nothing on the Design, Patterns and Learn tabs reaches past the screen's edge`, async () => {
      await tab(p, 'Design');
      // A transaction of two actions, open.
      const transaction = t(p, 'inventory-row').filter({ has: p.locator('[data-test="call-action"]') }).first();
      await transaction.waitFor();
      assert.ok(await transaction.locator('[data-test="call-action"]').count() >= 2);
      await transaction.scrollIntoViewIfNeeded();
      const found = {};
      for (const name of ['Design', 'Patterns', 'Learn']) {
        await tab(p, name);
        await p.waitForTimeout(400);
        if (name === 'Learn') {
          // A workshop's steps are numbered once (by their own text, not also by the list).
          await t(p, 'pack-writes').click();
          await t(p, 'steps').waitFor();
          assert.equal(await t(p, 'steps').evaluate((list) => getComputedStyle(list).listStyleType), 'none');
          assert.match(await t(p, 'steps').locator('li').first().textContent(), /^1\. /);
          await t(p, 'pack-cart').click();
          await p.waitForTimeout(300);
        }
        await p.screenshot({ path: path.join(artefacts, `${name.toLowerCase()}-${width}.png`), fullPage: true });
        found[name] = await pastTheEdge(p);
      }
      assert.deepEqual(found, { Design: [], Patterns: [], Learn: [] });
    });
    await context.close();
  }

  assert.deepEqual(errors, []);
  console.log(`${run.passed} passed, 0 failed; screenshots in ${artefacts}`);
} catch (e) {
  // A failed step printed itself; anything else is said here.
  console.log(`${e.stack ?? e}\n${errors.join('\n')}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
