//! An item (or a map value): attribute names to values, kept as one sorted vector allocated to
//! size. A `BTreeMap` costs a whole node (room for 11 entries, ~700 B) even for a three-attribute
//! item; items are small and many, so a sorted vector with binary search is both smaller and, at
//! these sizes, faster. Iteration is in name order, as the map's was.

use super::AttributeValue;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Item(Vec<(String, AttributeValue)>);

impl Item {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    pub fn get(&self, name: &str) -> Option<&AttributeValue> {
        self.find(name).ok().map(|i| &self.0[i].1)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut AttributeValue> {
        self.find(name).ok().map(|i| &mut self.0[i].1)
    }

    pub fn get_key_value(&self, name: &str) -> Option<(&String, &AttributeValue)> {
        self.find(name).ok().map(|i| (&self.0[i].0, &self.0[i].1))
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Sets `name`, returning the value it replaced.
    pub fn insert(&mut self, name: String, value: AttributeValue) -> Option<AttributeValue> {
        match self.find(&name) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (name, value));
                None
            }
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<AttributeValue> {
        self.find(name).ok().map(|i| self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &AttributeValue)> + ExactSizeIterator + Clone {
        self.0.iter().map(|(n, v)| (n, v))
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&String, &mut AttributeValue)> + ExactSizeIterator {
        self.0.iter_mut().map(|(n, v)| (&*n, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator + Clone {
        self.0.iter().map(|(n, _)| n)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &AttributeValue> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut AttributeValue) -> bool) {
        self.0.retain_mut(|(n, v)| keep(n, v));
    }

    /// Gives back spare capacity, for items about to be stored.
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl FromIterator<(String, AttributeValue)> for Item {
    /// Later values win over earlier ones with the same name, as with a map.
    fn from_iter<I: IntoIterator<Item = (String, AttributeValue)>>(iter: I) -> Self {
        let mut entries: Vec<(String, AttributeValue)> = iter.into_iter().collect();
        // Items decoded from storage arrive in order already: nothing to sort or drop.
        if !entries.windows(2).all(|pair| pair[0].0 < pair[1].0) {
            // A stable sort keeps equal names in arrival order; the last of each run is kept
            // (moved into the place of the first, as `dedup_by` keeps the first).
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(later, kept);
                }
                same
            });
        }
        entries.shrink_to_fit();
        Self(entries)
    }
}

impl<const N: usize> From<[(String, AttributeValue); N]> for Item {
    fn from(entries: [(String, AttributeValue); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl Extend<(String, AttributeValue)> for Item {
    fn extend<I: IntoIterator<Item = (String, AttributeValue)>>(&mut self, iter: I) {
        for (name, value) in iter {
            self.insert(name, value);
        }
    }
}

impl IntoIterator for Item {
    type Item = (String, AttributeValue);
    type IntoIter = std::vec::IntoIter<(String, AttributeValue)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Item {
    type Item = (&'a String, &'a AttributeValue);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, AttributeValue)>,
        fn(&'a (String, AttributeValue)) -> (&'a String, &'a AttributeValue),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(n, v)| (n, v))
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Item {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemVisitor;
        impl<'de> Visitor<'de> for ItemVisitor {
            type Value = Item;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of attribute names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
                let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
                while let Some(entry) = map.next_entry::<String, AttributeValue>()? {
                    entries.push(entry);
                }
                Ok(entries.into_iter().collect())
            }
        }
        deserializer.deserialize_map(ItemVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    #[test]
    fn behaves_as_an_ordered_map() {
        let mut item: Item =
            [("b".to_string(), s("1")), ("a".to_string(), s("2")), ("b".to_string(), s("3"))].into_iter().collect();
        assert_eq!(item.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(item.get("b"), Some(&s("3")), "the last of equal names wins");
        assert_eq!(item.insert("c".into(), s("4")), None);
        assert_eq!(item.insert("a".into(), s("5")), Some(s("2")));
        assert_eq!(item.remove("b"), Some(s("3")));
        assert!(!item.contains_key("b"));
        assert_eq!(item.iter().map(|(k, _)| k.as_str()).collect::<String>(), "ac");
        let json = serde_json::to_string(&item).expect("json");
        assert_eq!(json, r#"{"a":{"S":"5"},"c":{"S":"4"}}"#);
        assert_eq!(serde_json::from_str::<Item>(&json).expect("back"), item);
    }

    #[test]
    fn the_last_of_a_longer_run_of_one_name_wins() {
        let names = ["c", "b", "c", "a", "c", "b"];
        let item: Item = names.iter().enumerate().map(|(n, name)| ((*name).to_string(), s(&n.to_string()))).collect();
        assert_eq!(
            item.iter().map(|(k, v)| (k.as_str(), v.clone())).collect::<Vec<_>>(),
            [("a", s("3")), ("b", s("5")), ("c", s("4"))]
        );
    }
}
