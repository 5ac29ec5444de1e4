//! Fixture files, in the three shapes people have: a BatchWriteItem request
//! (`{"Table": [{"PutRequest": {"Item": ...}}, ...]}`), a JSON array of items (DynamoDB JSON or
//! plain JSON, item by item), or DynamoDB's export format (JSON lines of `{"Item": ...}`); and
//! rows pasted from a spreadsheet: CSV or tab-separated with a header row of attribute names.

use crate::plain_json::{item_from, parse, Json};
use serde_json::{json, Value};

/// The largest fixture file read, so a wrong file cannot exhaust the page's memory.
pub const MAX_FIXTURE_BYTES: usize = 200 * 1024 * 1024;

/// One write a fixture asks for. `table` is `None` where the file does not name one.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Put { table: Option<String>, item: Value },
    Delete { table: String, key: Value },
}

/// Which of the three shapes a file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    BatchWriteRequest,
    ItemArray,
    ExportLines,
    Rows,
}

impl Shape {
    pub fn describe(self) -> &'static str {
        match self {
            Self::BatchWriteRequest => "a BatchWriteItem request",
            Self::ItemArray => "a JSON array of items",
            Self::ExportLines => "DynamoDB export JSON lines",
            Self::Rows => "rows with a header (CSV or tab-separated)",
        }
    }
}

/// Reads a fixture file into its writes, or says what is wrong with it (nothing is half-read).
pub fn parse_fixture(text: &str) -> Result<(Shape, Vec<Write>), String> {
    if text.len() > MAX_FIXTURE_BYTES {
        return Err(format!(
            "The file is {} MB; fixtures are limited to {} MB",
            text.len() >> 20,
            MAX_FIXTURE_BYTES >> 20
        ));
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let Json::Array(items) = parse(text)? else { return Err("Expected a JSON array of items".into()) };
        let writes = items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item_from(item).map(|item| Write::Put { table: None, item }).map_err(|e| format!("Item {}: {e}", i + 1))
            })
            .collect::<Result<_, _>>()?;
        return Ok((Shape::ItemArray, writes));
    }
    if !trimmed.starts_with('{') {
        if trimmed.lines().next().is_some_and(|header| header.contains(',') || header.contains('\t')) {
            return rows(text).map(|writes| (Shape::Rows, writes));
        }
        return Err(
            "Not a fixture: expected a BatchWriteItem request, a JSON array of items, export JSON lines, or rows with a header (CSV or tab-separated)".into()
        );
    }
    // One object for the whole file is a BatchWriteItem request; several lines are an export.
    match parse(text) {
        Ok(whole) if !is_export_line(&whole) => Ok((Shape::BatchWriteRequest, batch_writes(&whole)?)),
        _ => export_lines(text).map(|writes| (Shape::ExportLines, writes)),
    }
}

fn is_export_line(json: &Json) -> bool {
    matches!(json, Json::Object(members) if members.len() == 1 && members[0].0 == "Item")
}

fn batch_writes(request: &Json) -> Result<Vec<Write>, String> {
    let Json::Object(tables) = request else { return Err("A BatchWriteItem request must be an object".into()) };
    // The request itself, or the RequestItems member of one.
    let tables = match tables.as_slice() {
        [(name, Json::Object(inner))] if name == "RequestItems" => inner,
        _ => tables,
    };
    let mut writes = Vec::new();
    for (table, requests) in tables {
        let Json::Array(requests) = requests else {
            return Err(format!("`{table}`: expected a list of PutRequest/DeleteRequest"));
        };
        for (i, request) in requests.iter().enumerate() {
            let at = |what: &str| format!("`{table}` request {}: {what}", i + 1);
            let Json::Object(members) = request else { return Err(at("expected an object")) };
            match members.as_slice() {
                [(kind, Json::Object(body))] if kind == "PutRequest" => {
                    let item = body.iter().find(|(k, _)| k == "Item").ok_or_else(|| at("PutRequest without Item"))?;
                    writes
                        .push(Write::Put { table: Some(table.clone()), item: item_from(&item.1).map_err(|e| at(&e))? });
                }
                [(kind, Json::Object(body))] if kind == "DeleteRequest" => {
                    let key = body.iter().find(|(k, _)| k == "Key").ok_or_else(|| at("DeleteRequest without Key"))?;
                    writes.push(Write::Delete { table: table.clone(), key: item_from(&key.1).map_err(|e| at(&e))? });
                }
                _ => return Err(at("expected exactly one of PutRequest or DeleteRequest")),
            }
        }
    }
    Ok(writes)
}

