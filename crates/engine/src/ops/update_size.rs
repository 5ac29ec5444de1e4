//! What standalone UpdateItem counts against the 400 KB item limit besides the finished item: the
//! statement itself. Measured against DynamoDB in eu-west-2 (2026-08 to 2026-10, the autumn-2026
//! conformance suite's `itemSizeBySurface`; 22 of 33 regions apply it, the other ten size the
//! finished item alone): 3 bytes for the update and a fixed cost per clause plus what the clause
//! carries, so the key and the attributes it leaves alone are out of the figure. PartiQL UPDATE,
//! a transacted Update and `AttributeUpdates` size the finished item only.

use crate::expression::ast::{Action, Operand, Step};
use crate::expression::eval::get_path;
use crate::value::{AttributeValue, Item};

const UPDATE: usize = 3;
/// A clause that writes: SET or ADD.
const WRITE_CLAUSE: usize = 19;
/// A clause that takes away: REMOVE or DELETE (the members removed are not charged).
const REMOVE_CLAUSE: usize = 1;
const PLUS: usize = 34;
const MINUS: usize = 37;
const IF_NOT_EXISTS: usize = 39;
const LIST_APPEND: usize = 37;

/// The bytes an update expression's actions are charged, `old` being the item before it (an ADD to
/// a set is charged only for the members it adds).
pub fn statement_bytes(actions: &[Action], old: Option<&Item>) -> usize {
    UPDATE + actions.iter().map(|action| action_bytes(action, old)).sum::<usize>()
}

fn action_bytes(action: &Action, old: Option<&Item>) -> usize {
    match action {
        Action::Set(path, operand) => WRITE_CLAUSE + target_bytes(path) + operand_bytes(operand),
        Action::Add(path, value) => {
            let present = old.and_then(|item| get_path(item, path));
            WRITE_CLAUSE + target_bytes(path) + added_bytes(value, present)
        }
        Action::Remove(path) | Action::Delete(path, _) => REMOVE_CLAUSE + target_bytes(path),
    }
}

/// A path written to: its first name, then 4 bytes and the element for each later step.
fn target_bytes(path: &[Step]) -> usize {
    path.iter().enumerate().map(|(i, step)| if i == 0 { element_bytes(step) } else { 4 + element_bytes(step) }).sum()
}

/// A name's bytes, or a list index's decimal digits.
fn element_bytes(step: &Step) -> usize {
    match step {
        Step::Attr(name) => name.len(),
        Step::Index(index) => index.to_string().len(),
    }
}

/// An operand as the request carries it: a path 1 byte and 14 plus the element per step (the
/// value it reads is free), a value its size at every use, a function its cost and operands.
fn operand_bytes(operand: &Operand) -> usize {
    match operand {
        Operand::Path(path) => 1 + path.iter().map(|step| 14 + element_bytes(step)).sum::<usize>(),
        Operand::Value(value) => value.size(),
        Operand::Plus(a, b) => PLUS + operand_bytes(a) + operand_bytes(b),
        Operand::Minus(a, b) => MINUS + operand_bytes(a) + operand_bytes(b),
        Operand::ListAppend(a, b) => LIST_APPEND + operand_bytes(a) + operand_bytes(b),
        Operand::IfNotExists(path, value) => {
            IF_NOT_EXISTS + operand_bytes(&Operand::Path(path.clone())) + operand_bytes(value)
        }
        // Not an update operand (the parser refuses `size` there); charged as what it wraps.
        Operand::Size(inner) => operand_bytes(inner),
    }
}

/// What an ADD writes: a number its size, a set only the members not already in it.
fn added_bytes(value: &AttributeValue, present: Option<&AttributeValue>) -> usize {
    match (value, present) {
        (AttributeValue::Ss(added), Some(AttributeValue::Ss(held))) => {
            added.iter().filter(|m| !held.contains(m)).map(String::len).sum()
        }
        (AttributeValue::Ns(added), Some(AttributeValue::Ns(held))) => {
            added.iter().filter(|m| !held.contains(m)).map(crate::value::Number::stored_size).sum()
        }
        (AttributeValue::Bs(added), Some(AttributeValue::Bs(held))) => {
            added.iter().filter(|m| !held.contains(m)).map(Vec::len).sum()
        }
        _ => value.size(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Number;

    fn name(n: &str) -> Step {
        Step::Attr(n.into())
    }

    fn s(text: &str) -> AttributeValue {
        AttributeValue::S(text.into())
    }

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(Number::parse(text).expect("a number"))
    }

    #[test]
    fn one_set_of_a_value_is_the_update_the_clause_the_name_and_the_value() {
        let set = Action::Set(vec![name("b")], Operand::Value(s("xyz")));
        assert_eq!(statement_bytes(&[set], None), 3 + 19 + 1 + 3);
    }

    #[test]
    fn a_list_index_target_costs_one_byte_more_than_the_whole_list_written_plainly() {
        let through_index = Action::Set(vec![name("d"), Step::Index(0)], Operand::Value(s("pad")));
        let plainly = Action::Set(vec![name("d")], Operand::Value(AttributeValue::L(vec![s("pad")])));
        assert_eq!(statement_bytes(&[through_index], None), statement_bytes(&[plainly], None) + 1);
        let through_map = Action::Set(vec![name("d"), name("leaf")], Operand::Value(s("pad")));
        let map = AttributeValue::M([("leaf".to_string(), s("pad"))].into_iter().collect());
        assert_eq!(
            statement_bytes(&[through_map], None),
            statement_bytes(&[Action::Set(vec![name("d")], Operand::Value(map))], None)
        );
    }

    #[test]
    fn operands_are_charged_as_written_not_as_the_values_they_produce() {
        let path = |steps: Vec<Step>| Operand::Path(steps);
        assert_eq!(operand_bytes(&path(vec![name("abcdefghij")])), 1 + 14 + 10);
        assert_eq!(operand_bytes(&path(vec![name("l"), Step::Index(10)])), 1 + 15 + 16);
        let plus = Operand::Plus(Box::new(path(vec![name("n")])), Box::new(Operand::Value(n("1"))));
        assert_eq!(operand_bytes(&plus), 34 + 16 + 2);
        let minus = Operand::Minus(Box::new(path(vec![name("n")])), Box::new(Operand::Value(n("1"))));
        assert_eq!(operand_bytes(&minus), 37 + 16 + 2);
        let if_not = Operand::IfNotExists(vec![name("c")], Box::new(Operand::Value(s("v"))));
        assert_eq!(operand_bytes(&if_not), 39 + 16 + 1);
    }

    #[test]
    fn remove_and_delete_are_one_byte_and_the_target_and_add_counts_only_new_members() {
        assert_eq!(action_bytes(&Action::Remove(vec![name("m"), name("yyyyyyyyyy")]), None), 1 + 1 + 4 + 10);
        assert_eq!(action_bytes(&Action::Remove(vec![name("l"), Step::Index(10)]), None), 1 + 1 + 4 + 2);
        let held: Item = [("ss".to_string(), AttributeValue::Ss(vec!["ppppp".into()]))].into_iter().collect();
        let add = Action::Add(vec![name("ss")], AttributeValue::Ss(vec!["ppppp".into(), "s".repeat(500)]));
        assert_eq!(action_bytes(&add, Some(&held)), 19 + 2 + 500);
        let delete = Action::Delete(vec![name("ss")], AttributeValue::Ss(vec!["ppppp".into()]));
        assert_eq!(action_bytes(&delete, Some(&held)), 1 + 2);
    }
}
