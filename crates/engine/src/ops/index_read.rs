//! What Query and Scan share when they read a secondary index: choosing it, the checks that
//! depend on it, its ExclusiveStartKey, fetching from the table for an LSI, and its capacity.

use super::read_page::{Candidate, Page};
use crate::capacity::{Consumption, Units};
use crate::error::{DynamoError, Result};
use crate::expression::ast::Step;
use crate::expression::DocPath;
use crate::table::index::range_bytes;
use crate::table::PrimaryKey;
use crate::table::{Index, IndexKind, StoredItem, Table};
use crate::value::{Item, KeyValue};

/// Where an index read resumes: the partition, the RANGE values (also as key bytes) and the
/// table key of the entry read last.
pub struct IndexStart {
    pub hash: Vec<KeyValue>,
    pub range: Vec<KeyValue>,
    pub range_bytes: Vec<u8>,
    pub key: PrimaryKey,
}

impl IndexStart {
    /// Exactly after the entry read last.
    pub fn after(&self) -> std::ops::Bound<crate::table::index::EntryPlace> {
        std::ops::Bound::Excluded(crate::table::index::EntryPlace::at(self.range_bytes.clone(), &self.key))
    }
}

/// A read of a table or of one of its indexes.
pub struct Target<'t> {
    pub table: &'t Table,
    pub index: Option<&'t Index>,
    /// On an LSI: the attributes asked for are not all in the index, so each item is fetched.
    pub fetch_from_table: bool,
}

impl<'t> Target<'t> {
    /// Resolves `IndexName` and applies the checks that depend on the index.
    pub fn new(
        table: &'t Table,
        index_name: Option<&str>,
        select: Option<&str>,
        projection: Option<&[DocPath]>,
        consistent: bool,
    ) -> Result<Self> {
        let Some(name) = index_name else { return Ok(Self { table, index: None, fetch_from_table: false }) };
        let index = table
            .index(name)
            .ok_or_else(|| DynamoError::validation(format!("The table does not have the specified index: {name}")))?;
        let definition = &index.definition;
        let key_names = table.key_names();
        let all_projected = matches!(definition.projection, crate::table::Projection::All);
        if definition.kind == IndexKind::Global {
            if consistent {
                return Err(DynamoError::validation("Consistent reads are not supported on global secondary indexes"));
            }
            if select == Some("ALL_ATTRIBUTES") && !all_projected {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index {name} because its projection type is not ALL"
                )));
            }
        }
        let wants_more = match (select, projection) {
            (Some("ALL_ATTRIBUTES"), _) => !all_projected,
            (_, Some(paths)) => paths.iter().any(|p| match p.first() {
                Some(Step::Attr(attr)) => !definition.projects(attr, &key_names),
                _ => false,
            }),
            _ => false,
        };
        Ok(Self { table, index: Some(index), fetch_from_table: definition.kind == IndexKind::Local && wants_more })
    }

    /// The attributes of LastEvaluatedKey: the table key, then the index key.
    pub fn last_key_names(&self) -> Vec<&'t str> {
        let mut names = self.table.key_names();
        if let Some(index) = self.index {
            for attribute in index.definition.key_attributes() {
                if !names.contains(&attribute.name.as_str()) {
                    names.push(&attribute.name);
                }
            }
        }
        names
    }

    /// An index ExclusiveStartKey: exactly the table key and the index key.
    pub fn index_start(&self, start: Option<&Item>) -> Result<Option<IndexStart>> {
        const INVALID: &str = "The provided starting key is invalid";
        let (Some(index), Some(start)) = (self.index, start) else { return Ok(None) };
        let names = self.last_key_names();
        if start.len() != names.len() || names.iter().any(|n| !start.contains_key(n)) {
            return Err(DynamoError::validation(INVALID));
        }
        let table_key: Item = self
            .table
            .key_names()
            .iter()
            .filter_map(|n| start.get_key_value(n))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let primary = self
            .table
            .definition
            .key_schema
            .key_of_request(&table_key)
            .map_err(|_| DynamoError::validation(INVALID))?;
        let (hash, range) = index.definition.key_of(start).ok_or_else(|| DynamoError::validation(INVALID))?;
        Ok(Some(IndexStart { hash, range_bytes: range_bytes(&range), range, key: primary }))
    }

    /// The candidate for one index entry, with the table item when it must be fetched.
    pub fn candidate<'s>(&self, entry: &'s StoredItem) -> Candidate<'s>
    where
        't: 's,
    {
        let fetched = match (self.fetch_from_table, self.index) {
            // The entry holds the table key (every projection does).
            (true, Some(_)) => self.table.storage.get(&self.table.storage.key_of(entry)),
            _ => None,
        };
        Candidate { entry, fetched }
    }

    /// Where a page's units are charged: the table, or the index (plus the table for LSI fetches).
    pub fn consumption(&self, page: &Page<'_>, partition: &[KeyValue], consistent: bool) -> Consumption {
        let table = &self.table.definition.name;
        let why = "every item read, filtered out or not, summed and then rounded once";
        crate::explain::read(
            table,
            self.index.map(|i| i.definition.name.as_str()),
            partition,
            page.bytes,
            consistent,
            page.units,
            why,
        );
        for size in &page.fetched_sizes {
            let why = "LSI read of an attribute the index does not project: the table item fetched";
            crate::explain::read(table, None, partition, *size, consistent, Units::read(*size, consistent), why);
        }
        let Some(index) = self.index else { return Consumption::table_only(page.units) };
        let mut consumption = Consumption { table: page.fetched_units.unwrap_or(Units(0)), ..Consumption::default() };
        let name = index.definition.name.clone();
        match index.definition.kind {
            IndexKind::Global => consumption.global_indexes.insert(name, page.units),
            IndexKind::Local => consumption.local_indexes.insert(name, page.units),
        };
        consumption
    }
}