fn export_lines(text: &str) -> Result<Vec<Write>, String> {
    let mut writes = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = |e: &str| format!("Line {}: {e}", i + 1);
        let json = parse(line).map_err(|e| at(&e))?;
        let item = match &json {
            Json::Object(members) if is_export_line(&json) => &members[0].1,
            other => other,
        };
        writes.push(Write::Put { table: None, item: item_from(item).map_err(|e| at(&e))? });
    }
    if writes.is_empty() {
        return Err("The file holds no items".into());
    }
    Ok(writes)
}

/// Rows under a header of attribute names, cut at commas (quotes as CSV has them) or tabs. A cell
/// that reads as a number is a number unless its header says `name (S)`; `name (BOOL)` takes
/// true/false; an empty cell leaves the attribute out.
fn rows(text: &str) -> Result<Vec<Write>, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("The rows have no header")?;
    let tabs = header.contains('\t');
    let columns: Vec<(String, Option<String>)> = cells(header, tabs)?
        .into_iter()
        .map(|name| match name.rfind('(') {
            Some(open) if name.ends_with(')') => {
                (name[..open].trim().to_string(), Some(name[open + 1..name.len() - 1].trim().to_ascii_uppercase()))
            }
            _ => (name.trim().to_string(), None),
        })
        .collect();
    if let Some(blank) = columns.iter().position(|(name, _)| name.is_empty()) {
        return Err(format!("Header column {} has no attribute name", blank + 1));
    }
    let mut writes = Vec::new();
    for (i, line) in lines {
        let at = |e: &str| format!("Line {}: {e}", i + 1);
        let values = cells(line, tabs).map_err(|e| at(&e))?;
        if values.len() > columns.len() {
            return Err(at(&format!("{} cells under a header of {}", values.len(), columns.len())));
        }
        let mut item = serde_json::Map::new();
        for ((name, kind), value) in columns.iter().zip(values) {
            if value.is_empty() {
                continue;
            }
            let typed = match kind.as_deref() {
                Some("S") => json!({"S": value}),
                Some("BOOL") => match value.to_ascii_lowercase().as_str() {
                    "true" => json!({"BOOL": true}),
                    "false" => json!({"BOOL": false}),
                    _ => return Err(at(&format!("`{name}` is BOOL, and `{value}` is neither true nor false"))),
                },
                Some("N") if value.parse::<f64>().is_err() => {
                    return Err(at(&format!("`{name}` is N, and `{value}` is not a number")))
                }
                Some("N") => json!({"N": value}),
                None if value.parse::<f64>().is_ok_and(f64::is_finite) && !value.starts_with(['+', '.']) => {
                    json!({"N": value})
                }
                None => json!({"S": value}),
                Some(other) => return Err(at(&format!("`{name} ({other})`: a column's type is S, N or BOOL"))),
            };
            item.insert(name.clone(), typed);
        }
        writes.push(Write::Put { table: None, item: Value::Object(item) });
    }
    if writes.is_empty() {
        return Err("The rows hold no items: a header, then a row per item".into());
    }
    Ok(writes)
}

/// One line's cells: tab-separated, or comma-separated with CSV's quotes (`"a, b"`, `""`).
fn cells(line: &str, tabs: bool) -> Result<Vec<String>, String> {
    if tabs {
        return Ok(line.split('\t').map(|c| c.trim().to_string()).collect());
    }
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, '"') if cell.trim().is_empty() => {
                cell.clear();
                quoted = true;
            }
            (false, ',') => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    if quoted {
        return Err("a quote is not closed".into());
    }
    cells.push(cell.trim().to_string());
    Ok(cells)
}

/// The engine requests for `writes`: one PutItem or DeleteItem each, `default_table` where the
/// file named none (so the engine's own errors — size, types, keys — apply item by item).
pub fn requests(writes: &[Write], default_table: Option<&str>) -> Result<Vec<(&'static str, Value)>, String> {
    writes
        .iter()
        .map(|write| match write {
            Write::Put { table, item } => {
                let table = table.as_deref().or(default_table).ok_or("Choose the table these items go to")?;
                Ok(("PutItem", json!({"TableName": table, "Item": item})))
            }
            Write::Delete { table, key } => Ok(("DeleteItem", json!({"TableName": table, "Key": key}))),
        })
        .collect()
}

