//! The one ordering a sorted set of stored items shares with the probes that look into it.
//!
//! A set keeps only items; their keys are read from the items' forms. So that a lookup or a range
//! can be given key values instead of an item, entries and probes both implement a `Place` trait,
//! and the set's element type borrows as `dyn Place` (`BTreeSet::get`, `range` and `take` then
//! accept a probe). This macro writes the trait object's and the entry's orderings from one
//! comparison, so the two can never disagree.

/// `ordered_by_place!(Entry, Place, compare)`: `Entry` and `dyn Place` ordered by
/// `compare(&dyn Place, &dyn Place) -> Ordering`, `Entry: Borrow<dyn Place>`, and
/// `range_of(set, lower, upper)`, the entries between two places (the places are borrowed only
/// while the range is found).
macro_rules! ordered_by_place {
    ($entry:ty, $place:ident, $compare:path) => {
        impl PartialEq for dyn $place + '_ {
            fn eq(&self, other: &Self) -> bool {
                $compare(self, other) == std::cmp::Ordering::Equal
            }
        }
        impl Eq for dyn $place + '_ {}
        impl PartialOrd for dyn $place + '_ {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for dyn $place + '_ {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                $compare(self, other)
            }
        }
        impl PartialEq for $entry {
            fn eq(&self, other: &Self) -> bool {
                $compare(self, other) == std::cmp::Ordering::Equal
            }
        }
        impl Eq for $entry {}
        impl PartialOrd for $entry {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $entry {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                $compare(self, other)
            }
        }
        impl<'a> std::borrow::Borrow<dyn $place + 'a> for $entry {
            fn borrow(&self) -> &(dyn $place + 'a) {
                self
            }
        }
        fn range_of<'s, 'p>(
            entries: &'s std::collections::BTreeSet<$entry>,
            lower: std::ops::Bound<&'p (dyn $place + 'p)>,
            upper: std::ops::Bound<&'p (dyn $place + 'p)>,
        ) -> std::collections::btree_set::Range<'s, $entry> {
            entries.range::<dyn $place + 'p, _>((lower, upper))
        }
    };
}

pub(crate) use ordered_by_place;
