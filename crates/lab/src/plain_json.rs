//! Plain JSON ↔ DynamoDB JSON, without surprises: numbers keep their exact text (never through
//! `f64`), and an item holding sets or binary — which plain JSON cannot say — is refused in plain
//! form rather than silently turned into lists and strings.

use serde_json::{Map, Value};

/// A JSON document as written, numbers kept as their text.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

const MAX_DEPTH: usize = 128;
const TYPES: [&str; 10] = ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"];

/// Parses JSON text, keeping number text exactly.
pub fn parse(text: &str) -> Result<Json, String> {
    parse_with(text, false)
}

/// [`parse`], also taking Python's `True`, `False` and `None` (files written by tools that
/// print Python dicts, such as some `dynamodb_data_model.json` generators).
pub fn parse_lenient(text: &str) -> Result<Json, String> {
    parse_with(text, true)
}

fn parse_with(text: &str, python_literals: bool) -> Result<Json, String> {
    let mut parser = Parser { text: text.as_bytes(), at: 0, python_literals };
    parser.skip_space();
    let value = parser.value(0)?;
    parser.skip_space();
    if parser.at != parser.text.len() {
        return Err(parser.error("unexpected text after the JSON value"));
    }
    Ok(value)
}

impl Json {
    /// This value as `serde_json` holds it (numbers parsed from their text).
    pub fn to_value(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Bool(b) => Value::Bool(*b),
            Self::Number(n) => serde_json::from_str(n).unwrap_or_else(|_| Value::String(n.clone())),
            Self::String(s) => Value::String(s.clone()),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(members) => Value::Object(members.iter().map(|(k, v)| (k.clone(), v.to_value())).collect()),
        }
    }

    /// The DynamoDB JSON attribute value for this plain value.
    pub fn to_attribute(&self) -> Value {
        let typed = |t: &str, v: Value| Value::Object(Map::from_iter([(t.to_string(), v)]));
        match self {
            Self::Null => typed("NULL", Value::Bool(true)),
            Self::Bool(b) => typed("BOOL", Value::Bool(*b)),
            Self::Number(n) => typed("N", Value::String(n.clone())),
            Self::String(s) => typed("S", Value::String(s.clone())),
            Self::Array(items) => typed("L", Value::Array(items.iter().map(Self::to_attribute).collect())),
            Self::Object(members) => typed("M", Value::Object(attribute_map(members))),
        }
    }

    /// Whether this object is an item in DynamoDB JSON: every attribute one `{"<type>": ...}`.
    pub fn is_dynamodb_item(&self) -> bool {
        match self {
            Self::Object(members) => !members.is_empty() && members.iter().all(|(_, v)| v.is_attribute_value()),
            _ => false,
        }
    }

    /// `{"<type>": anything}`: meant as a DynamoDB JSON attribute value, right or wrong.
    fn looks_typed(&self) -> bool {
        matches!(self, Self::Object(members) if members.len() == 1 && TYPES.contains(&members[0].0.as_str()))
    }

    /// What is wrong with this attribute value, at `path`.
    fn mistake(&self, path: &str) -> Option<String> {
        if self.is_attribute_value() {
            return None;
        }
        let Self::Object(members) = self else {
            return Some(format!("{path}: expected a DynamoDB JSON value such as {{\"S\": \"text\"}}"));
        };
        let [(kind, value)] = members.as_slice() else {
            return Some(format!(
                "{path}: expected one DynamoDB type such as {{\"S\": \"text\"}}, found {} members",
                members.len()
            ));
        };
        let at = format!("{path}.{kind}");
        Some(match (kind.as_str(), value) {
            ("N", Self::Number(n)) => {
                format!("{at}: a number is written as a string in DynamoDB JSON ({{\"N\": \"{n}\"}}), not {n}")
            }
            ("S" | "N" | "B", _) => format!("{at}: expected a string"),
            ("BOOL" | "NULL", _) => format!("{at}: expected true or false"),
            ("SS" | "NS" | "BS", _) => format!("{at}: expected a list of strings"),
            ("L", Self::Array(items)) => {
                return items.iter().enumerate().find_map(|(i, item)| item.mistake(&format!("{at}[{i}]")));
            }
            ("M", Self::Object(members)) => {
                return members.iter().find_map(|(name, value)| value.mistake(&format!("{at}.{name}")));
            }
            ("L", _) => format!("{at}: expected a list of attribute values"),
            ("M", _) => format!("{at}: expected a map of attribute values"),
            (other, _) => {
                format!(
                    "{at}: `{other}` is not a DynamoDB type (expected one of S, N, B, BOOL, NULL, M, L, SS, NS, BS)"
                )
            }
        })
    }

    /// Every mistake in this attribute value at `path` (a map or list lists each of its own).
    fn all_mistakes(&self, path: &str, out: &mut Vec<String>) {
        if self.is_attribute_value() {
            return;
        }
        match self {
            Self::Object(members) if members.len() == 1 => {
                let (kind, value) = &members[0];
                let at = format!("{path}.{kind}");
                match (kind.as_str(), value) {
                    ("L", Self::Array(items)) => {
                        for (i, item) in items.iter().enumerate() {
                            item.all_mistakes(&format!("{at}[{i}]"), out);
                        }
                    }
                    ("M", Self::Object(entries)) => {
                        for (name, entry) in entries {
                            entry.all_mistakes(&format!("{at}.{name}"), out);
                        }
                    }
                    (other, _) if !TYPES.contains(&other) => out.push(format!(
                        "{at}: `{other}` is not a DynamoDB type (expected one of S, N, B, BOOL, NULL, M, L, SS, NS, BS)"
                    )),
                    _ => out.extend(self.mistake(path)),
                }
            }
            _ => out.extend(self.mistake(path)),
        }
    }

    fn is_attribute_value(&self) -> bool {
        let Self::Object(members) = self else { return false };
        let [(kind, value)] = members.as_slice() else { return false };
        match (kind.as_str(), value) {
            ("S" | "N" | "B", Self::String(_)) | ("BOOL" | "NULL", Self::Bool(_)) => true,
            ("SS" | "NS" | "BS", Self::Array(items)) => items.iter().all(|i| matches!(i, Self::String(_))),
            ("L", Self::Array(items)) => items.iter().all(Self::is_attribute_value),
            ("M", Self::Object(members)) => members.iter().all(|(_, v)| v.is_attribute_value()),
            _ => false,
        }
    }
}

