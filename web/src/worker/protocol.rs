//! What the page and the engine's Web Worker say to each other: typed messages, sent as JSON text
//! (`postMessage` of a string: one copy, no structured-clone walk of a tree). The page asks
//! ([`Ask`], each with an id and exactly one [`Answer`]); the worker also tells ([`Event`]): what
//! the views draw from ([`Facts`]), a load's progress, notices, and text for localStorage (which a
//! worker cannot reach).

use dynalab_engine::explain::Step;
use dynalab_engine::TableShape;
use dynalab_lab::pack::workshop::CheckResult;
use dynalab_lab::workspace::{HistoryEntry, PackProgress, Progress, Studio};
use serde::{Deserialize, Serialize};

/// Page → worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToWorker {
    Ask {
        id: u64,
        ask: Ask,
    },
    /// Stop the running load; what it wrote is undone. Handled at once, between two chunks.
    Cancel,
}

/// Worker → page.
#[derive(Debug, Serialize, Deserialize)]
pub enum FromWorker {
    Answer { id: u64, answer: Answer },
    Event(Event),
}

/// One question to the worker.
#[derive(Debug, Serialize, Deserialize)]
pub enum Ask {
    /// First thing the page sends: restore the share link in the URL, else the saved workspace.
    /// `local_saved` is localStorage's copy (only the page can read it). Embedded pages never save.
    Start { embedded: bool, link: Option<String>, local_saved: Option<String> },
    /// One request on the engine; `record` adds it to the history. → [`Answer::Ran`]
    Run { operation: String, request: String, record: bool },
    /// A window of the items of `table` (or its `index`), in storage order. → [`Answer::Items`]
    Items { table: String, index: Option<String>, offset: usize, limit: usize },
    /// A window of the items a large response returned (kept in the worker). → [`Answer::Items`]
    ResultRows { result: u64, offset: usize, limit: usize },
    /// A large response's whole JSON, pretty-printed, when the user asks to see it. → Text
    ResultText { result: u64 },
    /// Moves the lab's clock (or back to real time with `None`) and runs the TTL sweep. → Count
    AdvanceClock { by_ms: Option<u64> },
    /// The TTL sweep, as `dynalab serve` runs it every few seconds. → Count
    Sweep,
    /// A fixture file's writes, or generated orders, in chunks with progress. → Done
    Load(Load),
    /// A gallery example's tables and items. → Done
    Example { id: String },
    /// Replaces the workspace (an import, a share link, the previous workspace), keeping the
    /// current one for Restore previous when `keep_current`. → Done
    Replace { text: String, form: Form, keep_current: bool },
    /// Puts back the workspace kept aside (`local` is localStorage's copy, if any). → Done
    RestorePrevious { local: Option<String> },
    /// The workspace as a file's JSON. → Text
    Export,
    /// The workspace in a share link's compact form. → Text
    ShareLink,
    /// Loads a workshop step's tables (the pack as JSON, the step's index). → Done
    StartStep { pack: String, step: usize },
    /// Judges a workshop step on the last request and the tables after it. → Verdicts
    Judge { step: dynalab_lab::pack::Step },
    /// Records a pack's progress in the workspace. → Done
    SetProgress { id: String, progress: PackProgress },
    /// A design (a workbook or any format the importers read) checked on its own engines. → Design
    CheckDesign { text: String },
    /// Two designs checked and compared. → Comparison
    CompareDesigns { a: String, b: String },
    /// A challenge solution graded (the pack as JSON). → Graded
    Grade { pack: String, solution: String },
    /// The workspace's design as the studio edited it: kept (saved with the workspace), then
    /// proved on a copy of the workspace. → Design
    SetStudio { studio: Studio },
    /// The workspace's design (or its alternative `alternative`) proved on a copy. → Design
    ProveStudio { alternative: Option<usize> },
    /// The workspace's items put back as the last proof found them. → Done
    RestoreProvedItems,
    /// The design proved on the workspace's items as they are now. → Design
    ProveOnWorkspace,
    /// The workspace's design beside its alternative `index`, both proved. → Comparison
    CompareAlternative { index: usize },
    /// The workspace's design in the modelling method's Markdown. → Text
    DesignDocument,
    /// The workspace's design as a workbook (its tables, items and calls). → Text
    DesignWorkbook,
    /// The workspace's design as the files `dynalab export` writes (infrastructure, access code): name and contents. → Files
    DesignExport,
    /// Replaces the workspace with a design: a design document's tables, generated items and
    /// design, or a workbook's (any format the importers read) tables, items and inventory; the
    /// current one kept for Restore previous. → Done
    OpenDesign { text: String },
    /// The workspace's design graded against the challenge it solves. → Graded
    GradeStudio,
    /// Replaces `table`'s items with items generated from its entity layout. → Done
    GenerateItems { table: String },
    /// Bytes of WebAssembly memory the worker holds. → Number
    Memory,
    /// Parts the saves wrote since this was last asked, and parts the last one found already
    /// saved, as `written skipped`. → Text
    LastSave,
}

