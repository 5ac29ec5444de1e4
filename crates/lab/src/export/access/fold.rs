//! Requests and values written as code, on one line when they fit and folded one field per line
//! when they do not: the layout both languages share (objects in braces, lists in brackets).

use super::{Node, Plain};
use serde_json::Value;

/// Lines stay within this many characters where they can.
pub(super) const WIDTH: usize = 100;

/// What a language spells its own way.
pub(super) trait Syntax {
    /// An object's key (`TableName` in TypeScript, `"TableName"` in Python).
    fn key(&self, name: &str) -> String;
    /// A request's own string, number or boolean.
    fn json(&self, value: &Value) -> String;
    /// A value that is not a list or a map (strings with their parameters, numbers, sets, bytes).
    fn scalar(&self, value: &Plain) -> String;
    /// The function's page-key parameter.
    fn start_key(&self) -> String;
    /// `{ a: 1 }` (TypeScript, as Prettier writes it) or `{"a": 1}` (Python, as Black does).
    fn padded_braces(&self) -> bool;
    /// One level of indentation: two spaces (TypeScript) or four (Python).
    fn indent(&self) -> &'static str;
}

/// `node` at nesting `depth`, folded where it is too long.
pub(super) fn node(syntax: &dyn Syntax, node: &Node, depth: usize) -> String {
    let inline = node_inline(syntax, node);
    if inline.len() + depth * syntax.indent().len() <= WIDTH {
        return inline;
    }
    match node {
        Node::Object(fields) => folded(
            syntax,
            '{',
            '}',
            depth,
            fields.iter().map(|(k, v)| format!("{}: {}", syntax.key(k), self::node(syntax, v, depth + 1))),
        ),
        Node::Array(items) => folded(syntax, '[', ']', depth, items.iter().map(|i| self::node(syntax, i, depth + 1))),
        Node::Value(value) => plain(syntax, value, depth),
        Node::Json(_) | Node::StartKey => inline,
    }
}

/// A plain value at nesting `depth`, folded where it is too long.
pub(super) fn plain(syntax: &dyn Syntax, value: &Plain, depth: usize) -> String {
    let inline = plain_inline(syntax, value);
    if inline.len() + depth * syntax.indent().len() <= WIDTH {
        return inline;
    }
    match value {
        Plain::Map(fields) => folded(
            syntax,
            '{',
            '}',
            depth,
            fields.iter().map(|(k, v)| format!("{}: {}", syntax.key(k), plain(syntax, v, depth + 1))),
        ),
        Plain::List(items) => folded(syntax, '[', ']', depth, items.iter().map(|i| plain(syntax, i, depth + 1))),
        _ => inline,
    }
}

fn folded(syntax: &dyn Syntax, open: char, close: char, depth: usize, parts: impl Iterator<Item = String>) -> String {
    let pad = syntax.indent().repeat(depth + 1);
    let mut out = format!("{open}\n");
    for part in parts {
        out.push_str(&pad);
        out.push_str(&part);
        out.push_str(",\n");
    }
    out.push_str(&syntax.indent().repeat(depth));
    out.push(close);
    out
}

fn node_inline(syntax: &dyn Syntax, node: &Node) -> String {
    match node {
        Node::StartKey => syntax.start_key(),
        Node::Json(value) => syntax.json(value),
        Node::Object(fields) => {
            braces(syntax, fields.iter().map(|(k, v)| format!("{}: {}", syntax.key(k), node_inline(syntax, v))))
        }
        Node::Array(items) => {
            format!("[{}]", items.iter().map(|i| node_inline(syntax, i)).collect::<Vec<_>>().join(", "))
        }
        Node::Value(value) => plain_inline(syntax, value),
    }
}

/// A plain value on one line.
pub(super) fn plain_inline(syntax: &dyn Syntax, value: &Plain) -> String {
    match value {
        Plain::Map(fields) => {
            braces(syntax, fields.iter().map(|(k, v)| format!("{}: {}", syntax.key(k), plain_inline(syntax, v))))
        }
        Plain::List(items) => {
            format!("[{}]", items.iter().map(|i| plain_inline(syntax, i)).collect::<Vec<_>>().join(", "))
        }
        other => syntax.scalar(other),
    }
}

fn braces(syntax: &dyn Syntax, parts: impl Iterator<Item = String>) -> String {
    let parts: Vec<String> = parts.collect();
    if parts.is_empty() {
        "{}".into()
    } else if syntax.padded_braces() {
        format!("{{ {} }}", parts.join(", "))
    } else {
        format!("{{{}}}", parts.join(", "))
    }
}

/// A string literal both languages read (JSON's escapes are theirs too).
pub(super) fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}