fn attribute_map(members: &[(String, Json)]) -> Map<String, Value> {
    members.iter().map(|(k, v)| (k.clone(), v.to_attribute())).collect()
}

/// An item given as DynamoDB JSON or as plain JSON, in DynamoDB JSON. An item whose every
/// attribute is written `{"<type>": ...}` is DynamoDB JSON; a mistake in it is an error naming the
/// attribute's path (`.total.N: ...`), not a silently different plain-JSON map.
pub fn item_from(json: &Json) -> Result<Value, String> {
    match json {
        _ if json.is_dynamodb_item() => Ok(json.to_value()),
        Json::Object(members) if !members.is_empty() && members.iter().all(|(_, v)| v.looks_typed()) => {
            let mistake = members.iter().find_map(|(name, value)| value.mistake(&format!(".{name}")));
            Err(mistake.unwrap_or_else(|| "not a DynamoDB JSON item".into()))
        }
        Json::Object(members) => Ok(Value::Object(attribute_map(members))),
        _ => Err("An item must be a JSON object".into()),
    }
}

/// An item as a modelling tool writes it (NoSQL Workbench): DynamoDB JSON whose `M` and `L`
/// values may hold plain JSON (`{"M": {"City": "Paris", "HP": 100}}`), read as plain JSON with a
/// note naming each; an item wholly in plain JSON is read as such. Every mistake is listed, each
/// with its path after `path` and what was expected, not only the first.
pub fn item_from_model(json: &Json, path: &str) -> Result<(Value, Vec<String>), Vec<String>> {
    let Json::Object(members) = json else { return Err(vec![format!("{path}: an item must be a JSON object")]) };
    // Plain JSON only when nothing in it is written as a DynamoDB type: one typed attribute makes
    // the item DynamoDB JSON, and every other attribute a mistake to name.
    if !members.iter().any(|(_, v)| v.looks_typed()) {
        return item_from(json).map(|item| (item, Vec::new())).map_err(|e| vec![format!("{path}{}", joined(&e))]);
    }
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    let mut item = Map::new();
    for (name, value) in members {
        if let Some(value) = model_attribute(value, &format!("{path}.{name}"), &mut notes, &mut errors) {
            item.insert(name.clone(), value);
        }
    }
    if errors.is_empty() {
        Ok((Value::Object(item), notes))
    } else {
        Err(errors)
    }
}

/// An item error joined to the path before it: `: message`, or `.path: message` as it came.
pub(crate) fn joined(error: &str) -> String {
    if error.starts_with('.') {
        error.to_string()
    } else {
        format!(": {error}")
    }
}

