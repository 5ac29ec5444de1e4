//! A keyed SELECT: one whose every OR branch pins the partition key (`pk = v` or `pk IN [...]`).
//! DynamoDB reads such a statement as one read per branch, and checks two things before any read:
//! each key value has the key's type ("Key attribute's data type should match its data type in
//! table's schema: Key pk"), and no two branches of one partition overlap on the sort key
//! ("Overlapping conditions with range keys are not supported in where clause"). A branch without
//! a sort-key condition reads the whole partition; a branch whose sort-key condition is negated or
//! written with `<>` is not a range and overlaps nothing (the autumn-2026 conformance suite,
//! verified in eu-west-2 and us-east-1; DynamoDB Local's PartiQL layer words the type check alike).
//! A statement that is not keyed is a scan, and neither check applies.

use super::parse::{Expr, PathStep};
use crate::error::{DynamoError, Result};
use crate::expression::key_condition::SortCondition;
use crate::ops::query::range_is_empty;
use crate::table::KeyAttribute;
use crate::value::{AttributeValue, KeyValue};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;

/// The sort keys one read of a branch covers.
type SortRange = (Bound<KeyValue>, Bound<KeyValue>);

/// A literal or parameter where a key value goes.
enum Operand {
    /// Not known here (a parameter not given): nothing to check.
    Unread,
    /// No scalar a key could hold (a list, a map, a set, a boolean, NULL).
    NotScalar,
    Key(KeyValue),
}

/// More OR branches than this are not expanded: the checks are skipped (DynamoDB refuses such a
/// statement for its number of reads, a limit the evidence does not state).
const MAX_BRANCHES: usize = 256;

/// The checks DynamoDB makes on a keyed SELECT; `value` gives a literal's or parameter's DynamoDB JSON.
pub(super) fn check(
    filter: &Expr,
    hash: &KeyAttribute,
    range: Option<&KeyAttribute>,
    value: &dyn Fn(&Expr) -> Result<Value>,
) -> Result<()> {
    let keys: Vec<&str> = std::iter::once(hash.name.as_str()).chain(range.map(|r| r.name.as_str())).collect();
    let Some(branches) = branches(filter, &keys) else { return Ok(()) };
    if !branches.iter().all(|branch| branch.iter().any(|leaf| pinned(leaf, &hash.name).is_some())) {
        return Ok(());
    }
    for branch in &branches {
        for attribute in std::iter::once(hash).chain(range) {
            for leaf in branch {
                for operand in key_operands(leaf, &attribute.name) {
                    let mistyped = match key_value(&value(operand)?) {
                        Operand::Unread => false,
                        Operand::NotScalar => true,
                        Operand::Key(key) => key.scalar_type() != attribute.kind,
                    };
                    if mistyped {
                        return Err(DynamoError::validation(format!(
                            "Key attribute's data type should match its data type in table's schema: Key {}",
                            attribute.name
                        )));
                    }
                }
            }
        }
    }
    let mut reads: BTreeMap<KeyValue, Vec<SortRange>> = BTreeMap::new();
    for branch in &branches {
        let Some(partitions) = branch.iter().find_map(|leaf| pinned(leaf, &hash.name)) else { continue };
        let ranges = match range {
            Some(sort) => sort_ranges(branch, &sort.name, value)?,
            None => Some(vec![(Bound::Unbounded, Bound::Unbounded)]),
        };
        let Some(ranges) = ranges else { continue };
        for partition in partitions {
            let Operand::Key(partition) = key_value(&value(partition)?) else { continue };
            reads.entry(partition).or_default().extend(ranges.iter().cloned());
        }
    }
    for ranges in reads.values_mut() {
        ranges.sort_by(|a, b| lower_order(&a.0, &b.0));
        let mut reach: Option<&Bound<KeyValue>> = None;
        for (lower, upper) in ranges.iter() {
            if reach.is_some_and(|r| starts_before(lower, r)) {
                return Err(DynamoError::validation(
                    "Overlapping conditions with range keys are not supported in where clause",
                ));
            }
            if reach.is_none_or(|r| ends_after(upper, r)) {
                reach = Some(upper);
            }
        }
    }
    Ok(())
}

