// The engine's Web Worker: the page's own module (its JavaScript and WebAssembly, named by the
// page in `glue` and `wasm`), started without a window, where it runs the engine instead of the UI.
const params = new URL(self.location.href).searchParams;
const glue = await import(params.get('glue'));
await glue.default({ module_or_path: params.get('wasm') });
