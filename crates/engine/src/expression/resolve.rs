//! Resolves a parsed expression against `ExpressionAttributeNames` / `ExpressionAttributeValues`
//! and checks it, reporting the first problem in DynamoDB's order for that expression kind.

use super::ast::{
    path_display, Action, CmpOp, Condition, DocPath, Operand, RawAction, RawCondition, RawOperand, RawStep, Section,
    Step,
};
use super::parser::{parse_condition, parse_projection, parse_update};
use super::reserved::is_reserved;
use crate::error::{DynamoError, Result};
use crate::value::AttributeValue;
use std::collections::{BTreeSet, HashMap};

/// The five expression kinds; their names start every message about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprKind {
    Condition,
    Filter,
    KeyCondition,
    Projection,
    Update,
}

impl ExprKind {
    pub fn parameter(self) -> &'static str {
        match self {
            Self::Condition => "ConditionExpression",
            Self::Filter => "FilterExpression",
            Self::KeyCondition => "KeyConditionExpression",
            Self::Projection => "ProjectionExpression",
            Self::Update => "UpdateExpression",
        }
    }

    fn error(self, message: &str) -> DynamoError {
        DynamoError::validation(format!("Invalid {}: {message}", self.parameter()))
    }
}

const MAX_EXPRESSION_BYTES: usize = 4096;
const MAX_IN_OPERANDS: usize = 100;
const MAX_OPERATORS: usize = 300;

/// DynamoDB stops counting at the first operator over the limit, so the count it reports is 301.
fn check_operators(kind: ExprKind, count: usize) -> Result<()> {
    if count > MAX_OPERATORS {
        return Err(
            kind.error(&format!("The expression contains too many operators; operator count: {}", MAX_OPERATORS + 1))
        );
    }
    Ok(())
}

/// The placeholder maps of one request, shared by all its expressions, remembering which
/// placeholders were used so that unused ones can be refused at the end.
pub struct Placeholders<'r> {
    names: Option<&'r HashMap<String, String>>,
    values: Option<&'r HashMap<String, AttributeValue>>,
    used_names: BTreeSet<String>,
    used_values: BTreeSet<String>,
    /// Whether the expression-size error carries the size (Scan's filter, in us-east-1).
    size_figure: bool,
}

/// First problem of each kind found while resolving; DynamoDB reports them in a fixed order.
#[derive(Default)]
struct Problems {
    reserved: Option<String>,
    unknown_function: Option<String>,
    misused_function: Option<String>,
    parens: Option<String>,
    section: Option<String>,
    undefined_name: Option<String>,
    undefined_value: Option<String>,
    overlap: Option<String>,
    conflict: Option<String>,
    operand: Option<String>,
    function: Option<String>,
    /// The first problem of the first comparison or function that had one (conditions only).
    leaf: Option<String>,
}

fn note(slot: &mut Option<String>, message: impl FnOnce() -> String) {
    if slot.is_none() {
        *slot = Some(message());
    }
}

impl<'r> Placeholders<'r> {
    pub fn new(
        names: Option<&'r HashMap<String, String>>,
        values: Option<&'r HashMap<String, AttributeValue>>,
    ) -> Self {
        Self { names, values, used_names: BTreeSet::new(), used_values: BTreeSet::new(), size_figure: false }
    }

    /// Real DynamoDB words the size limit with the size on a Scan's filter only (dynoxide's
    /// us-east-1 capture, 2026-10); everywhere else the message ends at `size;`.
    #[must_use]
    pub fn with_size_figure(mut self) -> Self {
        self.size_figure = true;
        self
    }

    fn precheck(&self, kind: ExprKind, text: &str) -> Result<()> {
        if text.len() > MAX_EXPRESSION_BYTES {
            let figure = if self.size_figure { format!(" expression size: {}", text.len()) } else { String::new() };
            return Err(kind.error(&format!("Expression size has exceeded the maximum allowed size;{figure}")));
        }
        if text.trim().is_empty() {
            return Err(kind.error("The expression can not be empty;"));
        }
        Ok(())
    }

