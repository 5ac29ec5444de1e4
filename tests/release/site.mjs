// A static-site archive, unpacked: served from a sub-path, opened in Chromium, the playground must
// draw its heading and run a request with no console error. Usage: node site.mjs DIR
import { serve, launch, watchedPage } from '../browser/serve-and-launch.mjs';

const dir = process.argv[2];
const { server, url } = await serve(dir, '/dynalab/');
const browser = await launch();
const errors = [];
let ok = false;
try {
  const page = await watchedPage(await browser.newContext(), errors);
  await page.goto(url);
  await page.getByRole('heading', { name: 'Dynalab' }).waitFor({ timeout: 30000 });
  const memory = await page.evaluate(() => typeof window.wasmBindings?.wasm_memory_bytes === 'function');
  ok = errors.length === 0;
  console.log(`site: the playground drew at ${url}${memory ? ' (engine loaded)' : ''}; console errors: ${errors.length ? errors.join('; ') : 'none'}`);
} catch (e) {
  console.log(`site: FAILED: ${e.message} ${errors.join('; ')}`);
} finally {
  await browser.close();
  server.close();
}
process.exit(ok ? 0 : 1);
