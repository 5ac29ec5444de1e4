//! Attribute names, interned: a stored item refers to each top-level name by a small number, so a
//! name an item shares with a million others is kept once (docs/storage.md).
//!
//! Append-only: a number, once given, always means the same name, so items and the engines cloned
//! from one another can share one table of names. Names are never taken back (a table that saw
//! many distinct names keeps them until it is deleted); they are few in any real design.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

#[derive(Debug, Default)]
struct Inner {
    ids: HashMap<Box<str>, u32>,
    /// Each name as it appears in a JSON object: quoted, escaped, followed by `:`.
    json_keys: Vec<Box<str>>,
    names: Vec<Box<str>>,
}

/// One table's attribute names.
#[derive(Debug, Default)]
pub struct Names(RwLock<Inner>);

impl Names {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The number of `name`, given it a new one if it has none.
    ///
    /// # Panics
    /// Past 2^32 distinct names, which no memory holds.
    pub fn intern(&self, name: &str) -> u32 {
        if let Some(id) = self.read().ids().get(name) {
            return *id;
        }
        let mut inner = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(id) = inner.ids.get(name) {
            return *id;
        }
        let id = u32::try_from(inner.names.len()).expect("fewer than 2^32 attribute names");
        let quoted = serde_json::to_string(name).unwrap_or_default();
        inner.json_keys.push(format!("{quoted}:").into_boxed_str());
        inner.names.push(name.into());
        inner.ids.insert(name.into(), id);
        id
    }

    /// Reads the table for a while (one item's worth of lookups).
    pub fn read(&self) -> NamesRead<'_> {
        NamesRead(self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// The names, locked for reading.
pub struct NamesRead<'n>(std::sync::RwLockReadGuard<'n, Inner>);

impl NamesRead<'_> {
    pub fn name(&self, id: u32) -> &str {
        &self.0.names[id as usize]
    }

    /// `"name":` as JSON, ready to copy into a response.
    pub fn json_key(&self, id: u32) -> &str {
        &self.0.json_keys[id as usize]
    }

    pub fn ids(&self) -> &HashMap<Box<str>, u32> {
        &self.0.ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_number_and_its_json_form() {
        let names = Names::new();
        let a = names.intern("status");
        let b = names.intern("say \"hi\"");
        assert_eq!(names.intern("status"), a);
        assert_ne!(a, b);
        let read = names.read();
        assert_eq!(read.name(b), "say \"hi\"");
        assert_eq!(read.json_key(b), r#""say \"hi\"":"#);
    }
}
