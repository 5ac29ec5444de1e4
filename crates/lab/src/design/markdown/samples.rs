//! Sample-data tables — a table's representative items, as the AWS DynamoDB MCP server's
//! `dynamodb_data_model.md` and many design notes show them — read as entity layouts: the items
//! grouped by the shape of their keys (`USER#u1` / `PROFILE` and `USER#u1` / `ORDER#…` are two
//! entities), each key's values made a template (`USER#<userId>`), index keys that only some items
//! have kept as sparse shares, values every item of an entity shares kept as its attributes. The
//! fixture is then generated from those layouts like any other: the same shapes, at any count.

use super::grids::{cell, Sink};
use super::scan::{squash, Grid};
use crate::design::template::{is_name, push_text, Part, Template};
use crate::design::{Attribute, Entity, TableDesign};
use serde_json::{json, Map, Value};

/// Entities for `table` from its sample items, and the items themselves (DynamoDB JSON: a key
/// typed as the table declares it, other numbers and booleans as such); what could not be read is
/// said.
pub fn entities_from_samples(
    grids: &[Grid],
    table: &TableDesign,
    sink: &mut Sink,
) -> (Vec<Entity>, Vec<Map<String, Value>>) {
    let mut items: Vec<Map<String, Value>> = Vec::new();
    let keys: Vec<String> = table.key_attributes().iter().map(|k| k.name.clone()).collect();
    let mut groups: Vec<Group> = Vec::new();
    let mut read = 0;
    for grid in grids {
        let Some(partition) = grid.column(&[&table.partition_key.name]) else { continue };
        let entity_column = grid.column(&["entitytype", "entity", "type", "_type", "kind"]);
        for (line, row) in &grid.rows {
            let partition_value = cell(row, Some(partition));
            if partition_value.is_empty() {
                sink.unread(
                    format!("line {line}: sample item of `{}`", table.name),
                    format!("no `{}`: the item is left out", table.partition_key.name),
                    Vec::new(),
                );
                continue;
            }
            read += 1;
            let values: Vec<(String, String)> = grid
                .header
                .iter()
                .zip(row)
                .map(|(h, v)| (clean_name(h), v.trim().trim_matches('`').to_string()))
                .filter(|(h, v)| !h.is_empty() && !v.is_empty() && v != "-" && !v.eq_ignore_ascii_case("null"))
                .collect();
            let mut templates: Vec<(String, Template)> = Vec::new();
            for key in &keys {
                if let Some((_, value)) = values.iter().find(|(h, _)| h == key) {
                    templates.push((key.clone(), infer(value, key, &values, &keys)));
                }
            }
            let shape: Vec<String> = templates
                .iter()
                .filter(|(k, _)| {
                    *k == table.partition_key.name || table.sort_key.as_ref().is_some_and(|s| s.name == *k)
                })
                .map(|(k, t)| format!("{k}={}", shape_of(t)))
                .collect();
            let name = entity_column
                .map(|c| cell(row, Some(c)).to_string())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| entity_name(&templates, table));
            let group = match groups.iter_mut().position(|g| g.shape == shape) {
                Some(i) => &mut groups[i],
                None => {
                    groups.push(Group { shape, name, templates: Vec::new(), rows: Vec::new(), partitions: Vec::new() });
                    groups.last_mut().expect("just pushed")
                }
            };
            for (key, template) in templates {
                match group.templates.iter_mut().find(|(k, _, _)| *k == key) {
                    Some(entry) => entry.2 += 1,
                    None => group.templates.push((key, template, 1)),
                }
            }
            if !group.partitions.contains(&partition_value.to_string()) {
                group.partitions.push(partition_value.to_string());
            }
            items.push(sample_item(&values, table));
            group.rows.push(values);
        }
    }
    if read > 0 {
        sink.notes.push(format!(
            "table `{}`: {read} sample item{} read as {} entit{} ({}); they are the fixture",
            table.name,
            if read == 1 { "" } else { "s" },
            groups.len(),
            if groups.len() == 1 { "y" } else { "ies" },
            groups.iter().map(|g| format!("{} {}", g.name, g.shape.join(" "))).collect::<Vec<_>>().join("; ")
        ));
    }
    (groups.into_iter().map(|g| g.entity(&keys)).collect(), items)
}

