//! A workspace: every table with its items, and the console's request history. Saved in the
//! browser, exported to a file, shared in a URL fragment (deflate + base64url). Restoring builds a
//! fresh engine and hands it over only if every table and item went in, so a corrupt or oversized
//! import leaves the current workspace exactly as it was.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use dynalab_engine::{Clock, Engine};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The format written today; older ones would be migrated here.
pub const FORMAT: &str = "dynalab-workspace/1";
/// The largest workspace read back, from a file or from decompressing a link or a save.
pub const MAX_WORKSPACE_BYTES: usize = 256 * 1024 * 1024;
/// History entries kept; older ones drop off.
pub const MAX_HISTORY: usize = 200;

#[derive(Debug, Serialize, Deserialize)]
pub struct Workspace {
    pub format: String,
    pub tables: Vec<TableDump>,
    #[serde(default)]
    pub history: Vec<HistoryEntry>,
    /// What the learner has done in each pack (by pack id), so a reload or a link keeps it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub progress: Progress,
    /// The design the workspace's tables and items are: its access-pattern inventory, entity
    /// layouts and calls, and its alternatives.
    #[serde(default, skip_serializing_if = "Studio::is_empty")]
    pub design: Studio,
}

/// The designs of a workspace: the one being edited, and alternatives to compare it with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Studio {
    #[serde(default)]
    pub current: crate::design::Design,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<crate::design::Design>,
    /// A challenge being solved in the studio: its pack's id and the pack (JSON), to grade against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<StudioChallenge>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudioChallenge {
    pub id: String,
    pub pack: String,
}

impl Studio {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Each pack's progress, by pack id.
pub type Progress = BTreeMap<String, PackProgress>;

/// What a learner has done in one pack.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PackProgress {
    /// The workshop steps passed, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// A challenge's solution as the learner last wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
    /// A challenge's best score so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_score: Option<u32>,
}

/// A table as its CreateTable request and its items (DynamoDB JSON text, kept as written).
#[derive(Debug, Serialize, Deserialize)]
pub struct TableDump {
    pub create: Value,
    /// The UpdateTimeToLive request, when expiry is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_live: Option<Value>,
    pub items: Vec<Box<RawValue>>,
}

/// A workspace saved in parts, so neither saving nor restoring holds all of it at once: the
/// workspace with its tables' definitions and history but no items, and the parts holding the
/// items, in order.
#[derive(Debug, Serialize, Deserialize)]
pub struct PartsManifest {
    pub workspace: Workspace,
    pub parts: Vec<Part>,
}

/// Some items of one table, stored under `key` as a JSON array.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    pub table: usize,
    pub key: String,
    pub items: usize,
}

/// A request run from the console, to run again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub operation: String,
    pub request: String,
}

/// A workspace captured in slices, so a page can draw between them: [`Capture::start`], then
/// [`Capture::step`] until it is done, then [`Capture::finish`]. The caller makes sure the engine
/// did not change in between (the playground starts again when it did).
pub struct Capture {
    tables: Vec<TableDump>,
    /// The table being read, and the key its next slice starts after.
    table: usize,
    after: Option<dynalab_engine::table::PrimaryKey>,
}

impl Capture {
    /// The tables' definitions; no items yet.
    pub fn start(engine: &Engine) -> Self {
        let tables = engine
            .snapshot_definitions()
            .into_iter()
            .map(|t| TableDump { create: t.create, time_to_live: t.time_to_live, items: t.items })
            .collect();
        Self { tables, table: 0, after: None }
    }

    /// Reads up to `limit` more items: whether the capture is complete, or why it cannot go on (a
    /// table went away).
    pub fn step(&mut self, engine: &Engine, limit: usize) -> Result<bool, String> {
        let Some(dump) = self.tables.get_mut(self.table) else { return Ok(true) };
        let name = dump.create["TableName"].as_str().unwrap_or_default().to_string();
        let (items, next) = engine
            .snapshot_items(&name, self.after.as_ref(), limit)
            .map_err(|e| format!("Table `{name}`: {}", e.message))?;
        dump.items.extend(items);
        if next.is_none() {
            self.table += 1;
        }
        self.after = next;
        Ok(self.table >= self.tables.len())
    }