/// One attribute value of a model's item, `M` and `L` contents allowed in plain JSON.
fn model_attribute(value: &Json, at: &str, notes: &mut Vec<String>, errors: &mut Vec<String>) -> Option<Value> {
    if value.is_attribute_value() {
        return Some(value.to_value());
    }
    let Json::Object(members) = value else {
        errors.push(format!("{at}: expected a DynamoDB JSON value such as {{\"S\": \"text\"}} or {{\"N\": \"12\"}}"));
        return None;
    };
    let [(kind, inner)] = members.as_slice() else {
        let names: Vec<String> = members.iter().map(|(n, _)| format!("`{n}`")).collect();
        errors.push(format!(
            "{at}: expected one type such as {{\"S\": \"text\"}}, found {} members ({})",
            members.len(),
            names.join(", ")
        ));
        return None;
    };
    let at_kind = format!("{at}.{kind}");
    match (kind.as_str(), inner) {
        ("M", Json::Object(entries)) => {
            if entries.iter().all(|(_, v)| !v.looks_typed()) {
                notes.push(format!(
                    "{at_kind}: plain JSON inside `M` (as NoSQL Workbench writes it), read as plain JSON"
                ));
                return Some(inner.to_attribute());
            }
            let mut map = Map::new();
            for (name, entry) in entries {
                if let Some(v) = model_attribute_or_plain(entry, &format!("{at_kind}.{name}"), notes, errors) {
                    map.insert(name.clone(), v);
                }
            }
            Some(Value::Object(Map::from_iter([("M".to_string(), Value::Object(map))])))
        }
        ("L", Json::Array(items)) => {
            if items.iter().all(|v| !v.looks_typed()) {
                notes.push(format!(
                    "{at_kind}: plain JSON inside `L` (as NoSQL Workbench writes it), read as plain JSON"
                ));
                return Some(inner.to_attribute());
            }
            let list: Vec<Value> = items
                .iter()
                .enumerate()
                .filter_map(|(i, v)| model_attribute_or_plain(v, &format!("{at_kind}[{i}]"), notes, errors))
                .collect();
            Some(Value::Object(Map::from_iter([("L".to_string(), Value::Array(list))])))
        }
        _ => {
            let mut found = Vec::new();
            value.all_mistakes(at, &mut found);
            errors.extend(found);
            None
        }
    }
}

