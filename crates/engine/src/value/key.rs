//! Key values: the three scalar types a key may have, ordered as DynamoDB orders them.

use super::{AttributeValue, Number};

/// The type of a key attribute, as in `AttributeDefinitions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    S,
    N,
    B,
}

impl ScalarType {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "S" => Some(Self::S),
            "N" => Some(Self::N),
            "B" => Some(Self::B),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::S => "S",
            Self::N => "N",
            Self::B => "B",
        }
    }
}

/// A partition or sort key value. `S` orders by UTF-8 bytes, `N` numerically, `B` as unsigned bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyValue {
    S(String),
    N(Number),
    B(Vec<u8>),
}

impl KeyValue {
    /// The key value of an attribute, if it has a key type.
    pub fn from_attribute(value: &AttributeValue) -> Option<Self> {
        match value {
            AttributeValue::S(s) => Some(Self::S(s.clone())),
            AttributeValue::N(n) => Some(Self::N(n.clone())),
            AttributeValue::B(b) => Some(Self::B(b.clone())),
            _ => None,
        }
    }

    pub fn to_attribute(&self) -> AttributeValue {
        match self {
            Self::S(s) => AttributeValue::S(s.clone()),
            Self::N(n) => AttributeValue::N(n.clone()),
            Self::B(b) => AttributeValue::B(b.clone()),
        }
    }

    pub fn scalar_type(&self) -> ScalarType {
        match self {
            Self::S(_) => ScalarType::S,
            Self::N(_) => ScalarType::N,
            Self::B(_) => ScalarType::B,
        }
    }

    /// A hash that is the same on every platform and every run, so Scan order is reproducible.
    pub fn stable_hash(&self) -> u64 {
        // FNV-1a over a type tag and the value's canonical bytes.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |bytes: &[u8]| {
            for b in bytes {
                hash ^= u64::from(*b);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        };
        match self {
            Self::S(s) => {
                feed(b"S");
                feed(s.as_bytes());
            }
            Self::N(n) => {
                feed(b"N");
                feed(n.to_string().as_bytes());
            }
            Self::B(b) => {
                feed(b"B");
                feed(b);
            }
        }
        // FNV's low bits mix poorly for short keys; fold the high half in so segments get an even share.
        hash ^ (hash >> 29)
    }
}