    /// A condition, filter or key-condition expression.
    pub fn condition(&mut self, kind: ExprKind, text: &str) -> Result<Condition> {
        self.precheck(kind, text)?;
        let (raw, redundant, operators) = parse_condition(text).map_err(|e| kind.error(&e.0))?;
        check_operators(kind, operators)?;
        if let Some(count) = largest_in(&raw).filter(|n| *n > MAX_IN_OPERANDS) {
            return Err(
                kind.error(&format!("The IN operator is provided with too many operands; number of operands: {count}"))
            );
        }
        let mut problems = Problems::default();
        if redundant.0 {
            problems.parens = Some("The expression has redundant parentheses;".into());
        }
        let condition = self.condition_tree(&raw, &mut problems);
        let order = [
            &problems.parens,
            &problems.unknown_function,
            &problems.misused_function,
            &problems.reserved,
            &problems.leaf,
        ];
        match first_of(&order) {
            Some(message) => Err(kind.error(&message)),
            None => Ok(condition),
        }
    }

    /// A projection expression: the document paths it names.
    pub fn projection(&mut self, text: &str) -> Result<Vec<DocPath>> {
        let kind = ExprKind::Projection;
        self.precheck(kind, text)?;
        let raw = parse_projection(text).map_err(|e| kind.error(&e.0))?;
        let mut problems = Problems::default();
        let mut paths: Vec<DocPath> = Vec::new();
        for raw_path in &raw {
            let path = self.path(raw_path, &mut problems);
            check_overlap(&paths, &path, &mut problems);
            paths.push(path);
        }
        let order = [&problems.reserved, &problems.undefined_name, &problems.overlap, &problems.conflict];
        match first_of(&order) {
            Some(message) => Err(kind.error(&message)),
            None => Ok(paths),
        }
    }

    /// An update expression: its actions, SET first, then REMOVE, ADD and DELETE.
    pub fn update(&mut self, text: &str) -> Result<Vec<Action>> {
        let kind = ExprKind::Update;
        self.precheck(kind, text)?;
        let raw = parse_update(text).map_err(|e| kind.error(&e.0))?;
        check_operators(kind, raw.operators)?;
        let mut problems = Problems::default();
        let mut seen_sections: Vec<Section> = Vec::new();
        let mut paths: Vec<DocPath> = Vec::new();
        let mut actions = Vec::new();
        for (section, raw_actions) in &raw.sections {
            if seen_sections.contains(section) {
                note(&mut problems.section, || {
                    format!("The \"{}\" section can only be used once in an update expression;", section.keyword())
                });
            }
            seen_sections.push(*section);
            for raw_action in raw_actions {
                let action = self.action(raw_action, &mut problems);
                let path = match &action {
                    Action::Set(p, _) | Action::Remove(p) | Action::Add(p, _) | Action::Delete(p, _) => p.clone(),
                };
                check_overlap(&paths, &path, &mut problems);
                paths.push(path);
                actions.push(action);
            }
        }
        let order = [
            &problems.reserved,
            &problems.unknown_function,
            &problems.section,
            &problems.undefined_name,
            &problems.undefined_value,
            &problems.overlap,
            &problems.conflict,
            &problems.operand,
            &problems.function,
        ];
        match first_of(&order) {
            Some(message) => Err(kind.error(&message)),
            None => Ok(actions),
        }
    }

    /// Refuses placeholders that no expression of the request used.
    pub fn check_unused(&self) -> Result<()> {
        if let Some(names) = self.names {
            let unused: BTreeSet<&String> = names.keys().filter(|k| !self.used_names.contains(*k)).collect();
            if !unused.is_empty() {
                return Err(DynamoError::validation(format!(
                    "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                    join(&unused)
                )));
            }
        }
        if let Some(values) = self.values {
            let unused: BTreeSet<&String> = values.keys().filter(|k| !self.used_values.contains(*k)).collect();
            if !unused.is_empty() {
                return Err(DynamoError::validation(format!(
                    "Value provided in ExpressionAttributeValues unused in expressions: keys: {{{}}}",
                    join(&unused)
                )));
            }
        }
        Ok(())
    }

