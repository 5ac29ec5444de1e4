// The engine's Web Worker: the page's own module (its JavaScript and WebAssembly, whose URLs the
// page gives as the worker's name, one per line), started without a window, where it runs the
// engine instead of the UI. Not in the URL: a worker served from the offline cache loses its query.
const [glue, wasm] = self.name.split('\n');
const module = await import(glue);
await module.default({ module_or_path: wasm });
