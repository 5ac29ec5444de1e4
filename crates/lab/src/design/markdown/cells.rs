//! One cell's value, read as people write it: rates (`400`, `400/s`, `~400 RPS`, `24k/min`),
//! sizes, shares, consistency and read/write words (or an operation's name), key attributes and
//! projections. Each reader says `None` or why, never guesses silently; the caller names the cell.

use crate::design::template::Template;
use crate::design::{Attribute, KeyAttribute, Projection};
use crate::workbook::{Consistency, PatternKind};

/// A table or index name DynamoDB takes: 3 to 255 of `a-z A-Z 0-9 _ . -`.
pub fn valid_name(name: &str) -> bool {
    (3..=255).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

pub fn blank(text: &str) -> bool {
    matches!(text.trim(), "" | "-" | "—" | "–" | "n/a" | "N/A" | "none" | "None" | "—-")
}

/// A request rate in requests per second: `300`, `1,200`, `~50`, `2k`, `0.5`, `400/s`, `~400 RPS`,
/// `400 req/s`, `24,000/min` (400), `100-200` (the upper end: a peak), `500 peak / 50 avg` (500).
pub fn rate(text: &str) -> Option<f64> {
    rates(text).map(|(peak, _)| peak)
}

/// A rate cell's peak and, when it says one, its average (`500 peak / 50 avg`).
pub fn rates(text: &str) -> Option<(f64, Option<f64>)> {
    let lower = text.trim().to_ascii_lowercase();
    if lower.contains("avg") || lower.contains("average") {
        let mut numbers = lower
            .split(['/', ',', ';', '('])
            .map(|part| (part.contains("avg") || part.contains("average"), single_rate(part)));
        let (mut peak, mut avg) = (None, None);
        for (is_avg, value) in numbers.by_ref() {
            match (is_avg, value) {
                (true, Some(v)) => avg = Some(v),
                (false, Some(v)) if peak.is_none() => peak = Some(v),
                _ => {}
            }
        }
        return peak.or(avg).map(|p| (p, avg.filter(|a| *a <= p)));
    }
    if let Some((low, high)) = lower.split_once(['-', '–']).filter(|(low, _)| !low.trim().is_empty()) {
        if let (Some(_), Some(high)) = (single_rate(low), single_rate(high)) {
            return Some((high, None));
        }
    }
    single_rate(&lower).map(|v| (v, None))
}

fn single_rate(text: &str) -> Option<f64> {
    let mut text = text.trim().trim_start_matches(['~', '≈', '<', '>', '≤', '≥', '=']).trim().to_string();
    for word in ["peak", "avg", "average", "sustained", "up to", "about", "approx.", "approx", "around"] {
        text = text.replace(word, " ");
    }
    let mut per = 1.0;
    for (unit, seconds) in [
        ("per second", 1.0),
        ("per minute", 60.0),
        ("per hour", 3600.0),
        ("per day", 86_400.0),
        ("/sec", 1.0),
        ("/second", 1.0),
        ("/min", 60.0),
        ("/minute", 60.0),
        ("/hour", 3600.0),
        ("/hr", 3600.0),
        ("/h", 3600.0),
        ("/day", 86_400.0),
        ("/d", 86_400.0),
        ("/s", 1.0),
        ("/m", 60.0),
    ] {
        if let Some(at) = text.find(unit) {
            text.truncate(at);
            per = seconds;
            break;
        }
    }
    for word in ["requests", "request", "reqs", "req", "rps", "qps", "tps", "wps", "ops", "calls", "reads", "writes"] {
        text = text.replace(word, " ");
    }
    let text = text.replace([',', '_', ' '], "");
    let (digits, factor) = match text.strip_suffix(['k', 'K']) {
        Some(digits) => (digits, 1000.0),
        None => match text.strip_suffix(['m', 'M']) {
            Some(digits) => (digits, 1_000_000.0),
            None => (text.as_str(), 1.0),
        },
    };
    let value: f64 = digits.parse().ok()?;
    let value = value * factor / per;
    (value.is_finite() && value >= 0.0).then_some(value)
}

/// Read or write, from the words people put in a Type column: `read`, `W`, `Read/Write` (a write),
/// or an operation's name (`PutItem`, `Query`, `TransactWriteItems`).
pub fn kind_word(text: &str) -> Option<PatternKind> {
    let lower = text.trim().to_ascii_lowercase();
    let squashed: String = lower.chars().filter(char::is_ascii_alphanumeric).collect();
    if matches!(squashed.as_str(), "r" | "read" | "reads" | "lookup" | "get" | "list" | "search" | "fetch") {
        return Some(PatternKind::Read);
    }
    if matches!(squashed.as_str(), "w" | "write" | "writes" | "rw" | "readwrite" | "create" | "insert" | "upsert") {
        return Some(PatternKind::Write);
    }
    let words: Vec<&str> = lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let operations: Vec<&str> = words.iter().filter_map(|w| crate::design::calls::operation_name(w)).collect();
    if operations.iter().any(|op| is_write_operation(op))
        || words.iter().any(|w| *w == "write" || *w == "batchwriteitem")
    {
        return Some(PatternKind::Write);
    }
    if !operations.is_empty() || words.iter().any(|w| *w == "read") {
        return Some(PatternKind::Read);
    }
    None
}

pub fn is_write_operation(operation: &str) -> bool {
    matches!(operation, "PutItem" | "UpdateItem" | "DeleteItem" | "TransactWriteItems" | "BatchWriteItem")
}

/// What a pattern's name says it does, when its Type cell does not: `Create a user` writes.
pub fn kind_from_name(name: &str) -> PatternKind {
    const WRITES: [&str; 16] = [
        "create", "add", "update", "delete", "remove", "place", "return", "record", "set", "put", "insert", "cancel",
        "register", "save", "borrow", "write",
    ];
    let first = name.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
    if WRITES.contains(&first.as_str()) {
        PatternKind::Write
    } else {
        PatternKind::Read
    }
}

/// `eventual`, `strong`, `atomic` and the ways people write them (`Eventually consistent`,
/// `Strong (base table)`, `ACID`, `EC`). `Ok(None)` for a blank cell.
pub fn consistency_word(text: &str) -> Result<Option<Consistency>, ()> {
    if blank(text) {
        return Ok(None);
    }
    let lower = text.trim().to_ascii_lowercase();
    let squashed: String = lower.chars().filter(char::is_ascii_alphanumeric).collect();
    if squashed == "ec" || lower.contains("eventual") {
        return Ok(Some(Consistency::Eventual));
    }
    if ["atomic", "transaction", "acid", "serializ", "all-or-nothing", "all or nothing"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return Ok(Some(Consistency::Transactional));
    }
    if squashed == "sc"
        || lower.contains("strong")
        || lower.contains("consistent read")
        || lower.contains("read-after-write")
    {
        return Ok(Some(Consistency::Strong));
    }
    Err(())
}

/// `40%` or `0.4` → 0.4 (above 0, at most 1).
pub fn percentage(text: &str) -> Option<f64> {
    let text = text.trim();
    let value: f64 = match text.strip_suffix('%') {
        Some(number) => number.trim().parse::<f64>().ok()? / 100.0,
        None => text.parse().ok()?,
    };
    (value > 0.0 && value <= 1.0).then_some(value)
}

/// `350 B`, `2 KB`, `1.5KB`, `400 KB`, `~1 KB` (as DynamoDB counts: 1 KB = 1,024 bytes).
pub fn bytes(text: &str) -> Option<u64> {
    let text = text.trim().trim_start_matches(['~', '≈']).to_ascii_uppercase().replace([' ', ','], "");
    let text = text.strip_suffix("YTES").map_or(text.clone(), str::to_string);
    let (digits, factor) = if let Some(d) = text.strip_suffix("KB").or_else(|| text.strip_suffix("KIB")) {
        (d, 1024.0)
    } else if let Some(d) = text.strip_suffix('B') {
        (d, 1.0)
    } else {
        (text.as_str(), 1.0)
    };
    let value: f64 = digits.parse().ok()?;
    let size = (value * factor).round();
    (size >= 1.0 && size <= 400.0 * 1024.0).then_some(size as u64)
}

/// `PK (S), SK (N)` or `PK, SK`.
pub fn read_keys(text: &str) -> Result<(KeyAttribute, Option<KeyAttribute>), String> {
    let mut keys = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        keys.push(key_attribute(part)?);
    }
    match keys.len() {
        1 | 2 => {
            let mut keys = keys.into_iter();
            let partition = keys.next().ok_or("a partition key")?;
            Ok((partition, keys.next()))
        }
        _ => Err(format!("`{text}`: a partition key and at most a sort key, such as `PK (S), SK (S)`")),
    }
}

