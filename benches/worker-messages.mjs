// Worker messages as JSON text (today) vs as JavaScript values (serde-wasm-bindgen), side by side
// in the built playground in headless Chromium: each round trip is encode + the structured clone
// postMessage makes + decode (web/src/codec_bench.rs). Five rounds; medians in µs per message, and
// the ratio values/text (above 1: values are slower).
// Usage: node benches/worker-messages.mjs [dist]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch } from '../tests/browser/serve-and-launch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const { server, url } = await serve(dist, '/');
const browser = await launch();
try {
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.wasmBindings?.bench_worker_messages);
  const rounds = [];
  for (let i = 0; i < 5; i += 1) rounds.push(JSON.parse(await page.evaluate(() => window.wasmBindings.bench_worker_messages(100))));
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const name of Object.keys(rounds[0])) {
    const text = median(rounds.map((r) => r[name][0]));
    const values = median(rounds.map((r) => r[name][1]));
    console.log(`${name.padEnd(11)} text ${text.toFixed(1).padStart(8)} µs   values ${values.toFixed(1).padStart(8)} µs   values/text ${(values / text).toFixed(2)}`);
  }
} finally {
  await browser.close();
  server.close();
}
