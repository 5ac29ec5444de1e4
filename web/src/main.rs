//! The Dynalab playground: the engine runs in the page. `main` only mounts.

mod app;
#[cfg(test)]
mod browser_tests;
mod components;
mod pages;
mod state;
mod storage;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
