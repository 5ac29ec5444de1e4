//! Keeping the workspace, from the worker: auto-saved to IndexedDB in parts, restored at start,
//! and the workspace a link, an import or a workshop step replaced kept for Restore previous.
//!
//! A save writes only what changed. Items are cut into parts at boundaries the items themselves
//! decide (an item whose text hashes to a multiple of [`AVERAGE_PART`] ends its part), and a part
//! is stored under a key made from its content: a part already in the last save is not written
//! again, and one changed item rewrites one part (two if it was a boundary), not the table. The
//! manifest naming the parts is written after them and the last save's leftover parts are deleted
//! after it, so a save cut short leaves the one before whole. Where IndexedDB refuses, the page
//! keeps a compressed copy in localStorage (a worker cannot reach it): said once, out loud.

use super::lab::{self, with_lab, Beside};
use super::protocol::{Event, FromWorker, Progressing, Task, CANCELLED};
use crate::idb;
use dynalab_engine::Engine;
use dynalab_lab::workspace::{Capture, Part, PartsManifest, Workspace};
use serde_json::value::RawValue;
use std::cell::Cell;
use std::collections::BTreeSet;

/// The saved workspace's manifest: the tables' definitions, the history, the progress and the
/// list of parts (`PartsManifest`).
pub const SAVED_PARTS: &str = "dynalab.workspace.parts";
/// A part's key: this, then its content's hash, item count and length.
const PART: &str = "dynalab.workspace.part.";
/// An older save: the whole workspace as one JSON text in IndexedDB (still read).
const SAVED_JSON: &str = "dynalab.workspace.json";
/// The saved workspace compressed: in localStorage where IndexedDB refuses, and older saves.
pub const SAVED: &str = "dynalab.workspace";
/// What a link, an import or a step replaced, so replacing never loses a workspace.
pub const BEFORE_LINK: &str = "dynalab.workspace.before-link";
/// A saved workspace that could not be restored, kept rather than overwritten.
const DAMAGED: &str = "dynalab.workspace.damaged";
/// Items read from the engine per slice of a save, between which other messages are answered.
const SAVE_SLICE: usize = 4_000;
/// A part ends after an item whose hash is a multiple of this: parts of this many items on average.
const AVERAGE_PART: u64 = 2_048;
/// Nor is a part ever longer than this.
const MAX_PART: usize = 8_192;

thread_local! {
    static EMBEDDED: Cell<bool> = const { Cell::new(false) };
    static SAVE_PENDING: Cell<bool> = const { Cell::new(false) };
    static SAVING: Cell<bool> = const { Cell::new(false) };
    static SAVE_AGAIN: Cell<bool> = const { Cell::new(false) };
    static FALLBACK_SAID: Cell<bool> = const { Cell::new(false) };
    /// A workspace is kept for Restore previous (the button shows only then).
    static HAS_PREVIOUS: Cell<bool> = const { Cell::new(false) };
    /// Parts written by the saves since [`last_save`] was last asked, and parts the last save
    /// found already saved: for tests and benches.
    static LAST_SAVE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The engine's change mark and the workspace's epoch when the last save read its items, and
    /// the parts that hold them: a save after a read (only the history moved) or a progress
    /// change writes a new list of the same parts without reading a million items again.
    static SAVED_ITEMS: std::cell::RefCell<Option<(u64, u64, Vec<Part>)>> = const { std::cell::RefCell::new(None) };
}

/// An embedded page works on its own copy: it must never overwrite the visitor's workspace.
pub fn set_embedded(on: bool) {
    EMBEDDED.with(|e| e.set(on));
}

fn tell(ok: bool, text: String) {
    super::host::post(&FromWorker::Event(Event::Notice { ok, text }));
}

/// Where IndexedDB refuses: the page keeps `text` under `key` in localStorage.
fn keep_local(key: &str, text: Option<String>) {
    super::host::post(&FromWorker::Event(Event::KeepLocal { key: key.to_string(), text }));
}

