// A newcomer's first hour at 1280 and at 390 px, in headless Chromium against the built dist/: the
// start panel waits for the saved workspace and offers Restore previous only when there is one;
// the start buttons leave the keyboard focus where the work goes on; an error about an earlier
// attempt goes once something works; a mistyped index attribute is said at the index, near the
// button pressed; on a phone the header stays short and each pattern's verdict is on screen (and
// still there after another tab). Then
// every tab is photographed (kept in target/screenshots, or $SCREENSHOTS) and checked: nothing
// wider than the screen, no text clipped by its box, no two labels of a picture overlapping.
// Usage: node tests/browser/first-hour.mjs [dist]
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, watchedPage, steps } from './serve-and-launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const shots = path.resolve(process.env.SCREENSHOTS ?? path.join(root, 'target/screenshots'));
mkdirSync(shots, { recursive: true });
const { server, url } = await serve(dist, '/lab/');
const browser = await launch();
const errors = [];
const run = steps();
const { step } = run;

const t = (page, id) => page.locator(`[data-test="${id}"]`);
const notice = (page) => t(page, 'notice');
const tab = (page, name) => page.getByRole('tab', { name, exact: true }).click();
const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.test ?? document.activeElement?.tagName);
const TABS = ['Console', 'Tables', 'Items', 'Examples & fixtures', 'Design', 'Patterns', 'Learn'];

/** What the eye would call broken on the page as it stands. */
function layoutProblems() {
  const problems = [];
  const overflow = document.documentElement.scrollWidth - window.innerWidth;
  if (overflow > 0) problems.push(`the page is ${overflow}px wider than the screen`);
  // Text cut off by a box that hides what overflows it (a box that scrolls shows it all).
  for (const el of document.querySelectorAll('header *, nav *, main *')) {
    if (el.closest('svg') || ['INPUT', 'TEXTAREA', 'SELECT', 'OPTION'].includes(el.tagName)) continue;
    const style = getComputedStyle(el);
    // Text for screen readers only sits in a 1 px box on purpose.
    if (style.display === 'none' || !el.textContent.trim() || el.clientWidth <= 1) continue;
    const hides = ['hidden', 'clip'].includes(style.overflowX);
    if (hides && el.scrollWidth > el.clientWidth + 1 && style.textOverflow !== 'ellipsis') {
      problems.push(`clipped: <${el.tagName.toLowerCase()} class="${el.className}"> ${el.textContent.trim().slice(0, 50)}`);
    }
  }
  // A picture's labels, as far as each shows inside the regions that clip it, never overlap.
  for (const picture of document.querySelectorAll('[data-test="pictures"] figure > svg, [data-test="pictures"] > svg')) {
    const boxes = [];
    for (const text of picture.querySelectorAll('text')) {
      let { left, top, right, bottom } = text.getBoundingClientRect();
      for (let clip = text.parentElement.closest('svg'); clip && clip !== picture; clip = clip.parentElement.closest('svg')) {
        const c = clip.getBoundingClientRect();
        [left, top, right, bottom] = [Math.max(left, c.left), Math.max(top, c.top), Math.min(right, c.right), Math.min(bottom, c.bottom)];
      }
      if (right - left > 0.5 && bottom - top > 0.5) boxes.push({ left, top, right, bottom, text: text.textContent });
    }
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const [a, b] = [boxes[i], boxes[j]];
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) problems.push(`overlapping labels: "${a.text}" and "${b.text}"`);
      }
    }
  }
  return problems;
}