    /// Reads up to `limit` more items and hands them over instead of keeping them: the index of
    /// their table and the items, or `None` when every table has been read. For a save in parts,
    /// which holds one slice at a time; [`Capture::parts_manifest`] then describes the whole.
    pub fn take(&mut self, engine: &Engine, limit: usize) -> Result<Option<(usize, Vec<Box<RawValue>>)>, String> {
        let Some(dump) = self.tables.get(self.table) else { return Ok(None) };
        let name = dump.create["TableName"].as_str().unwrap_or_default().to_string();
        let (items, next) = engine
            .snapshot_items(&name, self.after.as_ref(), limit)
            .map_err(|e| format!("Table `{name}`: {}", e.message))?;
        let table = self.table;
        if next.is_none() {
            self.table += 1;
        }
        self.after = next;
        Ok(Some((table, items)))
    }

    /// The workspace without its items, and where each slice [`Capture::take`] gave was put.
    pub fn parts_manifest(self, history: &[HistoryEntry], parts: Vec<Part>) -> PartsManifest {
        PartsManifest { workspace: self.finish(history), parts }
    }

    /// The workspace, with `history`.
    pub fn finish(self, history: &[HistoryEntry]) -> Workspace {
        let skip = history.len().saturating_sub(MAX_HISTORY);
        Workspace {
            format: FORMAT.to_string(),
            tables: self.tables,
            history: history[skip..].to_vec(),
            progress: Progress::new(),
            design: Studio::default(),
        }
    }
}

impl Workspace {
    /// The engine's tables and items, with `history`.
    pub fn capture(engine: &Engine, history: &[HistoryEntry]) -> Self {
        let mut capture = Capture::start(engine);
        while !capture.step(engine, usize::MAX).unwrap_or(true) {}
        capture.finish(history)
    }

    /// A fresh engine holding exactly this workspace's tables and items, or the first problem.
    pub fn restore(&self, clock: Arc<dyn Clock>) -> Result<Engine, String> {
        let mut engine = self.restore_tables(clock)?;
        for (table, dump) in self.tables.iter().enumerate() {
            self.restore_items(&mut engine, table, &dump.items, 0)?;
        }
        Ok(engine)
    }

    /// A fresh engine with this workspace's tables (and their TTL settings), no items yet.
    pub fn restore_tables(&self, clock: Arc<dyn Clock>) -> Result<Engine, String> {
        if self.format != FORMAT {
            return Err(format!("Not a Dynalab workspace (format `{}`, expected `{FORMAT}`)", self.format));
        }
        let mut engine = Engine::new(clock);
        for table in &self.tables {
            let name = table.create["TableName"].as_str().unwrap_or("?").to_string();
            engine.execute_value("CreateTable", &table.create).map_err(|e| format!("Table `{name}`: {}", e.message))?;
            if let Some(request) = &table.time_to_live {
                engine
                    .execute_value("UpdateTimeToLive", request)
                    .map_err(|e| format!("Table `{name}`: {}", e.message))?;
            }
        }
        Ok(engine)
    }

    /// Puts `items` into the `table`-th table (`first`: how many of its items came before, for
    /// the messages).
    pub fn restore_items(
        &self,
        engine: &mut Engine,
        table: usize,
        items: &[Box<RawValue>],
        first: usize,
    ) -> Result<(), String> {
        let name = self.tables.get(table).and_then(|t| t.create["TableName"].as_str()).unwrap_or("?").to_string();
        let quoted = Value::String(name.clone()).to_string();
        for (i, item) in items.iter().enumerate() {
            let request = format!(r#"{{"TableName":{quoted},"Item":{}}}"#, item.get());
            engine
                .execute("PutItem", &request)
                .map_err(|e| format!("Table `{name}`, item {}: {}: {}", first + i + 1, e.kind.name(), e.message))?;
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads an exported file.
    pub fn from_json(text: &str) -> Result<Self, String> {
        if text.len() > MAX_WORKSPACE_BYTES {
            return Err(format!(
                "The file is {} MB; workspaces are limited to {} MB",
                text.len() >> 20,
                MAX_WORKSPACE_BYTES >> 20
            ));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| format!("Not a workspace file: {e}"))?;
        if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!("Not a Dynalab workspace: no \"format\": \"{FORMAT}\""));
        }
        serde_json::from_value(value).map_err(|e| format!("The workspace file is damaged: {e}"))
    }

    /// Compressed and URL-safe: for share links (after `#`), as small as deflate makes it.
    pub fn to_compact(&self) -> String {
        self.to_compact_at(9)
    }

    /// Compressed fast, for saving often in the browser's storage (level 1: ~20× faster than 9
    /// on a 100,000-item workspace, ~1.7× larger).
    pub fn to_compact_quick(&self) -> String {
        self.to_compact_at(1)
    }

    fn to_compact_at(&self, level: u8) -> String {
        URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(self.to_json().as_bytes(), level))
    }