/// Stores a text in IndexedDB, else hands it to the page for localStorage (said once).
pub async fn write(key: &str, text: String) {
    match idb::put(key, &text).await {
        Ok(()) => keep_local(key, None),
        Err(idb_error) => {
            fallback_said(&idb_error);
            keep_local(key, Some(text));
        }
    }
}

fn fallback_said(idb_error: &str) {
    if !FALLBACK_SAID.with(|said| said.replace(true)) {
        tell(
            false,
            format!("IndexedDB refused ({idb_error}; a private window?): the workspace is kept in local storage, which holds about 5 MB."),
        );
    }
}

pub async fn remove(key: &str) {
    let _ = idb::delete(key).await;
    keep_local(key, None);
}

/// Keeps the current workspace where Restore previous finds it, before something replaces it;
/// an empty workspace replaces nothing worth keeping, so the last save is kept instead.
pub async fn keep_as_previous() {
    if EMBEDDED.with(Cell::get) {
        return;
    }
    let previous = if with_lab(|lab| lab.engine.table_names().is_empty()) {
        read_saved_workspace().await.and_then(Result::ok).map(|w| w.to_compact_quick())
    } else {
        Some(lab::capture().to_compact_quick())
    };
    if let Some(previous) = previous {
        write(BEFORE_LINK, previous).await;
        HAS_PREVIOUS.with(|h| h.set(true));
    }
}

/// Whether a workspace is kept for Restore previous (the page's localStorage may hold one too).
pub fn has_previous() -> bool {
    HAS_PREVIOUS.with(Cell::get)
}

/// At start: whether an earlier session kept a workspace for Restore previous.
pub async fn find_previous() {
    let kept = matches!(idb::get(BEFORE_LINK).await, Ok(Some(_)));
    HAS_PREVIOUS.with(|h| h.set(kept));
}

