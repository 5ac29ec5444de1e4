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
