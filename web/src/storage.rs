//! Keeping the workspace: auto-save to IndexedDB in parts (compressed into localStorage only where
//! IndexedDB is missing or refuses), restore on load, export to a file, import from one, and share
//! links that carry a workspace in the URL fragment. Anything read back is restored into a fresh engine
//! first; only a complete restore replaces the current workspace, so a damaged file or link
//! changes nothing. A save that cannot be kept anywhere is said out loud.

use crate::idb;
use crate::state::{self, Ui};
use dynalab_lab::workspace::{Capture, Part, PartsManifest, Workspace};
use leptos::prelude::{Set, Update};
use std::cell::Cell;
use wasm_bindgen::JsCast;

/// The saved workspace in IndexedDB, in parts (`PartsManifest`): this key holds the tables'
/// definitions, the history and the list of parts; each part, a slice of items as JSON, has its
/// own key. Neither saving nor restoring holds the whole workspace at once, and a new save's parts
/// are written before the manifest that names them, so a save cut short leaves the last one whole.
const SAVED_PARTS: &str = "dynalab.workspace.parts";
/// An older save: the whole workspace as one JSON text in IndexedDB (still read).
const SAVED_JSON: &str = "dynalab.workspace.json";
/// The saved workspace compressed: in localStorage where IndexedDB refuses, and older saves.
const SAVED: &str = "dynalab.workspace";
/// Items captured per slice of a save, between which the page draws.
const SAVE_SLICE: usize = 4_000;
/// What a share link replaced, so opening one never loses the workspace that was there.
const BEFORE_LINK: &str = "dynalab.workspace.before-link";
/// A saved workspace that could not be restored, kept rather than overwritten.
const DAMAGED: &str = "dynalab.workspace.damaged";
const LINK_PREFIX: &str = "#w=";

thread_local! {
    static SAVE_PENDING: Cell<bool> = const { Cell::new(false) };
    /// A save is being written; another change asks for one more after it.
    static SAVING: Cell<bool> = const { Cell::new(false) };
    static SAVE_AGAIN: Cell<bool> = const { Cell::new(false) };
    /// IndexedDB refused once: said once, then localStorage is used quietly.
    static FALLBACK_SAID: Cell<bool> = const { Cell::new(false) };
    static UI: Cell<Option<Ui>> = const { Cell::new(None) };
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn tell(ok: bool, message: String) {
    if let Some(ui) = UI.with(Cell::get) {
        ui.tell(ok, message);
    }
}

/// A stored text: IndexedDB's copy, else localStorage's (older saves, or no IndexedDB).
async fn read(key: &str) -> Option<String> {
    match idb::get(key).await {
        Ok(Some(text)) => Some(text),
        _ => local_storage().and_then(|s| s.get_item(key).ok().flatten()),
    }
}

/// Stores a text in IndexedDB (dropping any older localStorage copy), else in localStorage.
async fn write(key: &str, text: &str) -> Result<(), String> {
    keep(key, text, key, || text.to_string()).await.map(|_| ())
}

/// Where [`keep`] put a text.
#[derive(PartialEq, Eq)]
enum Kept {
    IndexedDb,
    LocalStorage,
}

/// Stores `text` under `key` in IndexedDB and drops `fallback_key`'s older localStorage copy;
/// where IndexedDB refuses, stores `fallback()` under `fallback_key` in localStorage (said once).
/// An error when neither would take it, with IndexedDB's reason.
async fn keep(key: &str, text: &str, fallback_key: &str, fallback: impl FnOnce() -> String) -> Result<Kept, String> {
    match idb::put(key, text).await {
        Ok(()) => {
            if let Some(storage) = local_storage() {
                let _ = storage.remove_item(fallback_key);
            }
            Ok(Kept::IndexedDb)
        }
        Err(idb_error) => {
            let stored = local_storage().is_some_and(|s| s.set_item(fallback_key, &fallback()).is_ok());
            if !stored {
                return Err(idb_error);
            }
            if !FALLBACK_SAID.with(|said| said.replace(true)) {
                tell(
                    false,
                    format!("IndexedDB refused ({idb_error}; a private window?): the workspace is kept in local storage, which holds about 5 MB."),
                );
            }
            Ok(Kept::LocalStorage)
        }
    }
}

async fn remove(key: &str) {
    let _ = idb::delete(key).await;
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(key);
    }
}

