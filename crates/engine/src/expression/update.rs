//! Applies resolved update actions to an item. Every right-hand side is read from the item as it
//! was before the update, so `SET a = b, b = a` swaps.

use super::ast::{Action, Operand, Step};
use super::eval::{get_path, operand_value};
use crate::error::{DynamoError, Result};
use crate::value::{AttributeValue, Item};

const INVALID_PATH: &str = "The document path provided in the update expression is invalid for update";
const WRONG_TYPE: &str = "An operand in the update expression has an incorrect data type";

/// The item after applying `actions` to `old`.
pub fn apply(old: &Item, actions: &[Action]) -> Result<Item> {
    let mut sets = Vec::new();
    let mut removes = Vec::new();
    let mut others = Vec::new();
    for action in actions {
        match action {
            Action::Set(path, operand) => sets.push((path, value_of(old, operand)?)),
            Action::Remove(path) => removes.push(path),
            Action::Add(..) | Action::Delete(..) => others.push(action),
        }
    }
    let mut item = old.clone();
    for (path, value) in sets {
        set_path(&mut item, path, value)?;
    }
    // Later list indexes first, so removing a[1] and a[3] removes what the expression named.
    removes.sort_by(|a, b| b.cmp(a));
    for path in removes {
        remove_path(&mut item, path)?;
    }
    for action in others {
        match action {
            Action::Add(path, value) => {
                let updated = match get_path(old, path) {
                    None => value.clone(),
                    Some(current) => add(current, value)?,
                };
                set_path(&mut item, path, updated)?;
            }
            Action::Delete(path, value) => match get_path(old, path) {
                None => {}
                Some(current) => match delete(current, value)? {
                    Some(rest) => set_path(&mut item, path, rest)?,
                    None => remove_path(&mut item, path)?,
                },
            },
            Action::Set(..) | Action::Remove(..) => {}
        }
    }
    Ok(item)
}

fn value_of(item: &Item, operand: &Operand) -> Result<AttributeValue> {
    match operand {
        Operand::Path(path) => get_path(item, path).cloned().ok_or_else(|| {
            DynamoError::validation("The provided expression refers to an attribute that does not exist in the item")
        }),
        Operand::Value(v) => Ok(v.clone()),
        Operand::IfNotExists(path, fallback) => match get_path(item, path) {
            Some(v) => Ok(v.clone()),
            None => value_of(item, fallback),
        },
        Operand::ListAppend(a, b) => match (value_of(item, a)?, value_of(item, b)?) {
            (AttributeValue::L(mut x), AttributeValue::L(y)) => {
                x.extend(y);
                Ok(AttributeValue::L(x))
            }
            _ => Err(DynamoError::validation(WRONG_TYPE)),
        },
        Operand::Plus(a, b) | Operand::Minus(a, b) => match (value_of(item, a)?, value_of(item, b)?) {
            (AttributeValue::N(x), AttributeValue::N(y)) => {
                let result = if matches!(operand, Operand::Plus(..)) { x.add(&y) } else { x.sub(&y) };
                Ok(AttributeValue::N(result?))
            }
            _ => Err(DynamoError::validation(WRONG_TYPE)),
        },
        Operand::Size(_) => operand_value(item, operand)
            .map(std::borrow::Cow::into_owned)
            .ok_or_else(|| DynamoError::validation(WRONG_TYPE)),
    }
}

fn add(current: &AttributeValue, value: &AttributeValue) -> Result<AttributeValue> {
    // Kept in DynamoDB's order (`value::in_dynamodb_order`): both sides already are.
    fn union<T: Ord + Clone>(set: &[T], more: &[T]) -> Vec<T> {
        let mut out = set.to_vec();
        for v in more {
            if let Err(at) = out.binary_search(v) {
                out.insert(at, v.clone());
            }
        }
        out
    }
    match (current, value) {
        (AttributeValue::N(x), AttributeValue::N(y)) => Ok(AttributeValue::N(x.add(y)?)),
        (AttributeValue::Ss(x), AttributeValue::Ss(y)) => Ok(AttributeValue::Ss(union(x, y))),
        (AttributeValue::Ns(x), AttributeValue::Ns(y)) => Ok(AttributeValue::Ns(union(x, y))),
        (AttributeValue::Bs(x), AttributeValue::Bs(y)) => Ok(AttributeValue::Bs(union(x, y))),
        _ => Err(DynamoError::validation(WRONG_TYPE)),
    }
}

