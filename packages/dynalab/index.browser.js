// Browsers and Workers: the WebAssembly is fetched from beside this module (any path, any origin
// that serves it) before the module's importers run.
import init from './wasm/dynalab.js';

await init({ module_or_path: new URL('./wasm/dynalab_bg.wasm', import.meta.url) });

export * from './api.js';
