//! The page's part in keeping the workspace: the worker saves and restores it (IndexedDB,
//! `crate::worker`); the page hands it what only a page can reach — the share link in the URL,
//! localStorage's copies, files to download and upload.

use crate::client;
use crate::state::{self, Ui};
use crate::worker::protocol::{Ask, Form};
use crate::worker::{BEFORE_LINK, SAVED};
use leptos::prelude::Set;
use wasm_bindgen::JsCast;

const LINK_PREFIX: &str = "#w=";

/// The share link in the URL fragment, if there is one.
fn link_in_url() -> Option<String> {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    hash.strip_prefix(LINK_PREFIX).map(str::to_string)
}

/// At start: a share link wins over the saved workspace; either is restored or refused whole. A
/// share link opened later in the same tab (the fragment changes, the page does not reload) opens
/// the same way.
pub fn restore_on_start(ui: Ui, embedded: bool) {
    let link = link_in_url();
    if link.is_some() {
        clear_fragment();
    }
    let local_saved = client::local(SAVED);
    leptos::task::spawn_local(async move {
        let said = state::done(Ask::Start { embedded, link, local_saved }).await;
        ui.ready.set(true);
        ui.say(&said);
    });
    if let Some(window) = web_sys::window() {
        let on_hash = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            let Some(link) = link_in_url() else { return };
            clear_fragment();
            leptos::task::spawn_local(async move {
                let said = state::done(Ask::Replace { text: link, form: Form::Compact, keep_current: true }).await;
                ui.say(&said.map(|_| "Opened the shared workspace. The one you had is kept: the Restore previous button brings it back.".to_string()).map_err(|e| format!("The share link could not be opened: {e}. Your workspace is unchanged.")));
            });
        });
        window.set_onhashchange(Some(on_hash.as_ref().unchecked_ref()));
        // The page lives as long as the listener.
        on_hash.forget();
    }
}

fn clear_fragment() {
    if let Some(window) = web_sys::window() {
        let path = window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default();
        let _ = window.history().and_then(|h| h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path)));
    }
}

/// Whether a workspace is kept for Restore previous (the worker's, or localStorage's copy).
pub fn has_previous() -> bool {
    client::with_facts(|f| f.previous) || client::local(BEFORE_LINK).is_some()
}

/// Puts back the workspace a link, an import or a workshop step replaced.
pub fn restore_previous(ui: Ui) {
    let local = client::local(BEFORE_LINK);
    leptos::task::spawn_local(async move {
        ui.say(&state::done(Ask::RestorePrevious { local }).await);
    });
}

/// Offers the workspace as a file download.
pub fn export(ui: Ui) {
    leptos::task::spawn_local(async move {
        match state::done(Ask::Export).await {
            Ok(json) => {
                if !download("dynalab-workspace.json", "application/json", &json) {
                    ui.tell(false, "The browser refused the download.");
                }
            }
            Err(e) => ui.tell(false, e),
        }
    });
}

/// Offers `bytes` as a file named `name` (a zip); false if the browser refused.
pub fn download_bytes(name: &str, kind: &str, bytes: &[u8]) -> bool {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    offer(name, kind, &parts)
}

/// Offers `content` as a file download named `name`; false if the browser refused.
pub fn download(name: &str, kind: &str, content: &str) -> bool {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
    offer(name, kind, &parts)
}

/// A blob of `parts` offered for download under `name`.
fn offer(name: &str, kind: &str, parts: &js_sys::Array) -> bool {
    (|| -> Option<()> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(kind);
        let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(parts, &options).ok()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
        let document = web_sys::window()?.document()?;
        let anchor: web_sys::HtmlAnchorElement = document.create_element("a").ok()?.dyn_into().ok()?;
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
        web_sys::Url::revoke_object_url(&url).ok()
    })()
    .is_some()
}

/// Replaces the workspace with an exported file's (the one replaced is kept for Restore
/// previous), or leaves it untouched and says why.
pub async fn import(ui: Ui, text: String) {
    match state::done(Ask::Replace { text, form: Form::Json, keep_current: true }).await {
        Ok(_) => ui.tell(true, "Workspace imported. The one you had is kept: Restore previous brings it back."),
        Err(e) if e == crate::worker::protocol::CANCELLED => {
            ui.tell(false, "Import cancelled. Your workspace is unchanged.")
        }
        Err(e) => ui.tell(false, format!("Import refused: {e}. Your workspace is unchanged.")),
    }
}

/// A link that opens this workspace elsewhere.
pub async fn share_link() -> Result<String, String> {
    let compact = state::done(Ask::ShareLink).await?;
    let base = web_sys::window()
        .and_then(|w| Some(w.location().origin().ok()? + &w.location().pathname().ok()?))
        .unwrap_or_default();
    Ok(format!("{base}{LINK_PREFIX}{compact}"))
}

/// Reads a chosen file as text (UTF-8).
pub async fn read_file(file: web_sys::File) -> Result<String, String> {
    let file = gloo_file::File::from(file);
    gloo_file::futures::read_as_text(&file).await.map_err(|e| format!("The file could not be read ({e})"))
}