/// The set without `value`'s elements; `None` when nothing is left (the attribute goes away).
fn delete(current: &AttributeValue, value: &AttributeValue) -> Result<Option<AttributeValue>> {
    fn minus<T: PartialEq + Clone>(set: &[T], gone: &[T]) -> Vec<T> {
        set.iter().filter(|v| !gone.contains(v)).cloned().collect()
    }
    let rest = match (current, value) {
        (AttributeValue::Ss(x), AttributeValue::Ss(y)) => AttributeValue::Ss(minus(x, y)),
        (AttributeValue::Ns(x), AttributeValue::Ns(y)) => AttributeValue::Ns(minus(x, y)),
        (AttributeValue::Bs(x), AttributeValue::Bs(y)) => AttributeValue::Bs(minus(x, y)),
        _ => return Err(DynamoError::validation(WRONG_TYPE)),
    };
    let empty = match &rest {
        AttributeValue::Ss(s) => s.is_empty(),
        AttributeValue::Ns(s) => s.is_empty(),
        AttributeValue::Bs(s) => s.is_empty(),
        _ => false,
    };
    Ok(if empty { None } else { Some(rest) })
}

fn set_path(item: &mut Item, path: &[Step], value: AttributeValue) -> Result<()> {
    let Some((Step::Attr(name), rest)) = path.split_first() else {
        return Err(DynamoError::validation(INVALID_PATH));
    };
    if rest.is_empty() {
        item.insert(name.clone(), value);
        return Ok(());
    }
    let parent = item.get_mut(name).ok_or_else(|| DynamoError::validation(INVALID_PATH))?;
    set_in(parent, rest, value)
}

fn set_in(target: &mut AttributeValue, path: &[Step], value: AttributeValue) -> Result<()> {
    let Some((step, rest)) = path.split_first() else {
        *target = value;
        return Ok(());
    };
    match (step, target) {
        (Step::Attr(key), AttributeValue::M(map)) => {
            if rest.is_empty() {
                map.insert(key.clone(), value);
                Ok(())
            } else {
                let child = map.get_mut(key).ok_or_else(|| DynamoError::validation(INVALID_PATH))?;
                set_in(child, rest, value)
            }
        }
        (Step::Index(i), AttributeValue::L(list)) => {
            if rest.is_empty() {
                // An index past the end appends, as DynamoDB does.
                if *i < list.len() {
                    list[*i] = value;
                } else {
                    list.push(value);
                }
                Ok(())
            } else {
                let child = list.get_mut(*i).ok_or_else(|| DynamoError::validation(INVALID_PATH))?;
                set_in(child, rest, value)
            }
        }
        _ => Err(DynamoError::validation(INVALID_PATH)),
    }
}

fn remove_path(item: &mut Item, path: &[Step]) -> Result<()> {
    let Some((Step::Attr(name), rest)) = path.split_first() else {
        return Err(DynamoError::validation(INVALID_PATH));
    };
    if rest.is_empty() {
        item.remove(name);
        return Ok(());
    }
    match item.get_mut(name) {
        Some(parent) => remove_in(parent, rest),
        None => Ok(()),
    }
}

fn remove_in(target: &mut AttributeValue, path: &[Step]) -> Result<()> {
    let Some((step, rest)) = path.split_first() else {
        return Ok(());
    };
    match (step, target) {
        (Step::Attr(key), AttributeValue::M(map)) => {
            if rest.is_empty() {
                map.remove(key);
                Ok(())
            } else {
                map.get_mut(key).map_or(Ok(()), |child| remove_in(child, rest))
            }
        }
        (Step::Index(i), AttributeValue::L(list)) => {
            if rest.is_empty() {
                if *i < list.len() {
                    list.remove(*i);
                }
                Ok(())
            } else {
                list.get_mut(*i).map_or(Ok(()), |child| remove_in(child, rest))
            }
        }
        _ => Err(DynamoError::validation(INVALID_PATH)),
    }
}