/// At start: a share link wins over the saved workspace; either is restored or refused whole. A
/// share link opened later in the same tab (the fragment changes, the page does not reload) opens
/// the same way.
pub fn restore_on_start(ui: Ui) {
    UI.with(|cell| cell.set(Some(ui)));
    if !open_link(ui) {
        leptos::task::spawn_local(restore_saved(ui));
    }
    if let Some(window) = web_sys::window() {
        let on_hash = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if open_link(ui) {
                ui.changed();
            }
        });
        window.set_onhashchange(Some(on_hash.as_ref().unchecked_ref()));
        // The page lives as long as the listener.
        on_hash.forget();
    }
}

/// Opens the share link in the URL fragment, if there is one: whether there was.
fn open_link(ui: Ui) -> bool {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let Some(link) = hash.strip_prefix(LINK_PREFIX) else { return false };
    match Workspace::from_compact(link).and_then(|w| Ok((w.restore(state::clock())?, w.history, w.progress))) {
        Ok((engine, history, progress)) => {
            state::replace(engine, history, progress);
            select_first_table(ui);
            ui.version.update(|v| *v += 1);
            ui.tell(
                true,
                "Opened the shared workspace. The one you had is kept: the Restore previous button brings it back.",
            );
            clear_fragment();
            // Keep what was saved before the link replaced it, then save the link's workspace.
            leptos::task::spawn_local(async move {
                let previous = read_saved_workspace().await.and_then(Result::ok);
                if let Some(previous) = previous.map(|w| w.to_compact_quick()) {
                    if let Err(e) = write(BEFORE_LINK, &previous).await {
                        tell(false, format!("The workspace the link replaced could not be kept: {e}"));
                    }
                }
                save_now();
            });
        }
        Err(e) => {
            ui.tell(false, format!("The share link could not be opened: {e}. Your workspace is unchanged."));
            clear_fragment();
            leptos::task::spawn_local(restore_saved(ui));
        }
    }
    true
}

/// Keeps the current workspace where Restore previous finds it, before something replaces it (a
/// workshop step loading its tables).
pub fn keep_as_previous() {
    let current = state::capture().to_compact_quick();
    leptos::task::spawn_local(async move {
        if let Err(e) = write(BEFORE_LINK, &current).await {
            tell(false, format!("The workspace being replaced could not be kept: {e}"));
        }
    });
}

fn select_first_table(ui: Ui) {
    if let Some(first) = state::table_names().first() {
        ui.selected_table.set(Some(first.clone()));
    }
}

/// The saved workspace, whole (for keeping it aside when a link replaces it): assembled from its
/// parts, else read from an older save. `None` when nothing is saved.
async fn read_saved_workspace() -> Option<Result<Workspace, String>> {
    if let Ok(Some(manifest)) = idb::get(SAVED_PARTS).await {
        return Some(assemble(&manifest).await);
    }
    read_saved().await.map(|(text, json)| parse_saved(&text, json))
}

async fn assemble(manifest: &str) -> Result<Workspace, String> {
    let manifest: PartsManifest =
        serde_json::from_str(manifest).map_err(|e| format!("its list of parts is damaged: {e}"))?;
    let mut workspace = manifest.workspace;
    for part in &manifest.parts {
        let items = read_part(part).await?;
        workspace.tables.get_mut(part.table).ok_or("a part names a table it does not have")?.items.extend(items);
    }
    Ok(workspace)
}

async fn read_part(part: &Part) -> Result<Vec<Box<serde_json::value::RawValue>>, String> {
    let text = idb::get(&part.key).await?.ok_or_else(|| format!("part `{}` is missing", part.key))?;
    let items: Vec<Box<serde_json::value::RawValue>> =
        serde_json::from_str(&text).map_err(|e| format!("part `{}` is damaged: {e}", part.key))?;
    if items.len() != part.items {
        return Err(format!("part `{}` holds {} items, not {}", part.key, items.len(), part.items));
    }
    Ok(items)
}

