//! The two trees of an expression: as parsed (placeholders still named), and as resolved
//! (placeholders replaced by attribute names and values), which is what evaluation walks.

use crate::value::AttributeValue;

/// One element of a parsed document path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawStep {
    /// A bare attribute name, as written.
    Word(String),
    /// A `#name` placeholder.
    Name(String),
    /// `[n]`
    Index(usize),
}

/// A parsed operand.
#[derive(Debug, Clone, PartialEq)]
pub enum RawOperand {
    Path(Vec<RawStep>),
    Value(String),
    Call { name: String, args: Vec<RawOperand> },
    Plus(Box<RawOperand>, Box<RawOperand>),
    Minus(Box<RawOperand>, Box<RawOperand>),
}

/// `=`, `<>`, `<`, `<=`, `>`, `>=`
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Eq => "=",
            Self::Ne => "<>",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
        }
    }
}

/// A parsed condition (also filter and key condition).
#[derive(Debug, Clone, PartialEq)]
pub enum RawCondition {
    Compare(CmpOp, RawOperand, RawOperand),
    Between(RawOperand, RawOperand, RawOperand),
    In(RawOperand, Vec<RawOperand>),
    Call { name: String, args: Vec<RawOperand> },
    And(Box<RawCondition>, Box<RawCondition>),
    Or(Box<RawCondition>, Box<RawCondition>),
    Not(Box<RawCondition>),
}

/// The four clauses of an update expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Set,
    Remove,
    Add,
    Delete,
}

impl Section {
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Set => "SET",
            Self::Remove => "REMOVE",
            Self::Add => "ADD",
            Self::Delete => "DELETE",
        }
    }
}

/// One parsed update action.
#[derive(Debug, Clone, PartialEq)]
pub enum RawAction {
    Set(Vec<RawStep>, RawOperand),
    Remove(Vec<RawStep>),
    Add(Vec<RawStep>, String),
    Delete(Vec<RawStep>, String),
}

/// A parsed update expression: its sections in the order written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawUpdate {
    pub sections: Vec<(Section, Vec<RawAction>)>,
    /// Operators and functions in the expression, for DynamoDB's limit of 300.
    pub operators: usize,
}

/// One element of a resolved document path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Attr(String),
    Index(usize),
}

/// A resolved document path such as `a.b[3].c`.
pub type DocPath = Vec<Step>;

/// How DynamoDB prints a path in messages: `[a, b, [3]]`.
pub fn path_display(path: &[Step]) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|s| match s {
            Step::Attr(a) => a.clone(),
            Step::Index(i) => format!("[{i}]"),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A resolved operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Path(DocPath),
    Value(AttributeValue),
    Size(Box<Operand>),
    IfNotExists(DocPath, Box<Operand>),
    ListAppend(Box<Operand>, Box<Operand>),
    Plus(Box<Operand>, Box<Operand>),
    Minus(Box<Operand>, Box<Operand>),
}

/// A resolved condition, ready to evaluate against an item.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Compare(CmpOp, Operand, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    Exists(DocPath),
    NotExists(DocPath),
    AttributeType(Operand, Operand),
    BeginsWith(Operand, Operand),
    Contains(Operand, Operand),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

/// One resolved update action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Set(DocPath, Operand),
    Remove(DocPath),
    Add(DocPath, AttributeValue),
    Delete(DocPath, AttributeValue),
}

impl Action {
    /// The document path the action changes.
    pub fn path(&self) -> &DocPath {
        match self {
            Self::Set(p, _) | Self::Remove(p) | Self::Add(p, _) | Self::Delete(p, _) => p,
        }
    }
}
