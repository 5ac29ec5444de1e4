//! The Dynalab playground. The same module runs twice: in the page, where `main` mounts the UI,
//! and in a dedicated Web Worker (no window), where it runs the engine (`worker::host`).
// Leptos components take their props by value, and the view! macro builds closures clippy cannot see through.
#![allow(clippy::needless_pass_by_value)]

mod app;
#[cfg(test)]
mod browser_tests;
mod client;
mod components;
mod idb;
mod pages;
mod state;
mod storage;
mod worker;

fn main() {
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(app::App);
    } else {
        worker::host::start();
    }
}
