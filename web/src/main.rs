//! The Dynalab playground: the engine runs in the page. `main` only mounts.
// Leptos components take their props by value, and the view! macro builds closures clippy cannot see through.
#![allow(clippy::needless_pass_by_value)]

mod app;
#[cfg(test)]
mod browser_tests;
mod components;
mod idb;
mod pages;
mod state;
mod storage;

fn main() {
    leptos::mount::mount_to_body(app::App);
}

/// Bytes of WebAssembly memory the page holds (it only grows: the peak so far). For
/// `benches/playground.mjs`, which reads it as `wasmBindings.wasm_memory_bytes()`.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn wasm_memory_bytes() -> f64 {
    use wasm_bindgen::JsCast;
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    f64::from(memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length())
}