/// The saved workspace, whole: assembled from its parts, else an older save. `None` when
/// nothing is saved.
async fn read_saved_workspace() -> Option<Result<Workspace, String>> {
    if let Ok(Some(manifest)) = idb::get(SAVED_PARTS).await {
        return Some(assemble(&manifest).await);
    }
    if let Ok(Some(json)) = idb::get(SAVED_JSON).await {
        return Some(Workspace::from_json(&json));
    }
    None
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

async fn read_part(part: &Part) -> Result<Vec<Box<RawValue>>, String> {
    let text = idb::get(&part.key).await?.ok_or_else(|| format!("part `{}` is missing", part.key))?;
    let items: Vec<Box<RawValue>> =
        serde_json::from_str(&text).map_err(|e| format!("part `{}` is damaged: {e}", part.key))?;
    if items.len() != part.items {
        return Err(format!("part `{}` holds {} items, not {}", part.key, items.len(), part.items));
    }
    Ok(items)
}

type Restored = (Engine, Beside);

/// Restores a save in parts into a fresh engine, a part at a time (never the whole text at once);
/// with the parts that hold its items.
async fn restore_parts(manifest: &str) -> Result<(Restored, Vec<Part>), String> {
    let manifest: PartsManifest =
        serde_json::from_str(manifest).map_err(|e| format!("its list of parts is damaged: {e}"))?;
    let workspace = &manifest.workspace;
    let mut engine = workspace.restore_tables(lab::clock())?;
    let mut before = vec![0usize; workspace.tables.len()];
    let total: usize = manifest.parts.iter().map(|p| p.items).sum();
    let mut done = 0;
    for part in &manifest.parts {
        let items = read_part(part).await?;
        let first = before.get(part.table).copied().ok_or("a part names a table it does not have")?;
        workspace.restore_items(&mut engine, part.table, &items, first)?;
        before[part.table] += items.len();
        done += items.len();
        progress(Task::Restore, done, total);
    }
    progress_ended(total);
    Ok(((engine, Beside::of(manifest.workspace)), manifest.parts))
}

/// Items restored between two looks at the message queue (progress, a Cancel).
const RESTORE_SLICE: usize = 8_000;

/// How far a restore is, said only when it is long enough to be seen (no flash of a bar for a
/// small workspace).
fn progress(task: Task, done: usize, total: usize) {
    if total > RESTORE_SLICE {
        super::host::post(&FromWorker::Event(Event::Progress(Some(Progressing { task, done, total }))));
    }
}

fn progress_ended(total: usize) {
    if total > RESTORE_SLICE {
        super::host::post(&FromWorker::Event(Event::Progress(None)));
    }
}

/// A workspace in text form restored into a fresh engine, a slice at a time with progress. Opening
/// one (`Task::Open`) stops at a Cancel, with [`CANCELLED`] (nothing was replaced yet, so nothing
/// changes); the saved workspace coming back at start (`Task::Restore`) is never cancelled: an
/// empty workspace would then be saved over it.
async fn restore_text(text: &str, json: bool, task: Task) -> Result<Restored, String> {
    let workspace = if json { Workspace::from_json(text) } else { Workspace::from_compact(text) }?;
    let mut engine = workspace.restore_tables(lab::clock())?;
    let total: usize = workspace.tables.iter().map(|t| t.items.len()).sum();
    let mut done = 0;
    super::load::reset_cancel();
    for (table, dump) in workspace.tables.iter().enumerate() {
        for (slice, items) in dump.items.chunks(RESTORE_SLICE).enumerate() {
            workspace.restore_items(&mut engine, table, items, slice * RESTORE_SLICE)?;
            done += items.len();
            progress(task, done, total);
            super::yield_now().await;
            if task == Task::Open && super::load::cancelled() {
                progress_ended(total);
                return Err(CANCELLED.into());
            }
        }
    }
    progress_ended(total);
    Ok((engine, Beside::of(workspace)))
}

/// Restores the saved workspace (IndexedDB's parts, else an older save, else `local_saved`, the
/// page's localStorage copy) into the lab. A save that cannot be restored is kept aside and
/// said; the lab stays empty.
pub async fn restore_saved(local_saved: Option<String>) -> Result<(), String> {
    let mut saved_parts = None;
    let (restored, kept_text, key, what) = if let Ok(Some(manifest)) = idb::get(SAVED_PARTS).await {
        let restored = restore_parts(&manifest).await.map(|(restored, parts)| {
            saved_parts = Some(parts);
            restored
        });
        let what = format!("its list of parts is kept under `{DAMAGED}` in the browser's storage, its parts beside it");
        (restored, manifest, SAVED_PARTS, what)
    } else {
        let (text, json, key) = match (idb::get(SAVED_JSON).await, local_saved) {
            (Ok(Some(json)), _) => (json, true, SAVED_JSON),
            (_, Some(compact)) => (compact, false, SAVED),
            _ => return Ok(()),
        };
        let what = format!("it is kept under `{DAMAGED}` in the browser's storage");
        (restore_text(&text, json, Task::Restore).await, text, key, what)
    };
    match restored {
        Ok((engine, beside)) => {
            lab::replace(engine, beside);
            // The items are those parts: a save before any of them changes need not read them.
            if let Some(parts) = saved_parts {
                let mark = with_lab(|lab| lab.engine.change_mark());
                SAVED_ITEMS.with(|saved| *saved.borrow_mut() = Some((mark, lab::epoch(), parts)));
            }
            Ok(())
        }
        Err(e) => {
            write(DAMAGED, kept_text).await;
            remove(key).await;
            Err(format!("The saved workspace could not be restored ({e}); {what}."))
        }
    }
}

/// Replaces the lab with a workspace in text form, keeping the current one for Restore
/// previous when asked; an error (nothing changed) when it cannot be restored.
pub async fn replace_with(text: &str, json: bool, keep_current: bool) -> Result<(), String> {
    let (engine, beside) = restore_text(text, json, Task::Open).await?;
    if keep_current {
        keep_as_previous().await;
    }
    lab::replace(engine, beside);
    Ok(())
}

/// Puts back the workspace kept aside (IndexedDB's, else `local`, the page's localStorage copy).
pub async fn restore_previous(local: Option<String>) -> Result<(), String> {
    let previous = match idb::get(BEFORE_LINK).await {
        Ok(Some(text)) => text,
        _ => local.ok_or("There is no previous workspace to restore.")?,
    };
    let (engine, beside) = restore_text(&previous, false, Task::Open)
        .await
        .map_err(|e| format!("The previous workspace could not be restored: {e}"))?;
    HAS_PREVIOUS.with(|h| h.set(false));
    lab::replace(engine, beside);
    remove(BEFORE_LINK).await;
    Ok(())
}

/// Saves soon, once, however many changes come in between.
pub fn schedule_save() {
    if EMBEDDED.with(Cell::get) || SAVE_PENDING.with(|p| p.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        super::sleep(300).await;
        SAVE_PENDING.with(|p| p.set(false));
        save_now();
    });
}