    fn path(&mut self, raw: &[RawStep], problems: &mut Problems) -> DocPath {
        raw.iter()
            .map(|step| match step {
                RawStep::Word(word) => {
                    if is_reserved(word) {
                        note(&mut problems.reserved, || format!("Attribute name is a reserved keyword; reserved keyword: {word}"));
                    }
                    Step::Attr(word.clone())
                }
                RawStep::Name(placeholder) => if let Some(name) = self.names.and_then(|n| n.get(placeholder)) {
                    self.used_names.insert(placeholder.clone());
                    Step::Attr(name.clone())
                } else {
                    note(&mut problems.undefined_name, || {
                        format!("An expression attribute name used in the document path is not defined; attribute name: {placeholder}")
                    });
                    Step::Attr(placeholder.clone())
                },
                RawStep::Index(i) => Step::Index(*i),
            })
            .collect()
    }

    fn value(&mut self, placeholder: &str, problems: &mut Problems) -> AttributeValue {
        if let Some(value) = self.values.and_then(|v| v.get(placeholder)) {
            self.used_values.insert(placeholder.to_string());
            value.clone()
        } else {
            note(&mut problems.undefined_value, || {
                format!(
                    "An expression attribute value used in expression is not defined; attribute value: {placeholder}"
                )
            });
            AttributeValue::Null
        }
    }

    fn condition_tree(&mut self, raw: &RawCondition, problems: &mut Problems) -> Condition {
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
                check_distinct(op.symbol(), &x, &y, problems);
                Condition::Compare(*op, x, y)
            }
            RawCondition::Between(a, low, high) => {
                let x = self.cond_operand(a, problems);
                let (lo, hi) = (self.cond_operand(low, problems), self.cond_operand(high, problems));
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

    fn action(&mut self, raw: &RawAction, problems: &mut Problems) -> Action {
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
                let type_word = match &value {
                    AttributeValue::S(_) => Some("STRING"),
                    AttributeValue::N(_) if !is_add => Some("NUMBER"),
                    AttributeValue::B(_) => Some("BINARY"),
                    AttributeValue::Null => Some("NULL"),
                    AttributeValue::Bool(_) => Some("BOOLEAN"),
                    AttributeValue::L(_) => Some("LIST"),
                    AttributeValue::M(_) => Some("MAP"),
                    _ => None,
                };
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

/// The type an operand is known to have before any item is seen.
fn static_type(operand: &Operand) -> Option<&'static str> {
    match operand {
        Operand::Value(v) => Some(v.type_name()),
        Operand::Size(_) => Some("N"),
        _ => None,
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
    } else if super::eval::compare_scalars(lo, hi) == Some(std::cmp::Ordering::Greater) {
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

/// Two paths in one update or projection may not overlap (`a` and `a.b`) or conflict (`a[0]` and `a.b`).
fn check_overlap(earlier: &[DocPath], path: &DocPath, problems: &mut Problems) {
    for previous in earlier {
        let mut diverged = false;
        for (x, y) in previous.iter().zip(path.iter()) {
            let same_kind = matches!((x, y), (Step::Attr(_), Step::Attr(_)) | (Step::Index(_), Step::Index(_)));
            if !same_kind {
                note(&mut problems.conflict, || {
                    format!(
                        "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                        path_display(previous),
                        path_display(path)
                    )
                });
                diverged = true;
                break;
            }
            if x != y {
                diverged = true;
                break;
            }
        }
        if !diverged {
            note(&mut problems.overlap, || {
                format!(
                    "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                    path_display(previous),
                    path_display(path)
                )
            });
        }
    }
}

fn largest_in(raw: &RawCondition) -> Option<usize> {
    match raw {
        RawCondition::In(_, list) => Some(list.len()),
        RawCondition::And(a, b) | RawCondition::Or(a, b) => largest_in(a).max(largest_in(b)),
        RawCondition::Not(a) => largest_in(a),
        _ => None,
    }
}

/// The first problem found, in the order given.
fn first_of(order: &[&Option<String>]) -> Option<String> {
    order.iter().find_map(|slot| (*slot).clone())
}

fn join(keys: &BTreeSet<&String>) -> String {
    keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
}

/// Whether the comparison operator needs an order (everything but `=` and `<>`).
pub fn is_ordering(op: CmpOp) -> bool {
    !matches!(op, CmpOp::Eq | CmpOp::Ne)
}