/// The WHERE clause as OR-ed branches of AND-ed leaves; `None` past MAX_BRANCHES. A NOT is a
/// leaf, and so is a part that names no key attribute: an OR of filters on other attributes is one
/// filter of its branch (`pk = 'a' AND (x = 1 OR y = 2)` is one read, 2026 evidence), while an OR
/// that names a key is as many reads as it has branches.
fn branches<'e>(expr: &'e Expr, keys: &[&str]) -> Option<Vec<Vec<&'e Expr>>> {
    if !keys.iter().any(|k| mentions(expr, k)) {
        return Some(vec![vec![expr]]);
    }
    match expr {
        Expr::Or(l, r) => {
            let mut all = branches(l, keys)?;
            all.extend(branches(r, keys)?);
            (all.len() <= MAX_BRANCHES).then_some(all)
        }
        Expr::And(l, r) => {
            let (left, right) = (branches(l, keys)?, branches(r, keys)?);
            if left.len() * right.len() > MAX_BRANCHES {
                return None;
            }
            Some(left.iter().flat_map(|a| right.iter().map(move |b| [a.clone(), b.clone()].concat())).collect())
        }
        other => Some(vec![vec![other]]),
    }
}

fn is_attribute(expr: &Expr, name: &str) -> bool {
    matches!(expr, Expr::Path(p) if matches!(p.as_slice(), [PathStep::Name(n)] if n == name))
}

fn is_value(expr: &Expr) -> bool {
    matches!(expr, Expr::Literal(_) | Expr::Param(_))
}

/// The partition values a leaf pins the key to: `pk = v` (either way round) or `pk IN [...]`.
fn pinned<'e>(leaf: &'e Expr, key: &str) -> Option<Vec<&'e Expr>> {
    match leaf {
        Expr::Compare("=", l, r) if is_attribute(l, key) && is_value(r) => Some(vec![r.as_ref()]),
        Expr::Compare("=", l, r) if is_attribute(r, key) && is_value(l) => Some(vec![l.as_ref()]),
        Expr::In(v, list) if is_attribute(v, key) && list.iter().all(is_value) => Some(list.iter().collect()),
        _ => None,
    }
}

/// The values a key condition on `key` compares it with (the key's own type is required of them):
/// a comparison other than `<>`, `BETWEEN`, `IN`.
fn key_operands<'e>(leaf: &'e Expr, key: &str) -> Vec<&'e Expr> {
    match leaf {
        Expr::Compare(op, l, r) if *op != "<>" => match (is_attribute(l, key), is_attribute(r, key)) {
            (true, false) if is_value(r) => vec![r.as_ref()],
            (false, true) if is_value(l) => vec![l.as_ref()],
            _ => Vec::new(),
        },
        Expr::Between(v, lo, hi) if is_attribute(v, key) && is_value(lo) && is_value(hi) => {
            vec![lo.as_ref(), hi.as_ref()]
        }
        Expr::In(v, list) if is_attribute(v, key) && list.iter().all(is_value) => list.iter().collect(),
        _ => Vec::new(),
    }
}

/// A DynamoDB JSON value as a key value.
fn key_value(value: &Value) -> Operand {
    match serde_json::from_value::<AttributeValue>(value.clone()) {
        Err(_) => Operand::Unread,
        Ok(attribute) => KeyValue::from_attribute(&attribute).map_or(Operand::NotScalar, Operand::Key),
    }
}

/// The sort-key ranges a branch reads (one per `IN` value, else one: the intersection of its
/// conditions, the whole partition when it has none); `None` when the branch negates or `<>`s
/// the sort key (no range) or its conditions select nothing.
fn sort_ranges(branch: &[&Expr], key: &str, value: &dyn Fn(&Expr) -> Result<Value>) -> Result<Option<Vec<SortRange>>> {
    let mut lower = Bound::Unbounded;
    let mut upper = Bound::Unbounded;
    let mut points = None;
    let read = |e: &Expr| -> Result<Option<KeyValue>> {
        Ok(match key_value(&value(e)?) {
            Operand::Key(key) => Some(key),
            Operand::Unread | Operand::NotScalar => None,
        })
    };
    for leaf in branch {
        if mentions(leaf, key) && matches!(leaf, Expr::Not(_) | Expr::Compare("<>", _, _)) {
            return Ok(None);
        }
        let condition = match leaf {
            Expr::In(v, list) if is_attribute(v, key) => {
                points = Some(list.iter().map(read).collect::<Result<Option<Vec<_>>>>()?);
                continue;
            }
            Expr::Compare(op, l, r) => {
                let (op, operand) = match (is_attribute(l, key), is_attribute(r, key)) {
                    (true, false) => (*op, r.as_ref()),
                    (false, true) => (flipped(op), l.as_ref()),
                    _ => continue,
                };
                let Some(v) = read(operand)? else { continue };
                match op {
                    "=" => SortCondition::Eq(v),
                    "<" => SortCondition::Lt(v),
                    "<=" => SortCondition::Le(v),
                    ">" => SortCondition::Gt(v),
                    ">=" => SortCondition::Ge(v),
                    _ => continue,
                }
            }
            Expr::Between(v, lo, hi) if is_attribute(v, key) => match (read(lo)?, read(hi)?) {
                (Some(lo), Some(hi)) => SortCondition::Between(lo, hi),
                _ => continue,
            },
            Expr::Call(call)
                if call.name == "begins_with" && call.args.first().is_some_and(|a| is_attribute(a, key)) =>
            {
                match call.args.get(1).map(read).transpose()?.flatten() {
                    Some(prefix) => SortCondition::BeginsWith(prefix),
                    None => continue,
                }
            }
            _ => continue,
        };
        let (lo, hi) = condition.bounds();
        lower = tighter_lower(lower, held(lo));
        upper = tighter_upper(upper, held(hi));
    }
    let ranges: Vec<_> = match points {
        Some(Some(points)) => points.into_iter().map(|p| (Bound::Included(p.clone()), Bound::Included(p))).collect(),
        Some(None) => return Ok(None),
        None => vec![(lower, upper)],
    };
    let ranges: Vec<_> = ranges.into_iter().filter(|(lo, hi)| !range_is_empty(lo, hi)).collect();
    Ok((!ranges.is_empty()).then_some(ranges))
}

