//! The arithmetic behind `ConsumedCapacity`, step by step, so the playground can say why a request
//! cost what it did: bytes read → 4 KB units → halved when eventually consistent; writes in 1 KB
//! units; which indexes a write touched and why. Steps are recorded where the units are counted,
//! so the explanation cannot drift from the figure. Recording is off unless a caller asks for it.

use crate::capacity::Units;
use crate::engine::Engine;
use crate::value::KeyValue;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// One charge: where, how many bytes, how many units, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Step {
    pub table: String,
    /// The index charged, when it is an index.
    pub index: Option<String>,
    pub kind: StepKind,
    /// The partition key value the units landed on (`USER#1`; a multi-attribute key's values joined
    /// with ` | `), so a checker can add up the load per key. `None` for a Scan, spread over all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The bytes the units were computed from.
    pub bytes: usize,
    pub units: f64,
    pub why: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum StepKind {
    /// A read; `consistent` reads cost a full unit per 4 KB, eventually consistent ones half.
    Read {
        consistent: bool,
    },
    Write,
    /// A vector search, billed in bytes (`VectorSearchRequestBytes`), not in read units.
    VectorSearch,
    /// What a write replicated into a vector index, billed in bytes (`VectorWriteRequestBytes`).
    VectorWrite,
}

impl StepKind {
    /// Whether the step is billed in bytes of a vector index rather than in capacity units.
    pub fn is_vector(self) -> bool {
        matches!(self, StepKind::VectorSearch | StepKind::VectorWrite)
    }
}

impl Step {
    /// The step as JSON with its arithmetic in words, for front ends that hand it on (the npm
    /// package, the MCP server).
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if let Some(object) = value.as_object_mut() {
            object.insert("arithmetic".into(), serde_json::Value::String(self.arithmetic()));
        }
        value
    }

    /// The arithmetic in words, e.g. `5,000 B → 2 × 4 KB → ×½ eventually consistent = 1 RCU`.
    pub fn arithmetic(&self) -> String {
        match self.kind {
            StepKind::Read { consistent } => {
                let blocks = self.bytes.div_ceil(4096).max(1);
                let half = if consistent { "" } else { " → ×½ eventually consistent" };
                format!("{} B → {blocks} × 4 KB{half} = {} RCU", self.bytes, self.units)
            }
            StepKind::Write => {
                let blocks = self.bytes.div_ceil(1024).max(1);
                format!("{} B → {blocks} × 1 KB = {} WCU", self.bytes, self.units)
            }
            StepKind::VectorSearch => {
                format!("{} B VectorSearchRequestBytes (vector search bytes, no RCU)", self.bytes)
            }
            StepKind::VectorWrite => format!("{} B VectorWriteRequestBytes (vector write bytes, no WCU)", self.bytes),
        }
    }
}

thread_local! {
    static STEPS: RefCell<Option<Vec<Step>>> = const { RefCell::new(None) };
}

/// Records a step if a caller is collecting them; `make` runs only then.
pub(crate) fn record(make: impl FnOnce() -> Step) {
    STEPS.with(|steps| {
        if let Some(steps) = steps.borrow_mut().as_mut() {
            steps.push(make());
        }
    });
}

/// Whether a caller is collecting steps (to skip work that only an explanation needs).
pub(crate) fn recording() -> bool {
    STEPS.with(|steps| steps.borrow().is_some())
}

/// A partition key's values as a step names them.
pub(crate) fn partition_label(values: &[KeyValue]) -> Option<String> {
    if values.is_empty() {
        return None;
    }
    let shown: Vec<String> = values
        .iter()
        .map(|v| match v {
            KeyValue::S(s) => s.clone(),
            KeyValue::N(n) => n.to_string(),
            KeyValue::B(b) => b.iter().fold(String::new(), |mut hex, byte| {
                use std::fmt::Write as _;
                let _ = write!(hex, "{byte:02x}");
                hex
            }),
        })
        .collect();
    Some(shown.join(" | "))
}

/// A read step of `units` for `bytes` on the partition `partition` (empty: spread, a Scan).
pub(crate) fn read(
    table: &str,
    index: Option<&str>,
    partition: &[KeyValue],
    bytes: usize,
    consistent: bool,
    units: Units,
    why: &str,
) {
    record(|| Step {
        table: table.to_string(),
        index: index.map(String::from),
        partition: partition_label(partition),
        kind: StepKind::Read { consistent },
        bytes,
        units: units.as_f64(),
        why: why.to_string(),
    });
}

/// A vector index's charge of `bytes` (a search, or what a write replicated into it).
pub(crate) fn vector(
    table: &str,
    index: &str,
    kind: StepKind,
    partition: &[KeyValue],
    bytes: u64,
    why: impl Into<String>,
) {
    record(|| Step {
        table: table.to_string(),
        index: Some(index.to_string()),
        partition: partition_label(partition),
        kind,
        bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
        units: 0.0,
        why: why.into(),
    });
}

/// A write step of `units` for `bytes` on the partition `partition`.
pub(crate) fn write(
    table: &str,
    index: Option<&str>,
    partition: &[KeyValue],
    bytes: usize,
    units: Units,
    why: impl Into<String>,
) {
    record(|| Step {
        table: table.to_string(),
        index: index.map(String::from),
        partition: partition_label(partition),
        kind: StepKind::Write,
        bytes,
        units: units.as_f64(),
        why: why.into(),
    });
}

impl Engine {
    /// Runs `f` with the steps it charges collected.
    pub(crate) fn explained<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, Vec<Step>) {
        let outer = STEPS.with(|steps| steps.borrow_mut().replace(Vec::new()));
        let outcome = f(self);
        let steps = STEPS.with(|steps| std::mem::replace(&mut *steps.borrow_mut(), outer)).unwrap_or_default();
        (outcome, steps)
    }
}
