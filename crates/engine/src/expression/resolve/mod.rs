//! Resolves a parsed expression against `ExpressionAttributeNames` / `ExpressionAttributeValues`
//! and checks it, reporting the first problem in DynamoDB's order for that expression kind.

use super::ast::{path_display, Action, Condition, DocPath, RawStep, Section, Step};
use super::ast::{RawCondition, RawUpdate};
use super::parser::{parse_condition, parse_projection, parse_update, Redundant};
use super::recent::{parsed, Recent};
use super::reserved::is_reserved;
use crate::error::{DynamoError, Result};
use crate::value::AttributeValue;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

mod condition;
mod update;

use condition::largest_in;

thread_local! {
    static CONDITIONS: RefCell<Recent<(RawCondition, Redundant, usize)>> = const { RefCell::new(Recent::new()) };
    static PROJECTIONS: RefCell<Recent<Vec<Vec<RawStep>>>> = const { RefCell::new(Recent::new()) };
    static UPDATES: RefCell<Recent<RawUpdate>> = const { RefCell::new(Recent::new()) };
}

/// The five expression kinds; their names start every message about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprKind {
    Condition,
    Filter,
    KeyCondition,
    Projection,
    Update,
    SearchCondition,
}

impl ExprKind {
    pub fn parameter(self) -> &'static str {
        match self {
            Self::Condition => "ConditionExpression",
            Self::Filter => "FilterExpression",
            Self::KeyCondition => "KeyConditionExpression",
            Self::Projection => "ProjectionExpression",
            Self::Update => "UpdateExpression",
            Self::SearchCondition => "SearchConditionExpression",
        }
    }

    fn error(self, message: &str) -> DynamoError {
        DynamoError::request_validation(format!("Invalid {}: {message}", self.parameter()))
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

    /// Real DynamoDB words the size limit with the size on a Scan's filter (dynoxide's us-east-1
    /// capture, 2026-10) and a transaction's condition (the autumn-2026 suite, ten regions; its
    /// UpdateExpression ends at `size;`); everywhere else the message ends at `size;`.
    #[must_use]
    pub fn with_size_figure(mut self) -> Self {
        self.size_figure = true;
        self
    }

    fn precheck(&self, kind: ExprKind, text: &str) -> Result<()> {
        if text.len() > MAX_EXPRESSION_BYTES {
            let figure = if self.size_figure && kind != ExprKind::Update {
                format!(" expression size: {}", text.len())
            } else {
                String::new()
            };
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
        let parse = parsed(&CONDITIONS, text, parse_condition).map_err(|e| kind.error(&e.0))?;
        let (raw, redundant, operators) = &*parse;
        check_operators(kind, *operators)?;
        if let Some(count) = largest_in(raw).filter(|n| *n > MAX_IN_OPERANDS) {
            return Err(
                kind.error(&format!("The IN operator is provided with too many operands; number of operands: {count}"))
            );
        }
        let mut problems = Problems::default();
        if redundant.0 {
            problems.parens = Some("The expression has redundant parentheses;".into());
        }
        let condition = self.condition_tree(raw, &mut problems);
        let order = [
            &problems.parens,
            &problems.unknown_function,
            &problems.misused_function,
            &problems.reserved,
            &problems.leaf,
        ];
        report_first(kind, &order)?;
        Ok(condition)
    }

    /// A projection expression: the document paths it names.
    pub fn projection(&mut self, text: &str) -> Result<Vec<DocPath>> {
        let kind = ExprKind::Projection;
        self.precheck(kind, text)?;
        let raw = parsed(&PROJECTIONS, text, parse_projection).map_err(|e| kind.error(&e.0))?;
        let mut problems = Problems::default();
        let mut paths: Vec<DocPath> = Vec::new();
        for raw_path in raw.iter() {
            let path = self.path(raw_path, &mut problems);
            check_overlap(&paths, &path, &mut problems);
            paths.push(path);
        }
        let order = [&problems.reserved, &problems.undefined_name, &problems.overlap, &problems.conflict];
        report_first(kind, &order)?;
        Ok(paths)
    }

    /// An update expression: its actions, SET first, then REMOVE, ADD and DELETE.
    pub fn update(&mut self, text: &str) -> Result<Vec<Action>> {
        let kind = ExprKind::Update;
        self.precheck(kind, text)?;
        let raw = parsed(&UPDATES, text, parse_update).map_err(|e| kind.error(&e.0))?;
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
        report_first(kind, &order)?;
        Ok(actions)
    }

    /// Refuses placeholders that no expression of the request used.
    pub fn check_unused(&self) -> Result<()> {
        if let Some(names) = self.names {
            let unused: BTreeSet<&String> = names.keys().filter(|k| !self.used_names.contains(*k)).collect();
            if !unused.is_empty() {
                return Err(DynamoError::request_validation(format!(
                    "Value provided in ExpressionAttributeNames unused in expressions: keys: {{{}}}",
                    join(&unused)
                )));
            }
        }
        if let Some(values) = self.values {
            let unused: BTreeSet<&String> = values.keys().filter(|k| !self.used_values.contains(*k)).collect();
            if !unused.is_empty() {
                return Err(DynamoError::request_validation(format!(
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

/// Fails with the first problem found, taking the slots in the order given.
fn report_first(kind: ExprKind, order: &[&Option<String>]) -> Result<()> {
    match order.iter().find_map(|slot| slot.as_deref()) {
        Some(message) => Err(kind.error(message)),
        None => Ok(()),
    }
}

fn join(keys: &BTreeSet<&String>) -> String {
    keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
}