/// A condition's bound (each holds its value) as a bound on keys.
fn held(bound: Bound<Option<KeyValue>>) -> Bound<KeyValue> {
    match bound {
        Bound::Included(Some(v)) => Bound::Included(v),
        Bound::Excluded(Some(v)) => Bound::Excluded(v),
        _ => Bound::Unbounded,
    }
}

/// Whether `leaf` names the attribute `key` anywhere (a negated condition on it, `sk <> v`).
pub(super) fn mentions(leaf: &Expr, key: &str) -> bool {
    match leaf {
        Expr::Path(_) => is_attribute(leaf, key),
        Expr::Not(e) | Expr::Missing(e, _) | Expr::IsType(e, _, _) => mentions(e, key),
        Expr::Compare(_, l, r) | Expr::Arith(_, l, r) | Expr::And(l, r) | Expr::Or(l, r) => {
            mentions(l, key) || mentions(r, key)
        }
        Expr::Between(v, lo, hi) => mentions(v, key) || mentions(lo, key) || mentions(hi, key),
        Expr::In(v, list) => mentions(v, key) || list.iter().any(|e| mentions(e, key)),
        Expr::Call(call) => call.args.iter().any(|e| mentions(e, key)),
        Expr::Literal(_) | Expr::Param(_) => false,
    }
}

fn flipped(op: &str) -> &'static str {
    match op {
        "<" => ">",
        "<=" => ">=",
        ">" => "<",
        ">=" => "<=",
        "=" => "=",
        _ => "<>",
    }
}

fn tighter_lower(a: Bound<KeyValue>, b: Bound<KeyValue>) -> Bound<KeyValue> {
    if lower_order(&a, &b) == Ordering::Less {
        b
    } else {
        a
    }
}

fn tighter_upper(a: Bound<KeyValue>, b: Bound<KeyValue>) -> Bound<KeyValue> {
    if ends_after(&a, &b) {
        b
    } else {
        a
    }
}

/// Lower bounds in the order of where their ranges start.
fn lower_order(a: &Bound<KeyValue>, b: &Bound<KeyValue>) -> Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Less,
        (_, Bound::Unbounded) => Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y).then_with(|| match (a, b) {
                (Bound::Included(_), Bound::Excluded(_)) => Ordering::Less,
                (Bound::Excluded(_), Bound::Included(_)) => Ordering::Greater,
                _ => Ordering::Equal,
            })
        }
    }
}

/// Whether the upper bound `a` reaches past the upper bound `b`.
fn ends_after(a: &Bound<KeyValue>, b: &Bound<KeyValue>) -> bool {
    match (a, b) {
        (_, Bound::Unbounded) => false,
        (Bound::Unbounded, _) => true,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => match x.cmp(y) {
            Ordering::Equal => matches!((a, b), (Bound::Included(_), Bound::Excluded(_))),
            other => other == Ordering::Greater,
        },
    }
}

/// Whether a range starting at `lower` starts at or before the upper bound `reach` (they share a key).
fn starts_before(lower: &Bound<KeyValue>, reach: &Bound<KeyValue>) -> bool {
    match (lower, reach) {
        (_, Bound::Unbounded) | (Bound::Unbounded, _) => true,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => match x.cmp(y) {
            Ordering::Equal => matches!((lower, reach), (Bound::Included(_), Bound::Included(_))),
            other => other == Ordering::Less,
        },
    }
}
