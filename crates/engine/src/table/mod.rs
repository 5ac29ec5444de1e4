//! Tables: definition plus storage.

pub mod schema;
pub mod storage;

pub use schema::{BillingMode, KeyAttribute, KeySchema, PrimaryKey, TableDefinition};
pub use storage::{ItemJson, PartitionSlot, Storage, StoredItem};

/// A table with its items.
#[derive(Debug, Clone)]
pub struct Table {
    pub definition: TableDefinition,
    pub storage: Storage,
}