/// A sample row as an item in DynamoDB JSON: a key attribute typed as the table declares it; any
/// other cell a number, a boolean or text as it reads (a number with a leading zero stays text).
fn sample_item(values: &[(String, String)], table: &TableDesign) -> Map<String, Value> {
    let kinds = table.key_attributes();
    let number = |text: &str| {
        text.parse::<f64>().is_ok_and(f64::is_finite)
            && (!text.starts_with('0') || text == "0" || text.starts_with("0."))
    };
    values
        .iter()
        .map(|(name, text)| {
            let value = match kinds.iter().find(|k| k.name == *name).map(|k| k.kind.as_str()) {
                Some("N") if number(text) => json!({"N": text}),
                Some(_) => json!({"S": text}),
                None if text == "true" || text == "false" => json!({"BOOL": text == "true"}),
                None if number(text) => json!({"N": text}),
                None => json!({"S": text}),
            };
            (name.clone(), value)
        })
        .collect()
}

struct Group {
    shape: Vec<String>,
    name: String,
    /// Each key attribute, its template, and how many of the rows have it.
    templates: Vec<(String, Template, usize)>,
    rows: Vec<Vec<(String, String)>>,
    partitions: Vec<String>,
}

impl Group {
    fn entity(self, keys: &[String]) -> Entity {
        let total = self.rows.len();
        let keys_of: Vec<(String, Template, f64)> = self
            .templates
            .into_iter()
            .map(|(k, t, n)| (k, t, if n >= total { 1.0 } else { n as f64 / total as f64 }))
            .collect();
        let placeholders: Vec<String> =
            keys_of.iter().flat_map(|(_, t, _)| t.placeholders().map(String::from).collect::<Vec<_>>()).collect();
        let mut attributes = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for row in &self.rows {
            for (name, _) in row {
                if !names.contains(name) && !keys.contains(name) && !placeholders.contains(name) && is_name(name) {
                    names.push(name.clone());
                }
            }
        }
        for name in names {
            let values: Vec<&str> =
                self.rows.iter().filter_map(|r| r.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())).collect();
            let shared = values.len() == total && values.windows(2).all(|w| w[0] == w[1]);
            // Numbers stay numbers (a counter is ADDed to); a value every item shares is kept.
            let numeric = !values.is_empty() && values.iter().all(|v| v.parse::<f64>().is_ok_and(f64::is_finite));
            let example = values
                .first()
                .filter(|v| (shared || numeric) && !v.contains(['<', '>', ',']))
                .map(|v| (*v).to_string());
            attributes.push(Attribute { name, example, size: None });
        }
        let per_collection = (total as f64 / self.partitions.len().max(1) as f64).round().max(1.0) as u64;
        Entity {
            name: self.name,
            keys: keys_of,
            attributes,
            items: Some(total as u64),
            per_collection: (per_collection > 1).then_some(per_collection),
            size: None,
            skew: None,
            notes: "from sample items".into(),
        }
    }
}

/// A header as an attribute name: `` `userId` ``, `userId (S)`, `PK` → the name.
fn clean_name(header: &str) -> String {
    let name = header.split('(').next().unwrap_or(header).trim().trim_matches(['`', '*']).trim();
    name.to_string()
}

/// A key value made a template: capital words stay text, the rest become placeholders named after
/// the attribute of the item that holds the same value, else after the text before them
/// (`USER#u1` → `USER#<userId>`), else after the key itself.
fn infer(value: &str, key: &str, values: &[(String, String)], keys: &[String]) -> Template {
    let mut parts: Vec<Part> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    let segments: Vec<&str> = value.split('#').collect();
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 {
            push_text(&mut parts, "#");
        }
        if is_constant_word(segment) {
            push_text(&mut parts, segment);
            continue;
        }
        let from_attribute = values
            .iter()
            .find(|(name, v)| v == segment && !keys.contains(name) && is_name(name))
            .map(|(name, _)| name.clone());
        let previous = segments[..i].iter().rev().find(|s| is_constant_word(s)).copied().unwrap_or("");
        let name = from_attribute.unwrap_or_else(|| {
            if is_constant_word(previous) && !previous.is_empty() {
                let stem = camel(previous);
                if looks_like_time(segment) {
                    format!("{stem}At")
                } else {
                    format!("{stem}Id")
                }
            } else if segments.len() == 1 {
                key.to_string()
            } else {
                format!("{}{i}", camel(key))
            }
        });
        let mut unique = if is_name(&name) { name } else { format!("{}{i}", camel(key)) };
        while used.contains(&unique) {
            unique.push('2');
        }
        used.push(unique.clone());
        parts.push(Part::Placeholder(unique));
    }
    Template { parts }
}