/// Restores a save in parts into a fresh engine, a part at a time, the page drawing between.
async fn restore_parts(
    manifest: &str,
) -> Result<(dynalab_engine::Engine, Vec<dynalab_lab::workspace::HistoryEntry>, dynalab_lab::workspace::Progress), String>
{
    let manifest: PartsManifest =
        serde_json::from_str(manifest).map_err(|e| format!("its list of parts is damaged: {e}"))?;
    let workspace = &manifest.workspace;
    let mut engine = workspace.restore_tables(state::clock())?;
    let mut before = vec![0usize; workspace.tables.len()];
    for part in &manifest.parts {
        let items = read_part(part).await?;
        let first = before.get(part.table).copied().ok_or("a part names a table it does not have")?;
        workspace.restore_items(&mut engine, part.table, &items, first)?;
        before[part.table] += items.len();
        state::yield_to_browser().await;
    }
    Ok((engine, manifest.workspace.history, manifest.workspace.progress))
}

/// The saved workspace's text, and how to read it: IndexedDB's JSON, else a compressed save.
async fn read_saved() -> Option<(String, bool)> {
    if let Ok(Some(json)) = idb::get(SAVED_JSON).await {
        return Some((json, true));
    }
    read(SAVED).await.map(|compact| (compact, false))
}

fn parse_saved(text: &str, json: bool) -> Result<Workspace, String> {
    if json {
        Workspace::from_json(text)
    } else {
        Workspace::from_compact(text)
    }
}