/// Why opening a workspace stopped when the user cancelled it (the page words it for the source).
pub const CANCELLED: &str = "Cancelled";

/// A workspace's text form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Form {
    /// An exported file (`Workspace::to_json`).
    Json,
    /// A share link (`Workspace::to_compact`).
    Compact,
}

/// What a load writes.
#[derive(Debug, Serialize, Deserialize)]
pub enum Load {
    /// A fixture file, into `table` when the file names none.
    Fixture { text: String, table: Option<String> },
    /// Generated orders (the orders table is created when missing).
    Orders { users: usize, orders_per_user: usize, skew: f64, seed: u64 },
}

/// The one answer to an [`Ask`].
#[derive(Debug, Serialize, Deserialize)]
pub enum Answer {
    Ran(Outcome),
    Items(ItemsPage),
    Count(usize),
    /// Done, with what to tell the user, or why it was refused (nothing changed then).
    Done(Result<String, String>),
    Text(Result<String, String>),
    Verdicts {
        results: Vec<CheckResult>,
        picture: Option<String>,
    },
    Number(f64),
    /// A design's verdicts, or every problem it has (nothing ran).
    Design(Result<DesignView, Vec<String>>),
    Comparison(Result<ComparisonView, Vec<String>>),
    Graded(Result<GradeView, Vec<String>>),
    /// Files by name, with their contents, or why there are none.
    Files(Result<Vec<(String, String)>, String>),
}

/// What an empty workspace's Design tab answers (the page shows it as a start, not a failure).
pub const NOTHING_YET: &str =
    "Nothing to prove yet: make a table in the Tables tab (or paste the inventory below, or open a design), and each change is proved here.";

/// A checked design as the Patterns view draws it, made in the worker from the lab's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DesignView {
    pub name: String,
    /// `pass`, `warn` or `fail`.
    pub verdict: String,
    pub patterns: Vec<PatternView>,
    pub cost_headline: String,
    pub at_peak_total: String,
    pub capacity: Vec<String>,
    /// SVG, every text escaped by the lab.
    pub pictures: Vec<String>,
    pub prices: String,
    /// Each pattern's first call, as the console takes it: id, operation, request.
    pub console: Vec<(String, String, String)>,
    /// The design note and the JSON report, to download.
    pub markdown: String,
    pub json: String,
    /// What reading the design assumed or left out (defaults taken, rows without a call).
    pub notes: Vec<String>,
    /// The workspace's items changed since the proof (a console trial, an item edited): the
    /// verdicts are of the items the proof ran on.
    #[serde(default)]
    pub items_changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternView {
    pub id: String,
    pub description: String,
    pub operation: String,
    pub index: Option<String>,
    pub items: u64,
    pub read_units: f64,
    pub write_units: f64,
    /// `0.5 RCU` or `1 WCU` (a write counted in WCU even when refused).
    pub units: String,
    pub at_peak: String,
    pub peak_rps: f64,
    pub verdict: String,
    /// CSS class: `pass`, `warn`, `fail`.
    pub class: String,
    pub reasons: Vec<String>,
    pub monthly_at_peak: f64,
    pub money: String,
    /// The busiest partition key against its per-key ceiling (`USER#1 on orders: 400 of 3000 RCU/s`).
    pub busiest: String,
}

/// Two designs side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonView {
    pub names: (String, String),
    /// Pattern id, then each design's operation · cost · verdict.
    pub rows: Vec<(String, String, String)>,
    pub totals: String,
    pub markdown: String,
}

/// A challenge's grade as the Learn tab draws it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradeView {
    /// What the solution left out (a design's entity that maps no record, a pattern without a call).
    pub notes: Vec<String>,
    pub passed: bool,
    pub score: u32,
    pub patterns: Vec<PatternGradeView>,
    pub pictures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternGradeView {
    pub id: String,
    pub verdict: String,
    pub operation: String,
    pub units: f64,
    /// Right answers of all, and points of the pattern's.
    pub answers: String,
    pub points: String,
    pub reasons: String,
}

/// Told without being asked.
#[derive(Debug, Serialize, Deserialize)]
pub enum Event {
    /// The worker is listening (messages sent before are held by the page until then).
    Ready,
    /// What the views draw from changed.
    Facts(Facts),
    /// The history: one more entry, or all of it (a workspace was replaced).
    History(HistoryChange),
    /// A load's or a restore's progress; `None` when it ended.
    Progress(Option<Progressing>),
    /// A notice for the page (a save that could not be kept, a sweep...).
    Notice { ok: bool, text: String },
    /// IndexedDB refused: keep this under `key` in localStorage (`None` removes it).
    KeepLocal { key: String, text: Option<String> },
}