#[cfg(test)]
mod rows_tests {
    use super::*;

    #[test]
    fn rows_from_a_spreadsheet_become_items() {
        let (shape, writes) = parse_fixture(
            "PK,SK,total,note,code (S)\nUSER#1,PROFILE,42.5,\"a, b\",007\nUSER#2,PROFILE,,\"say \"\"hi\"\"\",1\n",
        )
        .expect("csv");
        assert_eq!(shape, Shape::Rows);
        let Write::Put { item, .. } = &writes[0] else { panic!("a put") };
        assert_eq!(item["total"], json!({"N": "42.5"}));
        assert_eq!(item["note"], json!({"S": "a, b"}));
        assert_eq!(item["code"], json!({"S": "007"}));
        let Write::Put { item, .. } = &writes[1] else { panic!("a put") };
        assert!(item.get("total").is_none(), "an empty cell leaves the attribute out");
        assert_eq!(item["note"], json!({"S": "say \"hi\""}));
        let (_, tabbed) = parse_fixture("PK\tcount\nA\t3\n").expect("tsv");
        assert_eq!(tabbed.len(), 1);
        assert!(parse_fixture("PK,active (BOOL)\nA,maybe\n").expect_err("bool").contains("Line 2: `active` is BOOL"));
        assert!(parse_fixture("PK,x\nA,\"open\n").expect_err("quote").contains("not closed"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_write_request_with_or_without_request_items() {
        let text = r#"{"RequestItems": {"users": [{"PutRequest": {"Item": {"id": {"S": "u1"}}}}, {"DeleteRequest": {"Key": {"id": {"S": "u0"}}}}]}}"#;
        let (shape, writes) = parse_fixture(text).expect("fixture");
        assert_eq!(shape, Shape::BatchWriteRequest);
        assert_eq!(
            writes,
            [
                Write::Put { table: Some("users".into()), item: json!({"id": {"S": "u1"}}) },
                Write::Delete { table: "users".into(), key: json!({"id": {"S": "u0"}}) }
            ]
        );
        let bare = r#"{"users": [{"PutRequest": {"Item": {"id": "plain", "n": 1.0}}}]}"#;
        let (_, writes) = parse_fixture(bare).expect("fixture");
        assert_eq!(
            writes[0],
            Write::Put { table: Some("users".into()), item: json!({"id": {"S": "plain"}, "n": {"N": "1.0"}}) }
        );
    }

    #[test]
    fn an_array_mixing_dynamodb_and_plain_items() {
        let (shape, writes) = parse_fixture(r#"[{"id": {"S": "a"}}, {"id": "b", "tags": ["x"]}]"#).expect("fixture");
        assert_eq!(shape, Shape::ItemArray);
        assert_eq!(writes.len(), 2);
        let requests = requests(&writes, Some("things")).expect("requests");
        assert_eq!(
            requests[1],
            ("PutItem", json!({"TableName": "things", "Item": {"id": {"S": "b"}, "tags": {"L": [{"S": "x"}]}}}))
        );
        assert_eq!(super::requests(&writes, None).expect_err("no table"), "Choose the table these items go to");
    }

    #[test]
    fn export_json_lines() {
        let text = "{\"Item\":{\"id\":{\"S\":\"a\"},\"n\":{\"N\":\"1\"}}}\n\n{\"Item\":{\"id\":{\"S\":\"b\"}}}\n";
        let (shape, writes) = parse_fixture(text).expect("fixture");
        assert_eq!(shape, Shape::ExportLines);
        assert_eq!(writes.len(), 2);
        let error = parse_fixture("{\"Item\":{\"id\":{\"S\":\"a\"}}}\n{\"Item\": nope}\n").expect_err("bad line");
        assert!(error.starts_with("Line 2: Invalid JSON"), "{error}");
    }

    #[test]
    fn what_is_not_a_fixture_says_so() {
        for (text, message) in [
            ("hello", "Not a fixture"),
            ("[1, 2]", "Item 1: An item must be a JSON object"),
            (r#"{"t": [{"PutRequest": {}}]}"#, "`t` request 1: PutRequest without Item"),
            (r#"{"t": [{"UpdateRequest": {}}]}"#, "exactly one of PutRequest or DeleteRequest"),
            ("[{\"a\": 1}", "Invalid JSON"),
        ] {
            let error = parse_fixture(text).expect_err(text);
            assert!(error.contains(message), "{text}: {error}");
        }
    }
}
