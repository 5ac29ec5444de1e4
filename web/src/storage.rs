//! Keeping the workspace: auto-save to localStorage (compressed), restore on load, export to a
//! file, import from one, and share links that carry a workspace in the URL fragment. Anything
//! read back is restored into a fresh engine first; only a complete restore replaces the current
//! workspace, so a damaged file or link changes nothing.

use crate::state::{self, Ui};
use dynalab_lab::workspace::Workspace;
use std::cell::Cell;
use wasm_bindgen::JsCast;

const SAVED: &str = "dynalab.workspace";
/// What a share link replaced, so opening one never loses the workspace that was there.
const BEFORE_LINK: &str = "dynalab.workspace.before-link";
/// A saved workspace that could not be restored, kept rather than overwritten.
const DAMAGED: &str = "dynalab.workspace.damaged";
const LINK_PREFIX: &str = "#w=";

thread_local! {
    static SAVE_PENDING: Cell<bool> = const { Cell::new(false) };
    static UI: Cell<Option<Ui>> = const { Cell::new(None) };
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// At start: a share link wins over the saved workspace; either is restored or refused whole. A
/// share link opened later in the same tab (the fragment changes, the page does not reload) opens
/// the same way.
pub fn restore_on_start(ui: Ui) {
    UI.with(|cell| cell.set(Some(ui)));
    let Some(storage) = local_storage() else {
        ui.tell(false, "This browser gives no local storage: the workspace will not be saved between visits.");
        return;
    };
    if !open_link(ui, &storage) {
        restore_saved(ui, &storage);
    }
    if let Some(window) = web_sys::window() {
        let on_hash = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Some(storage) = local_storage() {
                if open_link(ui, &storage) {
                    ui.changed();
                }
            }
        });
        window.set_onhashchange(Some(on_hash.as_ref().unchecked_ref()));
        // The page lives as long as the listener.
        on_hash.forget();
    }
}

/// Opens the share link in the URL fragment, if there is one: whether there was.
fn open_link(ui: Ui, storage: &web_sys::Storage) -> bool {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    if let Some(link) = hash.strip_prefix(LINK_PREFIX) {
        match Workspace::from_compact(link).and_then(|w| Ok((w.restore(state::clock())?, w.history))) {
            Ok((engine, history)) => {
                if let Ok(Some(previous)) = storage.get_item(SAVED) {
                    let _ = storage.set_item(BEFORE_LINK, &previous);
                }
                state::replace(engine, history);
                ui.tell(
                    true,
                    "Opened the shared workspace. The one you had is kept: the Restore previous button brings it back.",
                );
                clear_fragment();
                save_now();
            }
            Err(e) => {
                ui.tell(false, format!("The share link could not be opened: {e}. Your workspace is unchanged."));
                clear_fragment();
                restore_saved(ui, storage);
            }
        }
        return true;
    }
    false
}

fn restore_saved(ui: Ui, storage: &web_sys::Storage) {
    let Ok(Some(saved)) = storage.get_item(SAVED) else { return };
    match Workspace::from_compact(&saved).and_then(|w| Ok((w.restore(state::clock())?, w.history))) {
        Ok((engine, history)) => state::replace(engine, history),
        Err(e) => {
            let _ = storage.set_item(DAMAGED, &saved);
            let _ = storage.remove_item(SAVED);
            ui.tell(
                false,
                format!(
                    "The saved workspace could not be restored ({e}); it is kept under `{DAMAGED}` in local storage."
                ),
            );
        }
    }
}

fn clear_fragment() {
    if let Some(window) = web_sys::window() {
        let path = window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default();
        let _ = window.history().and_then(|h| h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path)));
    }
}

/// Saves soon, once, however many changes come in between.
pub fn schedule_save() {
    if SAVE_PENDING.with(|p| p.replace(true)) {
        return;
    }
    leptos::prelude::set_timeout(
        || {
            SAVE_PENDING.with(|p| p.set(false));
            save_now();
        },
        std::time::Duration::from_millis(400),
    );
}

/// Saves now; a full storage is said out loud, never ignored.
pub fn save_now() {
    let Some(storage) = local_storage() else { return };
    let compact = state::capture().to_compact_quick();
    if storage.set_item(SAVED, &compact).is_err() {
        let megabytes = compact.len() as f64 / 1_048_576.0;
        if let Some(ui) = UI.with(Cell::get) {
            ui.tell(
                false,
                format!("The workspace ({megabytes:.1} MB compressed) no longer fits in the browser's storage: export it to a file to keep it."),
            );
        }
    }
}

/// Puts back the workspace a share link replaced.
pub fn restore_previous(ui: Ui) {
    let Some(storage) = local_storage() else { return };
    let Ok(Some(previous)) = storage.get_item(BEFORE_LINK) else {
        ui.tell(false, "There is no previous workspace to restore.");
        return;
    };
    match Workspace::from_compact(&previous).and_then(|w| Ok((w.restore(state::clock())?, w.history))) {
        Ok((engine, history)) => {
            state::replace(engine, history);
            let _ = storage.remove_item(BEFORE_LINK);
            ui.changed();
            ui.tell(true, "The previous workspace is back.");
        }
        Err(e) => ui.tell(false, format!("The previous workspace could not be restored: {e}")),
    }
}

/// Offers the workspace as a file download.
pub fn export(ui: Ui) {
    if !download("dynalab-workspace.json", "application/json", &state::capture().to_json()) {
        ui.tell(false, "The browser refused the download.");
    }
}

/// Offers `content` as a file download named `name`; false if the browser refused.
pub fn download(name: &str, kind: &str, content: &str) -> bool {
    (|| -> Option<()> {
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(kind);
        let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
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

/// Replaces the workspace with an exported file's, or leaves it untouched and says why.
pub fn import(ui: Ui, text: &str) {
    match Workspace::from_json(text).and_then(|w| Ok((w.restore(state::clock())?, w.history))) {
        Ok((engine, history)) => {
            state::replace(engine, history);
            ui.changed();
            ui.tell(true, "Workspace imported.");
        }
        Err(e) => ui.tell(false, format!("Import refused: {e}. Your workspace is unchanged.")),
    }
}

/// A link that opens this workspace elsewhere.
pub fn share_link() -> String {
    let compact = state::capture().to_compact();
    let base = web_sys::window()
        .and_then(|w| Some(w.location().origin().ok()? + &w.location().pathname().ok()?))
        .unwrap_or_default();
    format!("{base}{LINK_PREFIX}{compact}")
}

/// Reads a chosen file as text.
pub async fn read_file(file: web_sys::File) -> Result<String, String> {
    let text = wasm_bindgen_futures::JsFuture::from(file.text())
        .await
        .map_err(|_| "The file could not be read".to_string())?;
    text.as_string().ok_or_else(|| "The file is not text".to_string())
}