/// Inside a map or list that mixes typed and plain values: a typed value is read as such, a plain
/// scalar as plain JSON (with a note), anything else is a mistake.
fn model_attribute_or_plain(
    value: &Json,
    at: &str,
    notes: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> Option<Value> {
    if value.looks_typed() {
        return model_attribute(value, at, notes, errors);
    }
    notes.push(format!("{at}: plain JSON among DynamoDB JSON values, read as plain JSON"));
    Some(value.to_attribute())
}

/// An item's text, DynamoDB JSON or plain, in DynamoDB JSON.
pub fn item_from_text(text: &str) -> Result<Value, String> {
    item_from(&parse(text)?)
}

/// A DynamoDB JSON item as plain JSON text, or why it cannot be (sets and binary).
pub fn to_plain(item: &Value) -> Result<String, String> {
    let Value::Object(attributes) = item else { return Err("An item must be a JSON object".into()) };
    let mut out = String::new();
    write_map(attributes, &mut out, 0)?;
    Ok(out)
}

fn write_map(attributes: &Map<String, Value>, out: &mut String, indent: usize) -> Result<(), String> {
    if attributes.is_empty() {
        out.push_str("{}");
        return Ok(());
    }
    out.push_str("{\n");
    for (i, (name, value)) in attributes.iter().enumerate() {
        out.push_str(&"  ".repeat(indent + 1));
        out.push_str(&Value::String(name.clone()).to_string());
        out.push_str(": ");
        write_attribute(name, value, out, indent + 1)?;
        out.push_str(if i + 1 < attributes.len() { ",\n" } else { "\n" });
    }
    out.push_str(&"  ".repeat(indent));
    out.push('}');
    Ok(())
}

fn write_attribute(name: &str, value: &Value, out: &mut String, indent: usize) -> Result<(), String> {
    let Some((kind, inner)) = value.as_object().and_then(|m| m.iter().next()) else {
        return Err(format!("`{name}` is not DynamoDB JSON"));
    };
    match (kind.as_str(), inner) {
        ("S", s @ Value::String(_)) => out.push_str(&s.to_string()),
        ("N", Value::String(n)) => out.push_str(n),
        ("BOOL", Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        ("NULL", _) => out.push_str("null"),
        ("L", Value::Array(items)) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_attribute(name, item, out, indent)?;
            }
            out.push(']');
        }
        ("M", Value::Object(members)) => write_map(members, out, indent)?,
        (t, _) if TYPES.contains(&t) => {
            return Err(format!(
                "`{name}` is a {t}, which plain JSON cannot express without changing its type: use DynamoDB JSON"
            ))
        }
        _ => return Err(format!("`{name}` is not DynamoDB JSON")),
    }
    Ok(())
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    python_literals: bool,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        let line = self.text[..self.at.min(self.text.len())].split(|&c| c == b'\n').count();
        format!("Invalid JSON at line {line}: {what}")
    }

    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.text.get(self.at) {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'T') if self.python_literals => self.literal("True", Json::Bool(true)),
            Some(b'F') if self.python_literals => self.literal("False", Json::Bool(false)),
            Some(b'N') if self.python_literals => self.literal("None", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end")),
        }
    }

    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        while self.text.get(self.at).is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default();
        // serde_json checks the grammar; the text itself is what is kept.
        if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
            return Err(self.error(&format!("`{text}` is not a number")));
        }
        Ok(Json::Number(text.to_string()))
    }

    fn string(&mut self) -> Result<String, String> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.text.get(self.at) {
                Some(b'"') => break,
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
                None => return Err(self.error("unclosed string")),
            }
        }
        self.at += 1;
        let raw = std::str::from_utf8(&self.text[start..self.at]).map_err(|_| self.error("invalid UTF-8"))?;
        serde_json::from_str(raw).map_err(|e| self.error(&format!("bad string: {e}")))
    }

    fn array(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_space();
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, String> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_space();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(self.error("expected a member name"));
            }
            let name = self.string()?;
            self.skip_space();
            if self.text.get(self.at) != Some(&b':') {
                return Err(self.error("expected `:`"));
            }
            self.at += 1;
            self.skip_space();
            let value = self.value(depth + 1)?;
            // A repeated name keeps the last value, as JSON.parse does.
            members.retain(|(n, _): &(String, Json)| n != &name);
            members.push((name, value));
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_numbers_keep_every_digit() {
        let item =
            item_from_text(r#"{"id": "a", "big": 123456789012345678901234567890.5, "tiny": 1e-130, "n": -0.10}"#)
                .expect("item");
        assert_eq!(item["big"], json!({"N": "123456789012345678901234567890.5"}));
        assert_eq!(item["tiny"], json!({"N": "1e-130"}));
        assert_eq!(item["n"], json!({"N": "-0.10"}));
    }

    #[test]
    fn plain_and_dynamodb_json_are_told_apart() {
        let plain = item_from_text(r#"{"id": "u1", "tags": ["a", 1, null], "m": {"ok": true}}"#).expect("item");
        assert_eq!(
            plain,
            json!({"id": {"S": "u1"}, "tags": {"L": [{"S": "a"}, {"N": "1"}, {"NULL": true}]}, "m": {"M": {"ok": {"BOOL": true}}}})
        );
        let typed = item_from_text(r#"{"id": {"S": "u1"}, "s": {"SS": ["x"]}, "b": {"B": "AQI="}}"#).expect("item");
        assert_eq!(typed["s"], json!({"SS": ["x"]}));
        // One attribute that is not a type descriptor makes the whole item plain.
        let mixed = item_from_text(r#"{"id": {"S": "u1"}, "n": 5}"#).expect("item");
        assert_eq!(mixed["id"], json!({"M": {"S": {"S": "u1"}}}));
    }

    #[test]
    fn to_plain_round_trips_and_refuses_sets_and_binary() {
        let item = json!({"id": {"S": "a\"b"}, "n": {"N": "1.50"}, "l": {"L": [{"BOOL": false}, {"NULL": true}]}, "m": {"M": {}}});
        let text = to_plain(&item).expect("plain");
        assert_eq!(item_from_text(&text).expect("back"), item);
        let error = to_plain(&json!({"id": {"S": "a"}, "s": {"NS": ["1"]}})).expect_err("sets");
        assert!(error.contains("`s` is a NS"), "{error}");
        assert!(to_plain(&json!({"b": {"B": "AA=="}})).is_err());
    }

    #[test]
    fn bad_json_says_where_and_deep_json_is_refused() {
        let error = parse("{\n \"a\": 1,\n \"b\": }").expect_err("bad");
        assert_eq!(error, "Invalid JSON at line 3: expected a value");
        assert!(parse(&"[".repeat(100_000)).expect_err("deep").contains("nested too deeply"));
        assert!(parse("01").is_err());
        assert!(parse(r#"{"a": "\ud800"}"#).is_err());
        assert!(parse("[1, 2] x").is_err());
    }
}