/// Saves now (one save at a time, in order); a save kept nowhere is said out loud.
pub fn save_now() {
    if SAVING.with(|s| s.replace(true)) {
        SAVE_AGAIN.with(|a| a.set(true));
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = save_in_parts().await {
            tell(false, e);
        }
        SAVING.with(|s| s.set(false));
        if SAVE_AGAIN.with(|a| a.replace(false)) {
            save_now();
        }
    });
}

/// Parts written since the last time this was asked, and parts the last save found saved.
pub fn last_save() -> (usize, usize) {
    LAST_SAVE.with(|s| {
        let (written, skipped) = s.get();
        s.set((0, skipped));
        (written, skipped)
    })
}

/// FNV-1a, 64 bits: a part's name from its content, and an item's say on where parts end.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The parts of one save being written.
struct Writer {
    already: BTreeSet<String>,
    parts: Vec<Part>,
    written: Vec<String>,
    skipped: usize,
}

impl Writer {
    /// Stores one part unless the last save holds the same one.
    async fn part(&mut self, table: usize, items: &[Box<RawValue>]) -> Result<(), String> {
        if items.is_empty() {
            return Ok(());
        }
        let text = serde_json::to_string(items).unwrap_or_default();
        let key = format!("{PART}{:016x}.{}.{}", fnv1a(text.as_bytes()), items.len(), text.len());
        let seen = self.already.contains(&key) || self.parts.iter().any(|p| p.key == key);
        if seen {
            self.skipped += 1;
        } else {
            idb::put(&key, &text).await?;
            self.written.push(key.clone());
        }
        self.parts.push(Part { table, key, items: items.len() });
        Ok(())
    }

    /// Deletes what this save wrote (it did not finish).
    async fn undo(&self) {
        for key in &self.written {
            let _ = idb::delete(key).await;
        }
    }
}

