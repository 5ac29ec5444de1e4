//! The Dynalab playground. The same module runs twice: in the page, where `main` mounts the UI,
//! and in a dedicated Web Worker (no window), where it runs the engine (`worker::host`).
// Leptos components take their props by value, and the view! macro builds closures clippy cannot see through.
#![allow(clippy::needless_pass_by_value)]

mod app;
#[cfg(test)]
mod browser_tests;
mod client;
mod codec_bench;
mod components;
mod idb;
mod pages;
mod state;
mod storage;
mod worker;

fn main() {
    // A panic says what and where in the console (else WebAssembly only says "unreachable").
    std::panic::set_hook(Box::new(|info| web_sys::console::error_1(&info.to_string().into())));
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(app::App);
    } else {
        worker::host::start();
    }
}

/// Bytes of WebAssembly memory the page holds (it only grows: the peak so far); the engine's are
/// in its worker (`client::engine_memory_bytes`). For `benches/playground.mjs`.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn wasm_memory_bytes() -> f64 {
    use wasm_bindgen::JsCast;
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    f64::from(memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length())
}