/// `GSI1PK`, `GSI1PK (S)`, `createdAt (N)`, `userId (String)`, `` `userId` - why it was chosen ``.
pub fn key_attribute(text: &str) -> Result<KeyAttribute, String> {
    let text = text.trim();
    // A bullet's justification after the name: `userId - distributes evenly`, `userId: …`.
    let text = text.split(" - ").next().unwrap_or(text).split(" — ").next().unwrap_or(text).trim();
    let text = text.trim_matches('`');
    let (name, kind) = match text.find('(') {
        Some(open) if text.ends_with(')') => (text[..open].trim(), text[open + 1..text.len() - 1].trim()),
        _ => (text, "S"),
    };
    let name = name.trim().trim_matches('`').trim();
    let kind = match kind.to_ascii_uppercase().as_str() {
        "S" | "STRING" => "S",
        "N" | "NUMBER" | "NUMERIC" => "N",
        "B" | "BINARY" => "B",
        other => return Err(format!("`{other}` is not a key type: S, N or B")),
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("`{text}` is not an attribute name"));
    }
    Ok(KeyAttribute { name: name.to_string(), kind: kind.into() })
}

/// `ALL`, `KEYS_ONLY`, `keys-only`, `INCLUDE total, status` (also inside other words: `sparse,
/// INCLUDE a,b`).
pub fn read_projection(text: &str) -> Result<Option<Projection>, String> {
    let upper = text.to_ascii_uppercase().replace('-', "_");
    if blank(text) {
        return Ok(None);
    }
    if let Some(at) = upper.find("INCLUDE") {
        let names: Vec<String> = text[at + "INCLUDE".len()..]
            .split(" - ")
            .next()
            .unwrap_or_default()
            .split([',', ' ', '(', ')', '[', ']', ':'])
            .map(|n| n.trim().trim_matches('`'))
            .filter(|n| !n.is_empty() && *n != "and")
            .map(String::from)
            .collect();
        if names.is_empty() {
            return Err("INCLUDE names the attributes it projects: `INCLUDE total, status`".into());
        }
        return Ok(Some(Projection::Include(names)));
    }
    if upper.contains("KEYS_ONLY") || upper.contains("KEYS ONLY") || upper.contains("KEYSONLY") {
        return Ok(Some(Projection::KeysOnly));
    }
    if upper.split(|c: char| !c.is_ascii_alphabetic()).any(|w| w == "ALL") {
        return Ok(Some(Projection::All));
    }
    Err(format!("`{text}` is not a projection: ALL, KEYS_ONLY or INCLUDE a, b"))
}