    pub fn from_compact(text: &str) -> Result<Self, String> {
        Self::from_compact_within(text, MAX_WORKSPACE_BYTES)
    }

    fn from_compact_within(text: &str, limit: usize) -> Result<Self, String> {
        let compressed =
            URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| "The link is damaged (not base64url)".to_string())?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&compressed, limit)
            .map_err(|_| "The link is damaged or too large to open".to_string())?;
        let text = String::from_utf8(json).map_err(|_| "The link is damaged (not UTF-8)".to_string())?;
        Self::from_json(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example;
    use dynalab_engine::FixedClock;
    use serde_json::json;

    fn clock() -> Arc<dyn Clock> {
        Arc::new(FixedClock::at(0))
    }

    #[test]
    fn progress_travels_with_the_workspace_in_files_and_links() {
        let mut workspace = Workspace::capture(&orders(), &[]);
        assert!(!workspace.to_json().contains("progress"), "no progress, no field");
        let intro = PackProgress { passed: vec!["profile".into(), "orders".into()], ..PackProgress::default() };
        let cart = PackProgress {
            solution: Some("{\"format\": \"dynalab-solution/1\"}".into()),
            best_score: Some(83),
            ..PackProgress::default()
        };
        workspace.progress.insert("intro".into(), intro);
        workspace.progress.insert("cart".into(), cart);
        let from_file = Workspace::from_json(&workspace.to_json()).unwrap();
        let from_link = Workspace::from_compact(&workspace.to_compact()).unwrap();
        assert_eq!(from_file.progress, workspace.progress);
        assert_eq!(from_link.progress, workspace.progress);
    }

    fn orders() -> Engine {
        let mut engine = Engine::new(clock());
        for (operation, request) in example("orders").expect("example").setup {
            engine.execute_value(operation, &request).expect("setup");
        }
        engine
    }

    fn scan_all(engine: &mut Engine) -> Value {
        engine.execute_value("Scan", &json!({"TableName": "orders"})).expect("scan")
    }

    #[test]
    fn a_workspace_survives_file_and_link_round_trips() {
        let mut original = orders();
        let history = vec![HistoryEntry { operation: "Scan".into(), request: r#"{"TableName":"orders"}"#.into() }];
        let workspace = Workspace::capture(&original, &history);
        let from_file = Workspace::from_json(&workspace.to_json()).expect("file");
        let from_link = Workspace::from_compact(&workspace.to_compact()).expect("link");
        assert_eq!(from_file.to_json(), workspace.to_json());
        assert_eq!(from_link.to_json(), workspace.to_json());
        assert_eq!(
            Workspace::from_compact(&workspace.to_compact_quick()).expect("quick").to_json(),
            workspace.to_json()
        );
        let mut restored = from_link.restore(clock()).expect("restores");
        assert_eq!(scan_all(&mut restored), scan_all(&mut original));
        let open = json!({"TableName": "orders", "IndexName": "open_orders", "KeyConditionExpression": "open_wh = :w",
            "ExpressionAttributeValues": {":w": {"S": "w1"}}});
        assert_eq!(
            restored.execute_value("Query", &open).expect("q"),
            original.execute_value("Query", &open).expect("q")
        );
        assert!(workspace.to_compact().len() < workspace.to_json().len());
    }

    #[test]
    fn a_capture_in_slices_is_the_whole_capture() {
        let mut engine = orders();
        engine
            .execute_value(
                "CreateTable",
                &json!({"TableName": "empty", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}),
            )
            .expect("table");
        let whole = Workspace::capture(&engine, &[]).to_json();
        let mut capture = Capture::start(&engine);
        let mut steps = 0;
        while !capture.step(&engine, 3).expect("step") {
            steps += 1;
        }
        assert!(steps > 3, "{steps} slices");
        assert_eq!(capture.finish(&[]).to_json(), whole);
        // A table gone between slices stops the capture with a reason.
        let mut capture = Capture::start(&engine);
        engine.execute_value("DeleteTable", &json!({"TableName": "empty"})).expect("delete");
        let mut outcome = capture.step(&engine, 3);
        while outcome == Ok(false) {
            outcome = capture.step(&engine, 3);
        }
        assert!(outcome.expect_err("gone").starts_with("Table `empty`"));
    }

    #[test]
    fn a_workspace_saved_in_parts_restores_to_the_same_workspace() {
        let engine = orders();
        let history = vec![HistoryEntry { operation: "Scan".into(), request: "{}".into() }];
        let whole = Workspace::capture(&engine, &history).to_json();
        let mut capture = Capture::start(&engine);
        let mut stored: Vec<(Part, String)> = Vec::new();
        while let Some((table, items)) = capture.take(&engine, 2).expect("slice") {
            let part = Part { table, key: format!("part-{}", stored.len()), items: items.len() };
            stored.push((part, serde_json::to_string(&items).expect("json")));
        }
        assert!(stored.len() > 2, "{} parts", stored.len());
        let manifest = capture.parts_manifest(&history, stored.iter().map(|(p, _)| p.clone()).collect());
        let manifest: PartsManifest =
            serde_json::from_str(&serde_json::to_string(&manifest).expect("json")).expect("read back");
        assert!(manifest.workspace.tables.iter().all(|t| t.items.is_empty()), "the manifest holds no items");
        let mut restored = manifest.workspace.restore_tables(Arc::new(FixedClock::at(0))).expect("tables");
        let mut before = vec![0; manifest.workspace.tables.len()];
        for (part, text) in &stored {
            let items: Vec<Box<RawValue>> = serde_json::from_str(text).expect("part");
            manifest.workspace.restore_items(&mut restored, part.table, &items, before[part.table]).expect("items");
            before[part.table] += items.len();
        }
        assert_eq!(Workspace::capture(&restored, &manifest.workspace.history).to_json(), whole);
    }

    #[test]
    fn damaged_input_is_refused_with_a_reason() {
        let workspace = Workspace::capture(&orders(), &[]);
        assert!(Workspace::from_json("{\"tables\": []}").expect_err("no format").contains("Not a Dynalab workspace"));
        assert!(Workspace::from_json("{not json").expect_err("bad").starts_with("Not a workspace file"));
        let truncated = &workspace.to_compact()[..40];
        assert!(Workspace::from_compact(truncated).is_err());
        assert!(Workspace::from_compact("!!!").expect_err("bad").contains("base64url"));
        // A zip bomb: what inflates past the limit stops there (the limit lowered to keep this quick).
        let bomb = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&vec![b' '; 4 * 1024 * 1024], 9));
        assert!(bomb.len() < 20_000);
        assert!(Workspace::from_compact_within(&bomb, 1024 * 1024).expect_err("bomb").contains("too large"));
        // Well-formed but wrong inside: restore fails and says where.
        let mut bad = Workspace::from_json(&workspace.to_json()).expect("copy");
        bad.tables[0].items[3] = RawValue::from_string(r#"{"pk":{"S":"no sort key"}}"#.into()).expect("raw");
        let error = bad.restore(clock()).err().expect("refused");
        assert!(error.starts_with("Table `orders`, item 4: ValidationException"), "{error}");
    }

    #[test]
    fn history_is_capped() {
        let history: Vec<HistoryEntry> =
            (0..MAX_HISTORY + 5).map(|i| HistoryEntry { operation: "Scan".into(), request: i.to_string() }).collect();
        let workspace = Workspace::capture(&Engine::new(clock()), &history);
        assert_eq!(workspace.history.len(), MAX_HISTORY);
        assert_eq!(workspace.history[0].request, "5");
    }
}
