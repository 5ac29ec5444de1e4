//! Turns a resolved KeyConditionExpression into the partition to read and the sort-key range,
//! with DynamoDB's messages for conditions a key cannot serve.

use super::ast::{CmpOp, Condition, Operand, Step};
use crate::error::{DynamoError, Result};
use crate::table::KeyAttribute;
use crate::value::{AttributeValue, KeyValue, ScalarType};
use std::ops::Bound;

/// A condition on the sort key.
#[derive(Debug, Clone, PartialEq)]
pub enum SortCondition {
    Eq(KeyValue),
    Lt(KeyValue),
    Le(KeyValue),
    Gt(KeyValue),
    Ge(KeyValue),
    Between(KeyValue, KeyValue),
    BeginsWith(KeyValue),
}

/// What a Query reads: one partition (a value per HASH attribute) and conditions on the first
/// RANGE attributes, all equalities but possibly the last.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyConditions {
    pub partition: Vec<KeyValue>,
    pub sort: Vec<SortCondition>,
}

impl KeyConditions {
    /// True if an entry's RANGE values satisfy every sort condition.
    pub fn range_matches(&self, range: &[KeyValue]) -> bool {
        self.sort.iter().zip(range).all(|(condition, value)| condition.matches(value)) && range.len() >= self.sort.len()
    }

    /// The entry positions (`table::index::EntryKey`) these conditions select, as one range of
    /// byte strings: every sort condition, `begins_with` included, is an exact range.
    pub fn position_bounds(&self) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
        use crate::table::key_bytes::{prefix_end, push, push_prefix};
        let mut fixed = Vec::new();
        let mut last = None;
        for condition in &self.sort {
            match condition {
                SortCondition::Eq(v) if last.is_none() => push(v, &mut fixed),
                other => last = Some(other),
            }
        }
        let with = |value: &KeyValue, prefix_only: bool| {
            let mut bytes = fixed.clone();
            if prefix_only {
                push_prefix(value, &mut bytes);
            } else {
                push(value, &mut bytes);
            }
            bytes
        };
        let end = |bytes: &[u8]| prefix_end(bytes).map_or(Bound::Unbounded, Bound::Excluded);
        // Past every position that starts with `bytes`. Every encoded value ends in a byte below
        // 0xFF somewhere (`key_bytes`), so there always is such a position.
        let after = |bytes: &[u8]| prefix_end(bytes).map_or(Bound::Unbounded, Bound::Included);
        match last {
            None => (Bound::Included(fixed.clone()), end(&fixed)),
            Some(SortCondition::Lt(v)) => (Bound::Included(fixed.clone()), Bound::Excluded(with(v, false))),
            Some(SortCondition::Le(v)) => (Bound::Included(fixed.clone()), end(&with(v, false))),
            Some(SortCondition::Gt(v)) => (after(&with(v, false)), end(&fixed)),
            Some(SortCondition::Ge(v)) => (Bound::Included(with(v, false)), end(&fixed)),
            Some(SortCondition::Between(a, b)) => (Bound::Included(with(a, false)), end(&with(b, false))),
            Some(SortCondition::BeginsWith(p)) => {
                let start = with(p, true);
                let stop = end(&start);
                (Bound::Included(start), stop)
            }
            Some(SortCondition::Eq(v)) => {
                let exact = with(v, false);
                let stop = end(&exact);
                (Bound::Included(exact), stop)
            }
        }
    }
}

/// One `attribute op value(s)` clause of a key condition.
struct Clause {
    attribute: String,
    op: ClauseOp,
    values: Vec<AttributeValue>,
}

#[derive(Clone, Copy, PartialEq)]
enum ClauseOp {
    Cmp(CmpOp),
    Between,
    BeginsWith,
}

fn invalid_operator(name: &str) -> DynamoError {
    DynamoError::validation(format!("Invalid operator used in KeyConditionExpression: {name}"))
}

