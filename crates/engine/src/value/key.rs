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

thread_local! {
    /// The last key bytes hashed for `KeyValue::scan_hash` and their hash: one write looks its key
    /// up two or three times (the read before it, index upkeep, the write), and the MD5 is most of
    /// a lookup's cost. Compared byte for byte, so a hit is always the key's own hash.
    static LAST_SCAN_HASH: std::cell::RefCell<(Vec<u8>, Option<u64>)> = const { std::cell::RefCell::new((Vec::new(), None)) };
}

/// The first eight bytes of MD5("Outliers" + `bytes`), big-endian.
fn md5_place(bytes: &[u8]) -> u64 {
    let digest = super::md5::digest(&[b"Outliers", bytes]);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
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

    /// Where DynamoDB puts this partition key in its hash space: the MD5 of `Outliers` followed by
    /// the key's bytes (a string's UTF-8, a binary's bytes, a number in DynamoDB's own encoding,
    /// `Number::dynamodb_bytes`), its first eight bytes read big-endian. Scan returns partitions in
    /// this order and parallel-scan segments split it, so tests written against the service that
    /// depend on the order of a small table's partitions (`A` before `B`) hold. The function is the
    /// one dynalite orders its Scans by, an emulator whose suite also runs against the service
    /// (docs/fidelity.md).
    pub fn scan_hash(&self) -> u64 {
        let number;
        let bytes: &[u8] = match self {
            Self::S(s) => s.as_bytes(),
            Self::N(n) => {
                number = n.dynamodb_bytes_on_stack();
                &number.0[..number.1]
            }
            Self::B(b) => b,
        };
        LAST_SCAN_HASH.with(|last| {
            let Ok(mut last) = last.try_borrow_mut() else { return md5_place(bytes) };
            let (last_bytes, last_hash) = &mut *last;
            match last_hash {
                Some(hash) if last_bytes.as_slice() == bytes => *hash,
                _ => {
                    let hash = md5_place(bytes);
                    last_bytes.clear();
                    last_bytes.extend_from_slice(bytes);
                    *last_hash = Some(hash);
                    hash
                }
            }
        })
    }

    /// A cheap hash that is the same on every platform and every run (stream labels and event ids).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_hash_is_the_md5_of_outliers_and_the_key_bytes() {
        // The digests' first eight bytes, as `md5sum` gives them for "Outliers" + the key's bytes.
        assert_eq!(KeyValue::S("A".into()).scan_hash(), 0x0cb5_bbe4_8b87_2698);
        assert_eq!(KeyValue::N(Number::parse("1").unwrap()).scan_hash(), 0xc3a0_310a_ed78_739b);
        assert_eq!(KeyValue::N(Number::parse("-1").unwrap()).scan_hash(), 0x0267_df4c_9555_9d50);
        assert_eq!(KeyValue::N(Number::parse("0").unwrap()).scan_hash(), 0xce21_2d75_1674_ab5d);
        assert_eq!(KeyValue::B(b"A".to_vec()).scan_hash(), KeyValue::S("A".into()).scan_hash());
        // The last key's hash is kept: asked again, and after another key, the answers hold.
        for _ in 0..2 {
            assert_eq!(KeyValue::S("A".into()).scan_hash(), 0x0cb5_bbe4_8b87_2698);
            assert_eq!(KeyValue::N(Number::parse("1").unwrap()).scan_hash(), 0xc3a0_310a_ed78_739b);
        }
        assert_eq!(
            KeyValue::B(Vec::new()).scan_hash(),
            md5_place(b""),
            "an empty key is hashed, not taken from the empty start"
        );
    }

    #[test]
    fn small_string_keys_scan_in_the_order_the_service_returns_them() {
        let order = |keys: &[&'static str]| -> Vec<&'static str> {
            let mut sorted: Vec<&str> = keys.to_vec();
            sorted.sort_by_key(|k| KeyValue::S((*k).into()).scan_hash());
            sorted
        };
        assert_eq!(order(&["C", "B", "A"]), ["A", "B", "C"]);
    }
}
