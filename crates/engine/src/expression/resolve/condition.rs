//! Resolving and checking condition, filter and key-condition expressions.

use super::{note, Placeholders, Problems};
use crate::expression::ast::{path_display, CmpOp, Condition, Operand, RawCondition, RawOperand};
use crate::value::AttributeValue;

impl Placeholders<'_> {
    pub(super) fn condition_tree(&mut self, raw: &RawCondition, problems: &mut Problems) -> Condition {
        match raw {
            RawCondition::And(a, b) => {
                Condition::And(Box::new(self.condition_tree(a, problems)), Box::new(self.condition_tree(b, problems)))
            }
            RawCondition::Or(a, b) => {
                Condition::Or(Box::new(self.condition_tree(a, problems)), Box::new(self.condition_tree(b, problems)))
            }
            RawCondition::Not(a) => Condition::Not(Box::new(self.condition_tree(a, problems))),
            leaf => {
                let mut local = Problems::default();
                let condition = self.condition_leaf(leaf, &mut local);
                problems.reserved = problems.reserved.take().or(local.reserved);
                problems.unknown_function = problems.unknown_function.take().or(local.unknown_function);
                problems.misused_function = problems.misused_function.take().or(local.misused_function);
                let first = local.undefined_name.or(local.undefined_value).or(local.operand).or(local.function);
                problems.leaf = problems.leaf.take().or(first);
                condition
            }
        }
    }

    fn condition_leaf(&mut self, raw: &RawCondition, problems: &mut Problems) -> Condition {
        match raw {
            RawCondition::Compare(op, a, b) => {
                let (x, y) = (self.cond_operand(a, problems), self.cond_operand(b, problems));
                if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    check_orderable(op.symbol(), &[&x, &y], problems);
                }
                check_distinct(op.symbol(), &x, &y, problems);
                Condition::Compare(*op, x, y)
            }
            RawCondition::Between(a, low, high) => {
                let x = self.cond_operand(a, problems);
                let (lo, hi) = (self.cond_operand(low, problems), self.cond_operand(high, problems));
                check_orderable("BETWEEN", &[&x, &lo, &hi], problems);
                check_between_bounds(&lo, &hi, problems);
                Condition::Between(x, lo, hi)
            }
            RawCondition::In(a, list) => {
                let x = self.cond_operand(a, problems);
                let list = list.iter().map(|o| self.cond_operand(o, problems)).collect();
                Condition::In(x, list)
            }
            RawCondition::Call { name, args } => self.condition_function(name, args, problems),
            RawCondition::And(..) | RawCondition::Or(..) | RawCondition::Not(..) => self.condition_tree(raw, problems),
        }
    }

    fn condition_function(&mut self, name: &str, args: &[RawOperand], problems: &mut Problems) -> Condition {
        let arity = match name {
            "attribute_exists" | "attribute_not_exists" => 1,
            "attribute_type" | "begins_with" | "contains" => 2,
            "size" => {
                note(&mut problems.misused_function, || {
                    "The function is not allowed to be used this way in an expression; function: size".into()
                });
                1
            }
            _ => {
                note(&mut problems.unknown_function, || format!("Invalid function name; function: {name}"));
                return Condition::Exists(Vec::new());
            }
        };
        let operands: Vec<Operand> = args.iter().map(|a| self.cond_operand(a, problems)).collect();
        if operands.len() != arity {
            note(&mut problems.operand, || {
                format!(
                    "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                    operands.len()
                )
            });
            return Condition::Exists(Vec::new());
        }
        let mut operands = operands.into_iter();
        let first = operands.next().unwrap_or(Operand::Path(Vec::new()));
        let second = operands.next();
        if let Some(second) = &second {
            check_distinct(name, &first, second, problems);
        }
        let type_problem = |problems: &mut Problems, operand_type: &str| {
            note(&mut problems.function, || {
                format!("Incorrect operand type for operator or function; operator or function: {name}, operand type: {operand_type}")
            });
        };
        match (name, second) {
            ("attribute_exists" | "attribute_not_exists", _) => match first {
                Operand::Path(path) if name == "attribute_exists" => Condition::Exists(path),
                Operand::Path(path) => Condition::NotExists(path),
                _ => {
                    note(&mut problems.function, || {
                        format!("Operator or function requires a document path; operator or function: {name}")
                    });
                    Condition::Exists(Vec::new())
                }
            },
            ("begins_with", Some(second)) => {
                for operand in [&first, &second] {
                    if let Some(t) = static_type(operand).filter(|t| *t != "S" && *t != "B") {
                        type_problem(problems, t);
                    }
                }
                Condition::BeginsWith(first, second)
            }
            ("attribute_type", Some(second)) => {
                match &second {
                    Operand::Value(AttributeValue::S(type_name)) => {
                        const TYPES: [&str; 10] = ["N", "BS", "L", "B", "NULL", "M", "S", "SS", "NS", "BOOL"];
                        if !TYPES.contains(&type_name.as_str()) {
                            note(&mut problems.function, || {
                                format!("Invalid attribute type name found; type: {type_name}, valid types: {{N,BS,L,B,NULL,M,S,SS,NS,BOOL}}")
                            });
                        }
                    }
                    other => type_problem(problems, static_type(other).unwrap_or("{NS,SS,L,BS,N,M,B,BOOL,NULL,S}")),
                }
                Condition::AttributeType(first, second)
            }
            (_, Some(second)) => Condition::Contains(first, second),
            (_, None) => Condition::Exists(Vec::new()),
        }
    }

    /// An operand of a comparison, BETWEEN, IN or condition function: a path, a value or `size(…)`.
    fn cond_operand(&mut self, raw: &RawOperand, problems: &mut Problems) -> Operand {
        match raw {
            RawOperand::Path(steps) => Operand::Path(self.path(steps, problems)),
            RawOperand::Value(v) => Operand::Value(self.value(v, problems)),
            RawOperand::Call { name, args } => {
                match name.as_str() {
                    "size" => {}
                    "attribute_exists" | "attribute_not_exists" | "attribute_type" | "begins_with" | "contains" => {
                        note(&mut problems.misused_function, || {
                            format!(
                                "The function is not allowed to be used this way in an expression; function: {name}"
                            )
                        });
                    }
                    _ => note(&mut problems.unknown_function, || format!("Invalid function name; function: {name}")),
                }
                let operands: Vec<Operand> = args.iter().map(|a| self.cond_operand(a, problems)).collect();
                if operands.len() != 1 {
                    note(&mut problems.operand, || {
                        format!(
                            "Incorrect number of operands for operator or function; operator or function: {name}, number of operands: {}",
                            operands.len()
                        )
                    });
                }
                let inner = operands.into_iter().next().unwrap_or(Operand::Path(Vec::new()));
                if let Some(t) = static_type(&inner).filter(|t| matches!(*t, "N" | "BOOL" | "NULL")) {
                    note(&mut problems.function, || {
                        format!("Incorrect operand type for operator or function; operator or function: size, operand type: {t}")
                    });
                }
                Operand::Size(Box::new(inner))
            }
            RawOperand::Plus(..) | RawOperand::Minus(..) => Operand::Path(Vec::new()),
        }
    }
}
/// The type an operand is known to have before any item is seen.
fn static_type(operand: &Operand) -> Option<&'static str> {
    match operand {
        Operand::Value(v) => Some(v.type_name()),
        Operand::Size(_) => Some("N"),
        _ => None,
    }
}