fn flatten(condition: &Condition, clauses: &mut Vec<Clause>) -> Result<()> {
    let single = |operand: &Operand| match operand {
        Operand::Path(path) => match path.as_slice() {
            [Step::Attr(name)] => Some(name.clone()),
            _ => None,
        },
        _ => None,
    };
    let value = |operand: &Operand| match operand {
        Operand::Value(v) => Some(v.clone()),
        _ => None,
    };
    let missed = || DynamoError::validation("Query condition missed key schema element");
    // A nested path (`pk.x`, `sk[0]`) is named as such by DynamoDB, not as a missed key element.
    let nested = |operands: &[&Operand]| {
        operands
            .iter()
            .any(|o| matches!(o, Operand::Path(path) if path.len() > 1))
            .then(|| DynamoError::validation("KeyConditionExpressions cannot have conditions on nested attributes"))
    };
    match condition {
        Condition::And(a, b) => {
            flatten(a, clauses)?;
            flatten(b, clauses)
        }
        Condition::Or(..) => Err(invalid_operator("OR")),
        Condition::Not(..) => Err(invalid_operator("NOT")),
        Condition::In(..) => Err(invalid_operator("IN")),
        Condition::Exists(_) => Err(invalid_operator("attribute_exists")),
        Condition::NotExists(_) => Err(invalid_operator("attribute_not_exists")),
        Condition::AttributeType(..) => Err(invalid_operator("attribute_type")),
        Condition::Contains(..) => Err(invalid_operator("contains")),
        Condition::Compare(CmpOp::Ne, ..) => Err(invalid_operator("<>")),
        Condition::Compare(op, a, b) => {
            // `:v = k` reads as `k = :v`; the operator flips with the sides.
            let (attribute, v, op) = match (single(a), value(b), single(b), value(a)) {
                (Some(attr), Some(v), _, _) => (attr, v, *op),
                (_, _, Some(attr), Some(v)) => (attr, v, flip(*op)),
                _ => return Err(nested(&[a, b]).unwrap_or_else(missed)),
            };
            clauses.push(Clause { attribute, op: ClauseOp::Cmp(op), values: vec![v] });
            Ok(())
        }
        Condition::Between(a, lo, hi) => {
            let (Some(attribute), Some(lo), Some(hi)) = (single(a), value(lo), value(hi)) else {
                return Err(nested(&[a, lo, hi]).unwrap_or_else(missed));
            };
            clauses.push(Clause { attribute, op: ClauseOp::Between, values: vec![lo, hi] });
            Ok(())
        }
        Condition::BeginsWith(a, prefix) => {
            let (Some(attribute), Some(prefix)) = (single(a), value(prefix)) else {
                return Err(nested(&[a, prefix]).unwrap_or_else(missed));
            };
            clauses.push(Clause { attribute, op: ClauseOp::BeginsWith, values: vec![prefix] });
            Ok(())
        }
    }
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// Checks a key condition against a table's or an index's key attributes and extracts what to
/// read. A key with more than one attribute of a kind follows the multi-attribute rules: every
/// HASH attribute by equality, RANGE attributes left to right, only the last by a range operator.
pub fn analyse(condition: &Condition, hash: &[KeyAttribute], range: &[KeyAttribute]) -> Result<KeyConditions> {
    let mut clauses = Vec::new();
    flatten(condition, &mut clauses)?;
    for (i, clause) in clauses.iter().enumerate() {
        if clauses[..i].iter().any(|c| c.attribute == clause.attribute) {
            return Err(DynamoError::validation("KeyConditionExpressions must only contain one condition per key"));
        }
    }
    let defined = hash.len() + range.len();
    if clauses.len() > defined {
        return Err(DynamoError::validation(format!(
            "The number of query conditions ({}) exceeds the number of key attributes defined in the schema ({defined})",
            clauses.len()
        )));
    }
    let clause_for = |name: &str| clauses.iter().find(|c| c.attribute == name);
    let is_equality = |name: &str| clause_for(name).is_some_and(|c| c.op == ClauseOp::Cmp(CmpOp::Eq));
    let multi = hash.len() > 1 || range.len() > 1;
    if multi {
        let missing: Vec<&str> = hash.iter().filter(|a| !is_equality(&a.name)).map(|a| a.name.as_str()).collect();
        if !missing.is_empty() {
            return Err(DynamoError::validation(format!(
                "HASH key attributes {} must have equality conditions specified in the query",
                missing.join(", ")
            )));
        }
    } else if let Some(attribute) = hash.first() {
        match clause_for(&attribute.name) {
            Some(c) if c.op == ClauseOp::Cmp(CmpOp::Eq) => {}
            Some(_) => return Err(DynamoError::validation("Query key condition not supported")),
            None => {
                return Err(DynamoError::validation(format!(
                    "Query condition missed key schema element: {}",
                    attribute.name
                )))
            }
        }
    }
    let is_key = |name: &str| hash.iter().chain(range).any(|a| a.name == name);
    if clauses.iter().any(|c| !is_key(&c.attribute)) {
        let unmatched = range.iter().find(|a| clause_for(&a.name).is_none()).map_or("", |a| a.name.as_str());
        return Err(DynamoError::validation(format!("Query condition missed key schema element: {unmatched}")));
    }
    // RANGE attributes with a condition must be a prefix, all equalities but the last.
    let last_constrained = range.iter().rposition(|a| clause_for(&a.name).is_some());
    if let Some(last) = last_constrained {
        let lacking: Vec<&str> =
            range[..last].iter().filter(|a| !is_equality(&a.name)).map(|a| a.name.as_str()).collect();
        if !lacking.is_empty() {
            return Err(DynamoError::validation(format!(
                "RANGE key attributes {} must have equality conditions specified in the query because a condition is present on key attribute {}",
                lacking.join(", "),
                range[last].name
            )));
        }
    }
    let type_mismatch = || {
        DynamoError::validation(
            "One or more parameter values were invalid: Condition parameter type does not match schema type",
        )
    };
    let key_value = |value: &AttributeValue, kind: ScalarType| {
        KeyValue::from_attribute(value).filter(|k| k.scalar_type() == kind).ok_or_else(type_mismatch)
    };
    let mut partition = Vec::with_capacity(hash.len());
    for attribute in hash {
        let clause = clause_for(&attribute.name).ok_or_else(type_mismatch)?;
        partition.push(key_value(&clause.values[0], attribute.kind)?);
    }
    let mut sort = Vec::new();
    for attribute in &range[..last_constrained.map_or(0, |l| l + 1)] {
        let Some(clause) = clause_for(&attribute.name) else { break };
        let values: Vec<KeyValue> =
            clause.values.iter().map(|v| key_value(v, attribute.kind)).collect::<Result<_>>()?;
        let first = values[0].clone();
        sort.push(match clause.op {
            ClauseOp::Cmp(CmpOp::Eq) => SortCondition::Eq(first),
            ClauseOp::Cmp(CmpOp::Lt) => SortCondition::Lt(first),
            ClauseOp::Cmp(CmpOp::Le) => SortCondition::Le(first),
            ClauseOp::Cmp(CmpOp::Gt) => SortCondition::Gt(first),
            ClauseOp::Cmp(CmpOp::Ge) => SortCondition::Ge(first),
            ClauseOp::Cmp(CmpOp::Ne) => return Err(invalid_operator("<>")),
            ClauseOp::Between => SortCondition::Between(first, values[1].clone()),
            ClauseOp::BeginsWith => {
                if attribute.kind == ScalarType::N {
                    return Err(DynamoError::validation(
                        "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
                    ));
                }
                SortCondition::BeginsWith(first)
            }
        });
    }
    Ok(KeyConditions { partition, sort })
}

impl SortCondition {
    /// True if `key` satisfies the condition.
    pub fn matches(&self, key: &KeyValue) -> bool {
        match self {
            Self::Eq(v) => key == v,
            Self::Lt(v) => key < v,
            Self::Le(v) => key <= v,
            Self::Gt(v) => key > v,
            Self::Ge(v) => key >= v,
            Self::Between(lo, hi) => key >= lo && key <= hi,
            Self::BeginsWith(prefix) => match (key, prefix) {
                (KeyValue::S(s), KeyValue::S(p)) => s.starts_with(p.as_str()),
                (KeyValue::B(b), KeyValue::B(p)) => b.starts_with(p),
                _ => false,
            },
        }
    }

    /// The exact range of sort keys that match.
    pub fn bounds(&self) -> (Bound<Option<KeyValue>>, Bound<Option<KeyValue>>) {
        let some = |v: &KeyValue| Some(v.clone());
        match self {
            Self::Eq(v) => (Bound::Included(some(v)), Bound::Included(some(v))),
            Self::Lt(v) => (Bound::Unbounded, Bound::Excluded(some(v))),
            Self::Le(v) => (Bound::Unbounded, Bound::Included(some(v))),
            Self::Gt(v) => (Bound::Excluded(some(v)), Bound::Unbounded),
            Self::Ge(v) => (Bound::Included(some(v)), Bound::Unbounded),
            Self::BeginsWith(v) => {
                (Bound::Included(some(v)), prefix_successor(v).map_or(Bound::Unbounded, |u| Bound::Excluded(Some(u))))
            }
            Self::Between(lo, hi) => {
                if lo > hi {
                    (Bound::Excluded(some(lo)), Bound::Excluded(some(lo)))
                } else {
                    (Bound::Included(some(lo)), Bound::Included(some(hi)))
                }
            }
        }
    }
}

/// The smallest key greater than every key starting with `prefix` (strings compare by code point,
/// which is UTF-8 byte order; binaries by unsigned byte), or `None` when no key is.
fn prefix_successor(prefix: &KeyValue) -> Option<KeyValue> {
    match prefix {
        KeyValue::S(text) => {
            let mut chars: Vec<char> = text.chars().collect();
            while let Some(last) = chars.pop() {
                let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
                if let Some(next) = next {
                    chars.push(next);
                    return Some(KeyValue::S(chars.into_iter().collect()));
                }
            }
            None
        }
        KeyValue::B(bytes) => {
            let mut bytes = bytes.clone();
            while let Some(last) = bytes.pop() {
                if last < u8::MAX {
                    bytes.push(last + 1);
                    return Some(KeyValue::B(bytes));
                }
            }
            None
        }
        KeyValue::N(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> KeyValue {
        KeyValue::S(text.to_string())
    }

    #[test]
    fn a_prefix_successor_bounds_exactly_the_keys_with_the_prefix() {
        assert_eq!(prefix_successor(&s("ORDER#")), Some(s("ORDER$")));
        assert_eq!(prefix_successor(&s("a\u{10FFFF}")), Some(s("b")));
        assert_eq!(prefix_successor(&s("\u{D7FF}")), Some(s("\u{E000}")), "surrogates are skipped");
        assert_eq!(prefix_successor(&s("\u{10FFFF}")), None);
        assert_eq!(prefix_successor(&KeyValue::B(vec![1, 0xFF])), Some(KeyValue::B(vec![2])));
        assert_eq!(prefix_successor(&KeyValue::B(vec![0xFF])), None);
        let keys = ["ORDER", "ORDER#", "ORDER#1", "ORDER#\u{10FFFF}x", "ORDER$", "ORDERa", "PROFILE"];
        let upper = prefix_successor(&s("ORDER#")).expect("successor");
        let inside: Vec<&str> = keys.iter().copied().filter(|k| s(k) >= s("ORDER#") && s(k) < upper).collect();
        assert_eq!(inside, ["ORDER#", "ORDER#1", "ORDER#\u{10FFFF}x"]);
    }
}
