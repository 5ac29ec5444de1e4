//! Tables: definition plus storage, and the one write path every operation goes through.

pub mod schema;
pub mod storage;

pub use schema::{BillingMode, KeyAttribute, KeySchema, PrimaryKey, TableDefinition};
pub use storage::{ItemJson, PartitionSlot, Storage, StoredItem};

use crate::capacity::{Consumption, Units};
use crate::value::{item_size, Item};

/// A table with its items.
#[derive(Debug, Clone)]
pub struct Table {
    pub definition: TableDefinition,
    pub storage: Storage,
}

/// What one item write did: the item it replaced and the units it consumed.
#[derive(Debug)]
pub struct Written {
    pub old: Option<StoredItem>,
    pub consumption: Consumption,
}

impl Table {
    /// Stores `new` at `key` (or removes the item when `new` is `None`). Every write, single or
    /// in a batch or transaction, goes through here, so capacity is counted in one place: the
    /// larger of the old and new item in 1 KB units, one unit for removing nothing.
    pub fn write(&mut self, key: PrimaryKey, new: Option<Item>) -> Written {
        let new_size = new.as_ref().map_or(0, item_size);
        let old = match new {
            Some(item) => self.storage.put(key, item),
            None => self.storage.delete(&key),
        };
        let units = Units::write(new_size.max(old.as_ref().map_or(0, |o| o.size)));
        Written { old, consumption: Consumption::table_only(units) }
    }
}
