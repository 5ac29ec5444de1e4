// Node: the WebAssembly is read from beside this file and compiled synchronously, so the engine is
// ready as soon as the import is.
import { readFileSync } from 'node:fs';
import { initSync } from './wasm/dynalab.js';

initSync({ module: readFileSync(new URL('./wasm/dynalab_bg.wasm', import.meta.url)) });

export * from './api.js';
