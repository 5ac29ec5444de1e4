//! Evaluates resolved conditions against an item. Evaluation never fails: a path that does not
//! resolve, or operands of the wrong type, simply make the comparison false, as on DynamoDB.

use super::ast::{CmpOp, Condition, Operand, Step};
use crate::value::{AttributeValue, Item, Number};
use std::borrow::Cow;
use std::cmp::Ordering;

/// The value at `path` in `item`, if there is one.
pub fn get_path<'i>(item: &'i Item, path: &[Step]) -> Option<&'i AttributeValue> {
    let (first, rest) = path.split_first()?;
    let Step::Attr(name) = first else { return None };
    let mut current = item.get(name)?;
    for step in rest {
        current = match (step, current) {
            (Step::Attr(key), AttributeValue::M(map)) => map.get(key)?,
            (Step::Index(i), AttributeValue::L(list)) => list.get(*i)?,
            _ => return None,
        };
    }
    Some(current)
}

/// The value of a condition operand, if it has one.
pub fn operand_value<'a>(item: &'a Item, operand: &'a Operand) -> Option<Cow<'a, AttributeValue>> {
    match operand {
        Operand::Path(path) => get_path(item, path).map(Cow::Borrowed),
        Operand::Value(value) => Some(Cow::Borrowed(value)),
        Operand::Size(inner) => {
            let size = match operand_value(item, inner)?.as_ref() {
                // Java string length, in UTF-16 units (dynoxide's capture of the real service).
                AttributeValue::S(s) => s.encode_utf16().count(),
                AttributeValue::B(b) => b.len(),
                AttributeValue::Ss(set) => set.len(),
                AttributeValue::Ns(set) => set.len(),
                AttributeValue::Bs(set) => set.len(),
                AttributeValue::L(list) => list.len(),
                AttributeValue::M(map) => map.len(),
                _ => return None,
            };
            Number::parse(&size.to_string()).ok().map(|n| Cow::Owned(AttributeValue::N(n)))
        }
        // Update-only operands never reach a condition.
        _ => None,
    }
}

/// True if `condition` holds for `item` (an absent item is an empty one).
#[allow(clippy::many_single_char_names)]
pub fn evaluate(condition: &Condition, item: &Item) -> bool {
    match condition {
        Condition::And(a, b) => evaluate(a, item) && evaluate(b, item),
        Condition::Or(a, b) => evaluate(a, item) || evaluate(b, item),
        Condition::Not(a) => !evaluate(a, item),
        Condition::Exists(path) => get_path(item, path).is_some(),
        Condition::NotExists(path) => get_path(item, path).is_none(),
        Condition::Compare(op, a, b) => {
            let (x, y) = (operand_value(item, a), operand_value(item, b));
            match (op, x, y) {
                (CmpOp::Eq, Some(x), Some(y)) => same_value(&x, &y),
                (CmpOp::Ne, Some(x), Some(y)) => !same_value(&x, &y),
                (CmpOp::Ne, _, _) => true,
                (_, Some(x), Some(y)) => match compare_scalars(&x, &y) {
                    Some(order) => match op {
                        CmpOp::Lt => order == Ordering::Less,
                        CmpOp::Le => order != Ordering::Greater,
                        CmpOp::Gt => order == Ordering::Greater,
                        CmpOp::Ge => order != Ordering::Less,
                        CmpOp::Eq | CmpOp::Ne => false,
                    },
                    None => false,
                },
                _ => false,
            }
        }
        Condition::Between(a, low, high) => {
            let (Some(x), Some(lo), Some(hi)) =
                (operand_value(item, a), operand_value(item, low), operand_value(item, high))
            else {
                return false;
            };
            matches!(compare_scalars(&x, &lo), Some(Ordering::Greater | Ordering::Equal))
                && matches!(compare_scalars(&x, &hi), Some(Ordering::Less | Ordering::Equal))
        }
        Condition::In(a, list) => match operand_value(item, a) {
            Some(x) => list.iter().any(|o| operand_value(item, o).is_some_and(|v| same_value(&x, &v))),
            None => false,
        },
        Condition::AttributeType(a, t) => match (operand_value(item, a), operand_value(item, t)) {
            (Some(x), Some(t)) => {
                matches!(t.as_ref(), AttributeValue::S(name) if name == x.type_name())
            }
            _ => false,
        },
        Condition::BeginsWith(a, b) => match (operand_value(item, a), operand_value(item, b)) {
            (Some(x), Some(y)) => match (x.as_ref(), y.as_ref()) {
                (AttributeValue::S(s), AttributeValue::S(prefix)) => s.starts_with(prefix.as_str()),
                (AttributeValue::B(s), AttributeValue::B(prefix)) => s.starts_with(prefix),
                _ => false,
            },
            _ => false,
        },
        Condition::Contains(a, b) => match (operand_value(item, a), operand_value(item, b)) {
            (Some(x), Some(y)) => contains(&x, &y),
            _ => false,
        },
    }
}

fn contains(haystack: &AttributeValue, needle: &AttributeValue) -> bool {
    match (haystack, needle) {
        (AttributeValue::S(s), AttributeValue::S(part)) => s.contains(part.as_str()),
        (AttributeValue::B(b), AttributeValue::B(part)) => {
            part.is_empty() || b.windows(part.len()).any(|w| w == part.as_slice())
        }
        (AttributeValue::Ss(set), AttributeValue::S(s)) => set.contains(s),
        (AttributeValue::Ns(set), AttributeValue::N(n)) => set.contains(n),
        (AttributeValue::Bs(set), AttributeValue::B(b)) => set.contains(b),
        (AttributeValue::L(list), v) => list.iter().any(|e| same_value(e, v)),
        _ => false,
    }
}

/// Order of two scalars of the same key type (`S`, `N`, `B`); `None` for anything else.
pub fn compare_scalars(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        (AttributeValue::S(x), AttributeValue::S(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (AttributeValue::N(x), AttributeValue::N(y)) => Some(x.cmp(y)),
        (AttributeValue::B(x), AttributeValue::B(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// DynamoDB equality: same type and value; sets compare as sets, whatever their order.
pub fn same_value(a: &AttributeValue, b: &AttributeValue) -> bool {
    fn same_set<T: Ord>(x: &[T], y: &[T]) -> bool {
        if x.len() != y.len() {
            return false;
        }
        let mut x: Vec<&T> = x.iter().collect();
        let mut y: Vec<&T> = y.iter().collect();
        x.sort();
        y.sort();
        x == y
    }
    match (a, b) {
        (AttributeValue::Ss(x), AttributeValue::Ss(y)) => same_set(x, y),
        (AttributeValue::Ns(x), AttributeValue::Ns(y)) => same_set(x, y),
        (AttributeValue::Bs(x), AttributeValue::Bs(y)) => same_set(x, y),
        (AttributeValue::L(x), AttributeValue::L(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (AttributeValue::M(x), AttributeValue::M(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// Same as [`same_value`] for whole items.
pub fn same_item(a: &Item, b: &Item) -> bool {
    a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w)))
}
