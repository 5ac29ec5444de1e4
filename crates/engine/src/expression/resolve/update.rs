//! Resolving and checking update expressions' actions.

use super::{note, Placeholders, Problems};
use crate::expression::ast::{Action, Operand, RawAction, RawOperand};
use crate::value::AttributeValue;

impl Placeholders<'_> {
    pub(super) fn action(&mut self, raw: &RawAction, problems: &mut Problems) -> Action {
        match raw {
            RawAction::Set(path, value) => {
                let path = self.path(path, problems);
                Action::Set(path, self.update_operand(value, problems))
            }
            RawAction::Remove(path) => Action::Remove(self.path(path, problems)),
            RawAction::Add(path, value) | RawAction::Delete(path, value) => {
                let is_add = matches!(raw, RawAction::Add(..));
                let path = self.path(path, problems);
                let value = self.value(value, problems);
                // ADD takes a number or a set; DELETE a set.
                let allowed = matches!(value, AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_))
                    || (is_add && matches!(value, AttributeValue::N(_)));
                let type_word = (!allowed).then(|| value.type_word());
                if let Some(word) = type_word.filter(|_| problems.undefined_value.is_none()) {
                    let (operator, set) = if is_add {
                        ("ADD", "ALLOWED_FOR_ADD_OPERAND")
                    } else {
                        ("DELETE", "ALLOWED_FOR_DELETE_OPERAND")
                    };
                    note(&mut problems.operand, || {
                        format!("Incorrect operand type for operator or function; operator: {operator}, operand type: {word}, typeSet: {set}")
                    });
                }
                if is_add {
                    Action::Add(path, value)
                } else {
                    Action::Delete(path, value)
                }
            }
        }
    }

    /// The right side of `SET path = …`.
    fn update_operand(&mut self, raw: &RawOperand, problems: &mut Problems) -> Operand {
        match raw {
            RawOperand::Path(steps) => Operand::Path(self.path(steps, problems)),
            RawOperand::Value(v) => Operand::Value(self.value(v, problems)),
            RawOperand::Plus(a, b) | RawOperand::Minus(a, b) => {
                let symbol = if matches!(raw, RawOperand::Plus(..)) { "+" } else { "-" };
                let (x, y) = (self.update_operand(a, problems), self.update_operand(b, problems));
                for operand in [&x, &y] {
                    if let Operand::Value(v) = operand {
                        if !matches!(v, AttributeValue::N(_)) && problems.undefined_value.is_none() {
                            note(&mut problems.function, || {
                                format!(
                                    "Incorrect operand type for operator or function; operator or function: {symbol}, operand type: {}",
                                    v.type_name()
                                )
                            });
                        }
                    }
                }
                if symbol == "+" {
                    Operand::Plus(Box::new(x), Box::new(y))
                } else {
                    Operand::Minus(Box::new(x), Box::new(y))
                }
            }
            RawOperand::Call { name, args } => {
                let operands: Vec<Operand> = args.iter().map(|a| self.update_operand(a, problems)).collect();
                match name.as_str() {
                    "if_not_exists" | "list_append" => {}
                    "attribute_exists"
                    | "attribute_not_exists"
                    | "attribute_type"
                    | "begins_with"
                    | "contains"
                    | "size" => {
                        note(&mut problems.unknown_function, || {
                            format!("The function is not allowed in an update expression; function: {name}")
                        });
                        return Operand::Path(Vec::new());
                    }
                    _ => {
                        note(&mut problems.unknown_function, || format!("Invalid function name; function: {name}"));
                        return Operand::Path(Vec::new());
                    }
                }
                if operands.len() != 2 {
                    note(&mut problems.function, || {
                        format!(
                            "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                            operands.len()
                        )
                    });
                    return Operand::Path(Vec::new());
                }
                let mut operands = operands.into_iter();
                let (Some(first), Some(second)) = (operands.next(), operands.next()) else {
                    return Operand::Path(Vec::new());
                };
                if name == "if_not_exists" {
                    return if let Operand::Path(path) = first {
                        Operand::IfNotExists(path, Box::new(second))
                    } else {
                        note(&mut problems.function, || {
                            "Operator or function requires a document path; operator or function: if_not_exists".into()
                        });
                        Operand::Path(Vec::new())
                    };
                }
                for operand in [&first, &second] {
                    if let Operand::Value(v) = operand {
                        if !matches!(v, AttributeValue::L(_)) && problems.undefined_value.is_none() {
                            note(&mut problems.function, || {
                                format!(
                                    "Incorrect operand type for operator or function; operator or function: list_append, operand type: {}",
                                    v.type_name()
                                )
                            });
                        }
                    }
                }
                Operand::ListAppend(Box::new(first), Box::new(second))
            }
        }
    }
}