/// How far a long task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progressing {
    pub task: Task,
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Task {
    /// Writes of a fixture, a generation: cancellable.
    Load,
    /// Items of the saved workspace coming back.
    Restore,
    /// Items of an imported file, a share link or the previous workspace: cancellable (the
    /// workspace then stays as it was).
    Open,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum HistoryChange {
    Added(HistoryEntry),
    All(Vec<HistoryEntry>),
}

/// The small facts views read synchronously: tables (keys, indexes, DescribeTable), pack
/// progress, the lab clock, whether a load runs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Facts {
    pub tables: Vec<TableFacts>,
    pub progress: Progress,
    /// The workspace's design (its inventory, layouts and calls; alternatives).
    pub studio: Studio,
    pub advanced_ms: u64,
    pub loading: bool,
    /// Bumped when the whole workspace is replaced.
    pub epoch: u64,
    /// A workspace is kept for Restore previous.
    #[serde(default)]
    pub previous: bool,
}

/// A table as the views need it, from the engine's `outline` (no item is read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableFacts {
    pub name: String,
    pub partition_key: String,
    pub sort_key: Option<String>,
    /// `S`, `N` or `B`: partition, then sort.
    pub key_types: (String, Option<String>),
    pub indexes: Vec<IndexFacts>,
    /// Vector indexes: name, vector attribute, dimensions.
    #[serde(default)]
    pub vector_indexes: Vec<(String, String, usize)>,
    /// Their search schemas: index, attribute, whether it is the HASH one.
    #[serde(default)]
    pub vector_filters: Vec<(String, String, bool)>,
    pub latest_stream_arn: Option<String>,
    pub items: usize,
    pub bytes: usize,
    /// DescribeTable's `Table`, pretty-printed.
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexFacts {
    pub name: String,
    pub global: bool,
    pub partition_key: Vec<String>,
    pub sort_key: Vec<String>,
    pub items: usize,
    pub bytes: usize,
}

impl TableFacts {
    pub fn new(shape: &TableShape, description: String) -> Self {
        Self {
            name: shape.name.clone(),
            partition_key: shape.partition_key.clone(),
            sort_key: shape.sort_key.clone(),
            key_types: (shape.key_types.0.to_string(), shape.key_types.1.map(str::to_string)),
            indexes: shape
                .indexes
                .iter()
                .map(|i| IndexFacts {
                    name: i.name.clone(),
                    global: i.global,
                    partition_key: i.partition_key.clone(),
                    sort_key: i.sort_key.clone(),
                    items: i.totals.items,
                    bytes: i.totals.bytes,
                })
                .collect(),
            vector_indexes: shape.vector_indexes.clone(),
            vector_filters: shape.vector_filters.clone(),
            latest_stream_arn: shape.latest_stream_arn.clone(),
            items: shape.totals.items,
            bytes: shape.totals.bytes,
            description,
        }
    }

    /// The key attributes (partition, then sort), or `index`'s followed by the table's: the
    /// columns a grid shows first.
    pub fn key_names(&self, index: Option<&str>) -> Vec<String> {
        let mut names = Vec::new();
        if let Some(index) = index.and_then(|name| self.indexes.iter().find(|i| i.name == name)) {
            names.extend(index.partition_key.iter().chain(&index.sort_key).cloned());
        }
        for name in std::iter::once(&self.partition_key).chain(self.sort_key.as_ref()) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}

/// One request's outcome, as the console shows it. The response stays text until the page
/// draws it (it is parsed once, there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub operation: String,
    pub request: String,
    pub response: Result<Shown, ErrorShown>,
    pub steps: Vec<Step>,
    /// Time in the engine.
    pub millis: f64,
    /// Stream records the request produced, with their table.
    pub stream_records: Vec<(String, serde_json::Value)>,
}

/// A successful response as the page gets it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Shown {
    /// The response, whole: small enough to parse and draw at once.
    Whole(String),
    /// A large response (a 1 MB page): everything but its item lists (`Items`, `Responses`),
    /// whose items stay in the worker and are fetched a window at a time as they scroll into view.
    Large { head: String, rows: RemoteRows },
}

/// The items of a large response, kept in the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteRows {
    /// Which response ([`Ask::ResultRows`], [`Ask::ResultText`]).
    pub result: u64,
    pub count: usize,
    /// Key attributes first, then every other attribute name of the items, in first-seen order.
    pub columns: Vec<String>,
}

/// An error as DynamoDB names it, with what it carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorShown {
    pub name: String,
    pub message: String,
    pub body: serde_json::Value,
}

/// A window of a table's or an index's items, in storage order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemsPage {
    /// Where the window starts, and how many items there are in all.
    pub offset: usize,
    pub total: usize,
    /// The items (for an index: its entries) in DynamoDB JSON, with their sizes.
    pub items: Vec<(serde_json::Value, usize)>,
}

/// A message as the JSON text both sides send (serialising these types cannot fail).
pub fn encode<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).unwrap_or_default()
}