try {
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await watchedPage(context, errors);
    await page.goto(url);

    await step(`${width} px: a first visit opens on the start panel, nothing to restore; the example leaves the focus on the console`, async () => {
      await t(page, 'start-panel').waitFor();
      assert.equal(await t(page, 'restore-previous').count(), 0, 'no Restore previous on a first visit');
      // Keyboard only: the button pressed goes away with the panel; the focus goes on with the work.
      await t(page, 'start-example').focus();
      await page.keyboard.press('Enter');
      await notice(page).getByText('Loaded the Orders service example').waitFor();
      await page.waitForFunction(() => document.activeElement?.dataset?.test === 'operation', null, { timeout: 5000 });
      assert.equal(await t(page, 'start-panel').count(), 0);
      if (width < 700) {
        const header = await page.locator('header').evaluate((e) => e.getBoundingClientRect().bottom);
        assert.ok(header <= 90, `the header takes ${header}px of a phone's screen`);
      }
    });

    await step(`${width} px: an error about an earlier attempt goes once a request works`, async () => {
      await t(page, 'import').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "dynalab-workspace/1", "tables": [') });
      await notice(page).getByText(/^Import refused/).waitFor();
      await tab(page, 'Console');
      await page.getByRole('button', { name: "AP1 — Get a user's profile" }).click();
      await t(page, 'run').click();
      await page.waitForFunction(() => document.querySelector('[data-test="result"]')?.textContent.includes('GetItem succeeded'));
      assert.equal(await notice(page).count(), 0, 'the refused import is no longer news');
    });

    await step(`${width} px: a mistyped index attribute is said at the index, near the button pressed`, async () => {
      await tab(page, 'Tables');
      await t(page, 'table-name').fill('typo');
      await t(page, 'add-gsi').click();
      await t(page, 'index-name').fill('GSI1');
      await t(page, 'index-hash').fill('g1:Q');
      await t(page, 'create-table').click();
      const error = t(page, 'field-error');
      await error.waitFor();
      assert.match(await error.textContent(), /^The global secondary index `GSI1`: its partition key `g1:Q` has no such type/);
      const [said, pressed] = await Promise.all([error.boundingBox(), t(page, 'create-table').boundingBox()]);
      assert.ok(Math.abs(pressed.y - said.y) < 320, `the error is ${Math.abs(pressed.y - said.y)}px from the button`);
    });

    await step(`${width} px: every pattern's verdict is on screen`, async () => {
      await tab(page, 'Patterns');
      await t(page, 'run-all').click();
      await t(page, 'design-verdict').waitFor();
      const rightmost = await page.evaluate(() => Math.max(...[...document.querySelectorAll('[data-test="verdict-row"] td:last-child')].map((td) => td.getBoundingClientRect().right)));
      assert.ok(rightmost <= width, `a verdict ends at ${rightmost}px on a ${width}px screen`);
      // Another tab and back: the verdicts are still there.
      await tab(page, 'Console');
      await tab(page, 'Patterns');
      assert.equal(await t(page, 'verdict-row').count(), 8, 'the verdicts stay across a tab switch');
    });

    await step(`${width} px: every tab photographed, nothing clipped, overlapping or wider than the screen`, async () => {
      for (const name of TABS) {
        await tab(page, name);
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(shots, `${width}-${name.split(' ')[0].toLowerCase()}.png`), fullPage: true });
        assert.deepEqual(await page.evaluate(layoutProblems), [], `${width} px, ${name}`);
      }
    });
    await context.close();

    await step(`${width} px: "Import a design" and "Start empty" leave the focus where the design goes in`, async () => {
      for (const [button, where] of [['start-import', 'workbook'], ['start-empty', 'table-name']]) {
        const fresh = await browser.newContext({ viewport: { width, height } });
        const p = await watchedPage(fresh, errors);
        await p.goto(url);
        await t(p, 'start-panel').waitFor();
        await t(p, button).focus();
        await p.keyboard.press('Enter');
        await p.waitForFunction((w) => document.activeElement?.dataset?.test === w, where, { timeout: 5000 }).catch(async () => {
          assert.fail(`after ${button} the focus is on ${await focused(p)}`);
        });
        await fresh.close();
      }
    });
  }
  assert.deepEqual(errors, [], 'console errors');
  console.log(`${run.passed} passed, 0 failed; screenshots in ${path.relative(root, shots)}`);
} finally {
  await browser.close();
  server.close();
}
