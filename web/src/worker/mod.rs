//! The engine's side of the playground: a dedicated Web Worker running the same WebAssembly
//! module as the page (`main` sees no window and starts [`host::start`] instead of the UI). It owns
//! the engine, the history and the workspace's saving, so a load, a big Scan or a save never
//! holds the page's thread. The page talks to it in [`protocol`]'s typed messages
//! (`crate::client` is the page's end).

mod designs;
pub mod host;
pub(crate) mod lab;
mod load;
pub mod protocol;
pub mod results;
mod save;
pub(crate) mod studio;

pub use lab::clock;

/// Milliseconds from the global scope's clock (`performance.now`), in the page or a worker.
pub fn now_ms() -> f64 {
    use wasm_bindgen::JsCast;
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Lets other messages and tasks run (a Cancel, a question), then continues at once: a message
/// to itself, which — unlike a zero timeout, clamped to 4 ms when repeated — costs no wait.
pub async fn yield_now() {
    let Ok(channel) = web_sys::MessageChannel::new() else { return sleep(0).await };
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        channel.port1().set_onmessage(Some(&resolve));
        let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    channel.port1().set_onmessage(None);
}

/// Continues after `ms` milliseconds, letting other messages and tasks run meanwhile (in the page
/// or a worker: gloo's timer calls the global `setTimeout`).
pub async fn sleep(ms: i32) {
    gloo_timers::future::TimeoutFuture::new(u32::try_from(ms).unwrap_or(0)).await;
}

pub use save::{BEFORE_LINK, SAVED};