/// A layout cell: `WAREHOUSE#<warehouseId>#OPEN (30%)` → the template and the share of items
/// that have the attribute.
pub fn template_cell(text: &str) -> Result<(Template, f64), String> {
    let (template, share) = presence(text.trim())?;
    Ok((Template::parse(template)?, share))
}

/// A layout cell's text, as [`template_cell`] reads it.
pub fn template_cell_text(template: &Template, share: f64) -> String {
    if share < 1.0 {
        format!("{template} ({}%)", (share * 100.0 * 1e6).round() / 1e6)
    } else {
        template.to_string()
    }
}

/// `WAREHOUSE#<warehouseId>#OPEN (30%)` → the template and the share of items that have it.
pub fn presence(text: &str) -> Result<(&str, f64), String> {
    let Some(open) = text.rfind('(') else { return Ok((text, 1.0)) };
    let inside = text[open + 1..].trim_end_matches(')').trim();
    let Some(percent) = inside.strip_suffix('%') else { return Ok((text, 1.0)) };
    match percent.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok((text[..open].trim(), p / 100.0)),
        _ => {
            Err(format!("`({inside})`: the share of items with this attribute is a percentage above 0 and at most 100"))
        }
    }
}

/// An Attributes cell's text, as [`read_attributes`] reads it.
pub fn attributes_text(attributes: &[Attribute]) -> String {
    attributes
        .iter()
        .map(|a| match (&a.example, a.size) {
            (_, Some(size)) => format!("{} ({size} B)", a.name),
            (Some(example), None) => format!("{}={example}", a.name),
            (None, None) => a.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `email=<userId>@example.com, total=42.5, payload (2 KB), note`.
pub fn read_attributes(text: &str) -> Result<Vec<Attribute>, String> {
    let mut attributes: Vec<Attribute> = Vec::new();
    if blank(text) {
        return Ok(attributes);
    }
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, example) = match part.split_once('=') {
            Some((name, example)) => (name.trim(), Some(example.trim().trim_matches('`').to_string())),
            None => (part, None),
        };
        let (name, size) = match name.find('(') {
            Some(open) if name.ends_with(')') => {
                let inside = &name[open + 1..name.len() - 1];
                let size = bytes(inside).ok_or_else(|| format!("`{inside}` is not a size such as 2 KB"))?;
                (name[..open].trim(), Some(size))
            }
            _ => (name, None),
        };
        let name = name.trim_matches('`');
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("`{part}` is not an attribute: `name`, `name=example` or `name (2 KB)`"));
        }
        if let Some(example) = &example {
            Template::parse(example).map_err(|e| format!("attribute `{name}`: {e}"))?;
        }
        attributes.push(Attribute { name: name.to_string(), example, size });
    }
    Ok(attributes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_people_write_them() {
        for (text, expected) in [
            ("1,200", 1200.0),
            ("~2k", 2000.0),
            ("400/s", 400.0),
            ("~400 RPS", 400.0),
            ("400 req/s", 400.0),
            ("24,000/min", 400.0),
            ("100-200", 200.0),
            ("500 RPS", 500.0),
            ("0.5", 0.5),
            ("up to 50 requests per second", 50.0),
        ] {
            assert_eq!(rate(text), Some(expected), "{text}");
        }
        assert_eq!(rates("500 peak / 50 avg"), Some((500.0, Some(50.0))));
        assert_eq!(rate("fast"), None);
        assert_eq!(rate("20 items"), None, "a count of items is not a rate");
    }

    #[test]
    fn kinds_and_consistency_in_the_words_people_use() {
        assert_eq!(kind_word("PutItem"), Some(PatternKind::Write));
        assert_eq!(kind_word("Query"), Some(PatternKind::Read));
        assert_eq!(kind_word("TransactWriteItems"), Some(PatternKind::Write));
        assert_eq!(kind_word("Read/Write"), Some(PatternKind::Write));
        assert_eq!(kind_word("R"), Some(PatternKind::Read));
        assert_eq!(kind_word("sometimes"), None);
        assert_eq!(kind_from_name("Return a loan"), PatternKind::Write);
        assert_eq!(consistency_word("Eventually consistent"), Ok(Some(Consistency::Eventual)));
        assert_eq!(consistency_word("Strong (base table)"), Ok(Some(Consistency::Strong)));
        assert_eq!(consistency_word("ACID"), Ok(Some(Consistency::Transactional)));
        assert_eq!(consistency_word("-"), Ok(None));
        assert_eq!(consistency_word("whenever"), Err(()));
    }

    #[test]
    fn sizes_keys_and_projections() {
        assert_eq!(bytes("2 KB"), Some(2048));
        assert_eq!(bytes("350 B"), Some(350));
        assert_eq!(bytes("~1 KB"), Some(1024));
        assert_eq!(bytes("401 KB"), None);
        assert_eq!(key_attribute("`userId` - spreads users evenly").map(|k| k.name), Ok("userId".into()));
        assert_eq!(key_attribute("score (Number)").map(|k| k.kind), Ok("N".into()));
        assert_eq!(read_projection("keys-only - the pattern needs ids"), Ok(Some(Projection::KeysOnly)));
        assert_eq!(
            read_projection("INCLUDE [title, dueDate] - what the list shows"),
            Ok(Some(Projection::Include(vec!["title".into(), "dueDate".into()])))
        );
    }
}