/// An ordering operator only orders strings, numbers and binaries. A constant of another type is
/// refused before any item is read; the same type in an item attribute just makes it false.
fn check_orderable(operator: &str, operands: &[&Operand], problems: &mut Problems) {
    let unorderable = operands.iter().filter_map(|o| static_type(o)).find(|t| !matches!(*t, "S" | "N" | "B"));
    if let Some(operand_type) = unorderable {
        note(&mut problems.operand, || {
            format!("Incorrect operand type for operator or function; operator or function: {operator}, operand type: {operand_type}")
        });
    }
}

fn check_distinct(operator: &str, a: &Operand, b: &Operand, problems: &mut Problems) {
    if let (Operand::Path(x), Operand::Path(y)) = (a, b) {
        if x == y {
            note(&mut problems.operand, || {
                format!(
                    "The first operand must be distinct from the remaining operands for this operator or function; operator: {operator}, first operand: {}",
                    path_display(x)
                )
            });
        }
    }
}

fn check_between_bounds(low: &Operand, high: &Operand, problems: &mut Problems) {
    let (Operand::Value(lo), Operand::Value(hi)) = (low, high) else {
        return;
    };
    let shown = |v: &AttributeValue| format!("AttributeValue: {{{}:{}}}", v.type_name(), scalar_text(v));
    if lo.type_name() != hi.type_name() {
        note(&mut problems.function, || {
            format!(
                "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: {}, upper bound operand: {}",
                shown(lo),
                shown(hi)
            )
        });
    } else if crate::expression::eval::compare_scalars(lo, hi) == Some(std::cmp::Ordering::Greater) {
        note(&mut problems.function, || {
            format!(
                "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: {}, upper bound operand: {}",
                shown(lo),
                shown(hi)
            )
        });
    }
}

fn scalar_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.to_string(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

pub(super) fn largest_in(raw: &RawCondition) -> Option<usize> {
    match raw {
        RawCondition::In(_, list) => Some(list.len()),
        RawCondition::And(a, b) | RawCondition::Or(a, b) => largest_in(a).max(largest_in(b)),
        RawCondition::Not(a) => largest_in(a),
        _ => None,
    }
}
