// What the browser suites share: serve dist/ on a free 127.0.0.1 port (a tiny static server, so
// nothing but the built files is involved) and launch Debian's Chromium through playwright-core
// with the flags this machine needs (toolchain.md). Every console error is collected.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.png': 'image/png' };

/** Serves `dist` under `/some/sub/path/` too, to prove every URL in the build is relative. */
export async function serve(dist, prefix = '/') {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (!url.pathname.startsWith(prefix)) { res.writeHead(404); res.end(); return; }
    let file = path.join(dist, decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html');
    if (!file.startsWith(path.resolve(dist))) { res.writeHead(403); res.end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(data);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}${prefix}` };
}

export async function launch() {
  // playwright gives each launch a fresh temporary profile (it refuses --user-data-dir here).
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  return browser;
}

/** The step running now, so an error says where it happened. */
let current = 'before the first step';

/** A page that records console errors and uncaught exceptions into `errors`, each with its step. */
export async function watchedPage(context, errors) {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`[${current}] console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`[${current}] page error: ${e.message}`));
  return page;
}

/** Named steps of a scenario: each says `ok` or `FAILED` with its error (which stops the run). */
export function steps() {
  const run = { passed: 0 };
  run.step = async (name, body) => {
    current = name;
    try {
      await body();
      run.passed += 1;
      console.log(`ok - ${name}`);
    } catch (e) {
      console.log(`FAILED - ${name}\n${e.stack ?? e}`);
      throw e;
    }
  };
  return run;
}

/** The Design tab's export, downloaded: each file's name (inside the zip's folder), size and text.
 * The zip stores its files uncompressed (crates/lab/src/export/zip.rs). */
export async function downloadedExport(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-test="export-infrastructure"]').click()]);
  if (!/-export\.zip$/.test(download.suggestedFilename())) throw new Error(`downloaded ${download.suggestedFilename()}`);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  const zip = Buffer.concat(chunks);
  // The central directory, as an unzip tool reads it.
  const end = zip.length - 22;
  if (zip.readUInt32LE(end) !== 0x06054b50) throw new Error('not a zip: no end of central directory');
  let at = zip.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < zip.readUInt16LE(end + 10); i += 1) {
    const length = zip.readUInt16LE(at + 28);
    const size = zip.readUInt32LE(at + 24);
    const local = zip.readUInt32LE(at + 42);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const name = zip.subarray(at + 46, at + 46 + length).toString().split('/').slice(1).join('/');
    entries.push([name, size, zip.subarray(data, data + size).toString()]);
    at += 46 + length;
  }
  return entries;
}