async fn save_in_parts() -> Result<(), String> {
    let old_parts = match idb::get(SAVED_PARTS).await {
        Ok(Some(text)) => serde_json::from_str::<PartsManifest>(&text).map(|m| m.parts).unwrap_or_default(),
        _ => Vec::new(),
    };
    let already: BTreeSet<String> = old_parts.iter().map(|p| p.key.clone()).collect();
    let manifest = loop {
        // A load changes the engine with every slice: save once it has ended (or been undone).
        while lab::loading() {
            super::sleep(250).await;
        }
        let (mark, epoch, mut capture) =
            with_lab(|lab| (lab.engine.change_mark(), lab::epoch(), Capture::start(&lab.engine)));
        let unchanged_items = SAVED_ITEMS.with(|saved| {
            saved
                .borrow()
                .as_ref()
                .filter(|(m, e, parts)| *m == mark && *e == epoch && parts.iter().all(|p| already.contains(&p.key)))
                .map(|(_, _, parts)| parts.clone())
        });
        if let Some(parts) = unchanged_items {
            let (history, progress, studio) =
                with_lab(|lab| (lab.history.clone(), lab.progress.clone(), lab.studio.clone()));
            LAST_SAVE.with(|s| s.set((s.get().0, parts.len())));
            let mut manifest = capture.parts_manifest(&history, parts);
            manifest.workspace.progress = progress;
            manifest.workspace.design = studio;
            break (manifest, mark, epoch);
        }
        let mut writer = Writer { already: already.clone(), parts: Vec::new(), written: Vec::new(), skipped: 0 };
        let mut pending: Vec<Box<RawValue>> = Vec::new();
        let mut pending_table = 0;
        let mut moved = false;
        loop {
            let step = if unchanged_since(mark, epoch) {
                with_lab(|lab| capture.take(&lab.engine, SAVE_SLICE))
            } else {
                Err(String::new())
            };
            let (table, items) = match step {
                Ok(Some(slice)) => slice,
                Ok(None) => break,
                Err(_) => {
                    moved = true;
                    break;
                }
            };
            if table != pending_table {
                let done = std::mem::take(&mut pending);
                if let Err(e) = writer.part(pending_table, &done).await {
                    writer.undo().await;
                    return save_whole(e).await;
                }
                pending_table = table;
            }
            for item in items {
                let boundary = fnv1a(item.get().as_bytes()).is_multiple_of(AVERAGE_PART);
                pending.push(item);
                if boundary || pending.len() >= MAX_PART {
                    let done = std::mem::take(&mut pending);
                    if let Err(e) = writer.part(table, &done).await {
                        writer.undo().await;
                        return save_whole(e).await;
                    }
                }
            }
            // Other messages are answered between slices; a change meanwhile starts the save over.
            super::yield_now().await;
        }
        if !moved && !unchanged_since(mark, epoch) {
            moved = true;
        }
        if !moved {
            if let Err(e) = writer.part(pending_table, &pending).await {
                writer.undo().await;
                return save_whole(e).await;
            }
            let (history, progress, studio) =
                with_lab(|lab| (lab.history.clone(), lab.progress.clone(), lab.studio.clone()));
            let mut manifest = capture.parts_manifest(&history, writer.parts);
            manifest.workspace.progress = progress;
            manifest.workspace.design = studio;
            LAST_SAVE.with(|s| s.set((s.get().0 + writer.written.len(), writer.skipped)));
            break (manifest, mark, epoch);
        }
        writer.undo().await;
        super::sleep(250).await;
    };
    let (manifest, mark, epoch) = manifest;
    let text = serde_json::to_string(&manifest).unwrap_or_default();
    if let Err(e) = idb::put(SAVED_PARTS, &text).await {
        for part in manifest.parts.iter().filter(|p| !already.contains(&p.key)) {
            let _ = idb::delete(&part.key).await;
        }
        return save_whole(e).await;
    }
    // The new save is whole: drop the last one's parts it does not use, and older forms of save.
    let kept: BTreeSet<&str> = manifest.parts.iter().map(|p| p.key.as_str()).collect();
    for part in old_parts.iter().filter(|p| !kept.contains(p.key.as_str())) {
        let _ = idb::delete(&part.key).await;
    }
    let _ = idb::delete(SAVED_JSON).await;
    let _ = idb::delete(SAVED).await;
    keep_local(SAVED, None);
    SAVED_ITEMS.with(|saved| *saved.borrow_mut() = Some((mark, epoch, manifest.parts)));
    Ok(())
}

fn unchanged_since(mark: u64, epoch: u64) -> bool {
    with_lab(|lab| lab.engine.change_mark() == mark) && lab::epoch() == epoch
}

/// Where IndexedDB refuses (no quota left, a private window): the whole workspace, compressed,
/// for the page to keep in localStorage, which holds only a few MB (the page says when that fails).
async fn save_whole(idb_error: String) -> Result<(), String> {
    SAVED_ITEMS.with(|saved| *saved.borrow_mut() = None);
    fallback_said(&idb_error);
    let compact = lab::capture().to_compact_quick();
    keep_local(SAVED, Some(compact));
    // This save is now the newest: an older save in parts must not be restored instead.
    if let Ok(Some(text)) = idb::get(SAVED_PARTS).await {
        for part in serde_json::from_str::<PartsManifest>(&text).map(|m| m.parts).unwrap_or_default() {
            let _ = idb::delete(&part.key).await;
        }
        let _ = idb::delete(SAVED_PARTS).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn part_names_follow_content() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fnv1a(b"ab"), fnv1a(b"ba"));
    }
}