async fn restore_saved(ui: Ui) {
    // The save read back, what to keep aside if it cannot be restored, and where it was.
    let (restored, kept_text, key, what) = if let Ok(Some(manifest)) = idb::get(SAVED_PARTS).await {
        let restored = restore_parts(&manifest).await;
        // Kept aside, the next save writes a new list and leaves these parts alone.
        let what = format!("its list of parts is kept under `{DAMAGED}` in the browser's storage, its parts beside it");
        (restored, manifest, SAVED_PARTS, what)
    } else {
        let Some((saved, json)) = read_saved().await else { return };
        let restored = parse_saved(&saved, json).and_then(|w| Ok((w.restore(state::clock())?, w.history, w.progress)));
        let what = format!("it is kept under `{DAMAGED}` in the browser's storage");
        (restored, saved, if json { SAVED_JSON } else { SAVED }, what)
    };
    // Something done in the moment the restore took is not overwritten.
    if !state::table_names().is_empty() {
        return;
    }
    match restored {
        Ok((engine, history, progress)) => {
            state::replace(engine, history, progress);
            select_first_table(ui);
            ui.version.update(|v| *v += 1);
        }
        Err(e) => {
            let kept = write(DAMAGED, &kept_text).await;
            remove(key).await;
            ui.tell(
                false,
                match kept {
                    Ok(()) => format!("The saved workspace could not be restored ({e}); {what}."),
                    Err(k) => format!("The saved workspace could not be restored ({e}), nor kept aside ({k})."),
                },
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
    // An embedded step works on its own copy: it must never overwrite the visitor's workspace.
    if crate::pages::learn::embedded() {
        return;
    }
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

/// Saves now (one save at a time, in order); a save kept nowhere is said out loud, never ignored.
/// The workspace is captured in slices between which the page draws; if the engine changes
/// meanwhile, the capture starts over, so a save is never half old, half new.
pub fn save_now() {
    if SAVING.with(|s| s.replace(true)) {
        SAVE_AGAIN.with(|a| a.set(true));
        return;
    }
    leptos::task::spawn_local(async move {
        if let Err(e) = save_in_slices().await {
            tell(false, e);
        }
        SAVING.with(|s| s.set(false));
        if SAVE_AGAIN.with(|a| a.replace(false)) {
            save_now();
        }
    });
}

async fn save_in_slices() -> Result<(), String> {
    let old_parts = match idb::get(SAVED_PARTS).await {
        Ok(Some(text)) => serde_json::from_str::<PartsManifest>(&text).map(|m| m.parts).unwrap_or_default(),
        _ => Vec::new(),
    };
    let manifest = loop {
        let generation = state::now_ms() as u64;
        let (mark, mut capture) = state::with_lab(|lab| (lab.engine.change_mark(), Capture::start(&lab.engine)));
        let mut parts: Vec<Part> = Vec::new();
        let mut moved = false;
        loop {
            let step = state::with_lab(|lab| {
                if lab.engine.change_mark() == mark {
                    Some(capture.take(&lab.engine, SAVE_SLICE))
                } else {
                    None
                }
            });
            match step {
                Some(Ok(Some((table, items)))) => {
                    let part =
                        Part { table, key: format!("{SAVED_PARTS}.{generation}.{}", parts.len()), items: items.len() };
                    let text = serde_json::to_string(&items).unwrap_or_default();
                    drop(items);
                    if let Err(idb_error) = idb::put(&part.key, &text).await {
                        for written in &parts {
                            let _ = idb::delete(&written.key).await;
                        }
                        return save_whole(idb_error).await;
                    }
                    parts.push(part);
                    state::yield_to_browser().await;
                }
                Some(Ok(None)) => break,
                Some(Err(_)) | None => {
                    moved = true;
                    break;
                }
            }
        }
        if !moved {
            let (history, progress) = state::with_lab(|lab| (lab.history.clone(), lab.progress.clone()));
            let mut manifest = capture.parts_manifest(&history, parts);
            manifest.workspace.progress = progress;
            break manifest;
        }
        // Changed under the capture (a load in chunks, a request): drop what was written, let it
        // settle, then start again.
        for written in &parts {
            let _ = idb::delete(&written.key).await;
        }
        state::sleep(250).await;
    };
    let text = serde_json::to_string(&manifest).unwrap_or_default();
    if let Err(idb_error) = idb::put(SAVED_PARTS, &text).await {
        for written in &manifest.parts {
            let _ = idb::delete(&written.key).await;
        }
        return save_whole(idb_error).await;
    }
    // The new save is whole: drop the parts of the one before, and any older form of save.
    for part in old_parts.iter().filter(|p| !manifest.parts.iter().any(|n| n.key == p.key)) {
        let _ = idb::delete(&part.key).await;
    }
    let _ = idb::delete(SAVED_JSON).await;
    let _ = idb::delete(SAVED).await;
    if let Some(storage) = local_storage() {
        let _ = storage.remove_item(SAVED);
    }
    Ok(())
}

/// Where IndexedDB refuses (a private window, no quota left): the whole workspace, compressed, in
/// localStorage, which holds only a few MB; an error when that fails too.
async fn save_whole(idb_error: String) -> Result<(), String> {
    let workspace = state::capture();
    let compact = workspace.to_compact_quick();
    match keep(SAVED, &compact, SAVED, || compact.clone()).await {
        Ok(_) => {
            // This save is now the newest: an older save in parts must not be restored instead.
            if let Ok(Some(text)) = idb::get(SAVED_PARTS).await {
                for part in serde_json::from_str::<PartsManifest>(&text).map(|m| m.parts).unwrap_or_default() {
                    let _ = idb::delete(&part.key).await;
                }
                let _ = idb::delete(SAVED_PARTS).await;
            }
            Ok(())
        }
        Err(_) => Err(format!(
            "The workspace ({:.1} MB compressed) could not be saved (IndexedDB: {idb_error}; local storage is full): export it to a file to keep it.",
            compact.len() as f64 / 1_048_576.0
        )),
    }
}

/// Puts back the workspace a share link replaced.
pub fn restore_previous(ui: Ui) {
    leptos::task::spawn_local(async move {
        let Some(previous) = read(BEFORE_LINK).await else {
            ui.tell(false, "There is no previous workspace to restore.");
            return;
        };
        match Workspace::from_compact(&previous).and_then(|w| Ok((w.restore(state::clock())?, w.history, w.progress))) {
            Ok((engine, history, progress)) => {
                state::replace(engine, history, progress);
                remove(BEFORE_LINK).await;
                select_first_table(ui);
                ui.changed();
                ui.tell(true, "The previous workspace is back.");
            }
            Err(e) => ui.tell(false, format!("The previous workspace could not be restored: {e}")),
        }
    });
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
    match Workspace::from_json(text).and_then(|w| Ok((w.restore(state::clock())?, w.history, w.progress))) {
        Ok((engine, history, progress)) => {
            state::replace(engine, history, progress);
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