/// `USER`, `ORDER`, `META`, `PROFILE`, `V0`: text a key is made of, not a value.
fn is_constant_word(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 24
        && segment.chars().any(|c| c.is_ascii_uppercase())
        && segment.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !segment.chars().all(|c| c.is_ascii_digit())
}

fn looks_like_time(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    bytes.len() >= 8 && bytes[..4].iter().all(u8::is_ascii_digit) && bytes[4] == b'-'
}

/// `ORDER_ITEM` → `orderItem`.
fn camel(word: &str) -> String {
    let mut out = String::new();
    for (i, part) in word.split(['_', '-']).filter(|p| !p.is_empty()).enumerate() {
        let lower = part.to_ascii_lowercase();
        if i == 0 {
            out.push_str(&lower);
        } else {
            let mut chars = lower.chars();
            if let Some(first) = chars.next() {
                out.push(first.to_ascii_uppercase());
                out.extend(chars);
            }
        }
    }
    if out.is_empty() {
        "value".into()
    } else {
        out
    }
}

/// A template's shape for grouping: placeholders all alike.
fn shape_of(template: &Template) -> String {
    template
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.clone(),
            Part::Placeholder(_) => "<>".into(),
        })
        .collect()
}

/// `Profile` for `USER#<userId>` / `PROFILE`; `Order` for `ORDER#<orderId>`.
fn entity_name(templates: &[(String, Template)], table: &TableDesign) -> String {
    let prefix_word = |attribute: &str| {
        templates.iter().find(|(k, _)| k == attribute).and_then(|(_, t)| {
            t.parts.iter().find_map(|p| match p {
                Part::Text(text) => text.split('#').find(|w| !w.is_empty()).map(String::from),
                Part::Placeholder(_) => None,
            })
        })
    };
    // `USER#<userId>` / `PROFILE` is a user; `USER#<userId>` / `ORDER#<orderId>` an order.
    let sort_is_constant = table
        .sort_key
        .as_ref()
        .and_then(|s| templates.iter().find(|(k, _)| *k == s.name))
        .is_none_or(|(_, t)| t.is_constant());
    let word = if sort_is_constant {
        prefix_word(&table.partition_key.name)
    } else {
        table.sort_key.as_ref().and_then(|s| prefix_word(&s.name)).or_else(|| prefix_word(&table.partition_key.name))
    }
    .unwrap_or_else(|| table.name.clone());
    let camel = camel(&word);
    let mut chars = camel.chars();
    chars.next().map_or_else(|| "Item".into(), |first| first.to_ascii_uppercase().to_string() + chars.as_str())
}

/// Whether `grid` shows items of a table whose partition key is `partition`: it has the column,
/// and does not lead with another key (an index's view of the items leads with the index's key).
pub fn shows_items_of(grid: &Grid, partition: &str, index_keys: &[&str]) -> bool {
    let leads_with_index = grid.header.first().is_some_and(|h| {
        let first = squash(&clean_name(h));
        first != squash(partition) && index_keys.iter().any(|k| squash(k) == first)
    });
    !leads_with_index && grid.header.iter().any(|h| squash(&clean_name(h)) == squash(partition))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values_become_templates_named_by_the_item() {
        let values = vec![("PK".to_string(), "USER#u1".to_string()), ("userId".to_string(), "u1".to_string())];
        let keys = vec!["PK".to_string(), "SK".to_string()];
        assert_eq!(infer("USER#u1", "PK", &values, &keys).to_string(), "USER#<userId>");
        assert_eq!(
            infer("ORDER#2026-01-02T10:00:00Z#o9", "SK", &values, &keys).to_string(),
            "ORDER#<orderAt>#<orderId>"
        );
        assert_eq!(infer("PROFILE", "SK", &values, &keys).to_string(), "PROFILE");
        assert_eq!(infer("alice@example.com", "email", &values, &keys).to_string(), "<email>");
    }
}
