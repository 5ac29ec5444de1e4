//! Attribute values: DynamoDB's ten types, their wire form and their size.

mod deferred;
mod item;
mod key;
mod md5;
mod number;
mod wire;

pub use deferred::{Deferred, StartKeyWords};
pub use key::{KeyValue, ScalarType};
pub use number::Number;
pub use wire::{item_to_json, older_layer, worded, ENVELOPED_MARK, VALIDATION_MARK};

pub use item::Item;

/// One DynamoDB value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    S(String),
    N(Number),
    B(Vec<u8>),
    Bool(bool),
    Null,
    Ss(Vec<String>),
    Ns(Vec<Number>),
    Bs(Vec<Vec<u8>>),
    L(Vec<AttributeValue>),
    M(Item),
}

impl AttributeValue {
    /// The type's name as DynamoDB spells it in JSON and messages (`S`, `NS`, `BOOL`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::S(_) => "S",
            Self::N(_) => "N",
            Self::B(_) => "B",
            Self::Bool(_) => "BOOL",
            Self::Null => "NULL",
            Self::Ss(_) => "SS",
            Self::Ns(_) => "NS",
            Self::Bs(_) => "BS",
            Self::L(_) => "L",
            Self::M(_) => "M",
        }
    }

    /// The type as update errors name it (`STRING`, `NUMBER`, `BOOLEAN`, …): see [`type_word`].
    pub fn type_word(&self) -> &'static str {
        type_word(self.type_name())
    }

    /// Bytes this value takes in an item (fact sheet §1); a map's keys count, the attribute's own name does not.
    pub fn size(&self) -> usize {
        match self {
            Self::S(s) => s.len(),
            Self::N(n) => n.stored_size(),
            Self::B(b) => b.len(),
            Self::Bool(_) | Self::Null => 1,
            Self::Ss(set) => set.iter().map(String::len).sum(),
            Self::Ns(set) => set.iter().map(Number::stored_size).sum(),
            Self::Bs(set) => set.iter().map(Vec::len).sum(),
            Self::L(list) => 3 + list.iter().map(|v| 1 + v.size()).sum::<usize>(),
            Self::M(map) => 3 + map.iter().map(|(k, v)| 1 + k.len() + v.size()).sum::<usize>(),
        }
    }

    /// How deep the value nests: a scalar is 1, a list holding a scalar is 2.
    pub fn depth(&self) -> usize {
        match self {
            Self::L(list) => 1 + list.iter().map(Self::depth).max().unwrap_or(0),
            Self::M(map) => 1 + map.values().map(Self::depth).max().unwrap_or(0),
            _ => 1,
        }
    }
}

/// The size of a whole item: every attribute's name and value.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value.size()).sum()
}

/// DynamoDB's answer to a value nested past its 32 levels.
pub const NESTED_TOO_DEEP: &str =
    "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit";

/// The most levels a value may nest: the top-level value is level 1, and DynamoDB accepts a leaf
/// at level 32 (31 wrappers).
pub const MAX_DEPTH: usize = 32;

/// Checks DynamoDB applies to every value it is about to store, beyond what parsing checks.
pub fn check_item_values(item: &Item) -> crate::error::Result<()> {
    use crate::error::DynamoError;
    for (name, value) in item {
        check_name(name)?;
        if value.depth() > MAX_DEPTH {
            return Err(DynamoError::validation(NESTED_TOO_DEEP));
        }
        check_map_keys(value)?;
    }
    Ok(())
}

/// The most bytes an attribute name may have: 64 KB less one (65,536 is refused; Alternator's
/// suite measured the service).
pub const MAX_ATTRIBUTE_NAME_BYTES: usize = 65_535;

/// An attribute name in an item, at any depth: not empty, at most 65,535 bytes. The wording of the
/// second is DynamoDB Local's for the same limit in `ExpressionAttributeNames` (no capture of the
/// item's own message was found; docs/fidelity.md).
fn check_name(name: &str) -> crate::error::Result<()> {
    if name.is_empty() {
        return Err(crate::error::DynamoError::validation("Empty attribute name"));
    }
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(crate::error::DynamoError::validation(format!(
            "One or more parameter values were invalid: Attribute name is too large, must be less than {} bytes",
            MAX_ATTRIBUTE_NAME_BYTES + 1
        )));
    }
    Ok(())
}

fn check_map_keys(value: &AttributeValue) -> crate::error::Result<()> {
    match value {
        AttributeValue::M(map) => {
            for (key, inner) in map {
                check_name(key)?;
                check_map_keys(inner)?;
            }
            Ok(())
        }
        AttributeValue::L(list) => list.iter().try_for_each(check_map_keys),
        _ => Ok(()),
    }
}

/// A type name (`S`, `BOOL`, …) as DynamoDB's update errors spell it: `STRING`, `NUMBER`,
/// `BINARY`, `BOOLEAN`, `NULL`, `LIST`, `MAP` (UpdateExpression's ADD and DELETE, AttributeUpdates'
/// actions). Set names, and anything else, come back as given.
pub fn type_word(type_name: &str) -> &str {
    match type_name {
        "S" => "STRING",
        "N" => "NUMBER",
        "B" => "BINARY",
        "BOOL" => "BOOLEAN",
        "L" => "LIST",
        "M" => "MAP",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn av(json: &str) -> AttributeValue {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn sizes_match_the_fact_sheet() {
        for (json, size) in [
            (r#"{"S":""}"#, 0),
            (r#"{"S":"abc"}"#, 3),
            (r#"{"S":"é"}"#, 2),
            (r#"{"S":"€"}"#, 3),
            (r#"{"S":"😀"}"#, 4),
            (r#"{"B":"AQID"}"#, 3),
            (r#"{"BOOL":true}"#, 1),
            (r#"{"NULL":true}"#, 1),
            (r#"{"L":[]}"#, 3),
            (r#"{"M":{}}"#, 3),
            (r#"{"L":[{"S":"x"}]}"#, 5),
            (r#"{"L":[{"S":"x"},{"S":"y"}]}"#, 7),
            (r#"{"M":{"b":{"S":"x"}}}"#, 6),
            (r#"{"M":{"bb":{"S":"x"},"c":{"N":"1"}}}"#, 11),
            (r#"{"L":[{"L":[]}]}"#, 7),
            (r#"{"L":[{"NULL":true}]}"#, 5),
            (r#"{"SS":["x"]}"#, 1),
            (r#"{"SS":["x","yy","zzz"]}"#, 6),
            (r#"{"NS":["1","22"]}"#, 4),
            (r#"{"BS":["YWI=","Yw=="]}"#, 3),
        ] {
            assert_eq!(av(json).size(), size, "{json}");
        }
    }

    #[test]
    fn item_size_counts_names() {
        let item: Item = serde_json::from_str(r#"{"é":{"S":"ab"},"n":{"N":"1"}}"#).unwrap();
        assert_eq!(item_size(&item), 2 + 2 + 1 + 2);
    }

    #[test]
    fn nesting_limit_is_32_levels() {
        let wrap = |levels: usize| {
            let mut json = r#"{"S":"x"}"#.to_string();
            for _ in 0..levels {
                json = format!(r#"{{"L":[{json}]}}"#);
            }
            let mut item = Item::new();
            item.insert("a".into(), av(&json));
            check_item_values(&item)
        };
        assert!(wrap(31).is_ok());
        assert_eq!(
            wrap(32).unwrap_err().message,
            "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
        );
    }
}
