//! A design-note row made a request: its key condition in the method's shorthand
//! (`PK=USER#id AND begins_with(SK,'ORDER#'), ScanIndexForward=false`), placeholders given values
//! from the fixture's items — the busiest collection that answers it, or an existing item for a
//! GetItem, update or delete — and fresh ones for a new item a Put writes.
//!
//! A transaction's actions are separated by `;`, each led by its kind:
//! `Put PK=ORDER#orderId, SK=META if attribute_not_exists(PK); Update PK=SKU#sku, SK=STOCK SET stock = stock - 1 if stock >= 1`.

use super::expression::{translate, Placeholders};
use super::fixture::Layout;
use super::note_words::normalize;
use super::template::{Bindings, Template};
use super::{CallRow, TableDesign};
use serde_json::{json, Map, Value};

/// Refused when a note's key condition is longer: a design note is a line, not a program.
pub const MAX_SHORTHAND: usize = 4096;

/// The operation a note names, in DynamoDB's spelling.
pub fn operation_name(text: &str) -> Option<&'static str> {
    let squashed: String = text.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    Some(match squashed.as_str() {
        "getitem" | "get" => "GetItem",
        "query" => "Query",
        "scan" => "Scan",
        "putitem" | "put" => "PutItem",
        "updateitem" | "update" => "UpdateItem",
        "deleteitem" | "delete" => "DeleteItem",
        "transactwriteitems" | "transactwrite" | "transaction" | "transact" | "writetransaction" => {
            "TransactWriteItems"
        }
        "transactgetitems" | "transactget" | "readtransaction" => "TransactGetItems",
        "batchgetitem" | "batchget" => "BatchGetItem",
        "searchvectors" | "vectorsearch" | "searchvector" => "SearchVectors",
        _ => return None,
    })
}

/// One comparison of a key condition.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyPart {
    Compare { attribute: String, op: &'static str, value: Template },
    BeginsWith { attribute: String, value: Template },
    Between { attribute: String, low: Template, high: Template },
}

impl KeyPart {
    pub fn attribute(&self) -> &str {
        match self {
            Self::Compare { attribute, .. } | Self::BeginsWith { attribute, .. } | Self::Between { attribute, .. } => {
                attribute
            }
        }
    }
}

/// One call or transaction action, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Action {
    /// `Put`, `Update`, `Delete`, `ConditionCheck` or `Get` inside a transaction or batch.
    pub kind: Option<String>,
    pub key: Vec<KeyPart>,
    pub options: Vec<(String, String)>,
    pub update: Option<String>,
    pub condition: Option<String>,
}

const OPTIONS: [&str; 12] = [
    "ScanIndexForward",
    "Limit",
    "ConsistentRead",
    "Filter",
    "FilterExpression",
    "Projection",
    "ProjectionExpression",
    "Select",
    "Order",
    "Page",
    "Table",
    "TopK",
];

/// Parses a note's key condition for `operation`: one action, or a transaction's several.
pub fn parse(operation: &str, text: &str) -> Result<Vec<Action>, String> {
    if text.len() > MAX_SHORTHAND {
        return Err(format!("a key condition of {} characters: at most {MAX_SHORTHAND}", text.len()));
    }
    let text = &elisions_named(text);
    let several = matches!(operation, "TransactWriteItems" | "TransactGetItems" | "BatchGetItem");
    if !several {
        return Ok(vec![action(&normalize(text))?]);
    }
    let mut actions = Vec::new();
    for part in split_top(text, ';').into_iter().filter(|p| !p.trim().is_empty()) {
        let part = part.trim().trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')').trim();
        let (word, rest) = part.split_once(char::is_whitespace).unwrap_or((part, ""));
        let rest = &normalize(rest);
        let kind = match word.to_ascii_lowercase().as_str() {
            "put" => "Put",
            "update" => "Update",
            "delete" => "Delete",
            "conditioncheck" | "check" => "ConditionCheck",
            "get" => "Get",
            _ if operation != "TransactWriteItems" => {
                actions.push(action(&normalize(part))?);
                continue;
            }
            other => {
                return Err(format!(
                    "`{other}`: a transaction's action starts with Put, Update, Delete or ConditionCheck"
                ))
            }
        };
        let mut parsed = action(rest)?;
        parsed.kind = Some(kind.into());
        actions.push(parsed);
    }
    if actions.is_empty() {
        return Err(format!("{operation} needs its actions, separated by `;`"));
    }
    Ok(actions)
}

/// An elided key part (`LOAN#…`, `LOAN#...`) is a placeholder of its own (`LOAN#<etc0>`): any
/// item's value of that shape, each elision a different one.
fn elisions_named(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut n = 0;
    while let Some(at) = rest.find(['…', '.']) {
        let ellipsis = if rest[at..].starts_with('…') {
            '…'.len_utf8()
        } else if rest[at..].starts_with("...") {
            3
        } else {
            out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            continue;
        };
        out.push_str(&rest[..at]);
        out.push_str(&format!("<etc{n}>"));
        n += 1;
        rest = &rest[at + ellipsis..];
    }
    out.push_str(rest);
    out
}

/// Whether `word` stands alone in `text` (any case), outside quotes and parentheses.
pub fn has_word(text: &str, word: &str) -> bool {
    find_word(text, word).is_some()
}

/// Whether the character at byte `at` of `text` is outside quotes and parentheses.
pub fn outside_quotes(text: &str, at: usize) -> bool {
    top_level_chars(text).find(|(i, _, _)| *i >= at).is_none_or(|(_, _, top)| top)
}

/// Parses without building, so a note is refused when it is read.
pub fn check_shorthand(operation: &str, text: &str) -> Result<(), String> {
    let actions = parse(operation, text)?;
    let needs_key = !matches!(operation, "Scan");
    if needs_key && actions.iter().any(|a| a.key.is_empty()) {
        return Err(format!("{operation} needs a key condition such as `PK=USER#id`"));
    }
    Ok(())
}

/// The attributes a key condition names, in order (`PK`, `SK`).
pub fn condition_attribute_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for action in parse("TransactGetItems", text).unwrap_or_default() {
        for part in action.key {
            if !names.iter().any(|n| n == part.attribute()) {
                names.push(part.attribute().to_string());
            }
        }
    }
    names
}

fn action(text: &str) -> Result<Action, String> {
    let mut parsed = Action::default();
    let (head, condition) = match find_word(text, "if") {
        Some(at) => (&text[..at], Some(text[at + 2..].trim().to_string())),
        None => (text, None),
    };
    parsed.condition = condition.filter(|c| !c.is_empty());
    let update_at = ["SET", "REMOVE", "ADD", "DELETE"].iter().filter_map(|w| find_word(head, w)).min();
    let key_text = match update_at {
        Some(at) => {
            parsed.update = Some(head[at..].trim().to_string());
            &head[..at]
        }
        None => head,
    };
    let mut pieces: Vec<String> = Vec::new();
    for segment in split_top(key_text, ',') {
        for piece in split_and(&segment) {
            pieces.push(piece);
        }
    }
    for piece in pieces.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        if let Some((name, value)) = piece.split_once('=') {
            let name = name.trim();
            if let Some(option) = OPTIONS.iter().find(|o| o.eq_ignore_ascii_case(name)) {
                parsed.options.push(((*option).to_string(), value.trim().to_string()));
                continue;
            }
        }
        parsed.key.push(key_part(piece)?);
    }
    Ok(parsed)
}

fn key_part(piece: &str) -> Result<KeyPart, String> {
    let lower = piece.to_ascii_lowercase();
    if lower.starts_with("begins_with") {
        let inner = piece
            .find('(')
            .and_then(|open| piece.rfind(')').map(|close| &piece[open + 1..close]))
            .ok_or_else(|| format!("`{piece}`: begins_with(ATTRIBUTE, 'PREFIX')"))?;
        let (attribute, value) =
            inner.split_once(',').ok_or_else(|| format!("`{piece}`: begins_with(ATTRIBUTE, 'PREFIX')"))?;
        return Ok(KeyPart::BeginsWith {
            attribute: attribute_name(attribute)?,
            value: Template::parse_shorthand(value)?,
        });
    }
    if let Some(at) = find_word(piece, "BETWEEN") {
        let rest = &piece[at + "BETWEEN".len()..];
        let and = find_word(rest, "AND").ok_or_else(|| format!("`{piece}`: ATTRIBUTE BETWEEN low AND high"))?;
        return Ok(KeyPart::Between {
            attribute: attribute_name(&piece[..at])?,
            low: Template::parse_shorthand(&rest[..and])?,
            high: Template::parse_shorthand(&rest[and + 3..])?,
        });
    }
    if let Some(at) = piece.find(['<', '>', '=']) {
        let rest = &piece[at..];
        let op: &'static str = if rest.starts_with("<=") {
            "<="
        } else if rest.starts_with(">=") {
            ">="
        } else if rest.starts_with('<') {
            "<"
        } else if rest.starts_with('>') {
            ">"
        } else {
            "="
        };
        return Ok(KeyPart::Compare {
            attribute: attribute_name(&piece[..at])?,
            op,
            value: Template::parse_shorthand(&piece[at + op.len()..])?,
        });
    }
    Err(format!(
        "`{piece}` is not a key condition: ATTRIBUTE=value, begins_with(ATTRIBUTE, 'prefix'), ATTRIBUTE BETWEEN a AND b, ATTRIBUTE < value (or an option such as ScanIndexForward=false, Limit=20)"
    ))
}

fn attribute_name(text: &str) -> Result<String, String> {
    let name = text.trim().trim_matches('`');
    if name.is_empty() || name.contains(char::is_whitespace) || name.contains(['(', ')', '\'', '"']) {
        return Err(format!("`{}` is not an attribute name", text.trim()));
    }
    Ok(name.to_string())
}

/// Byte offset of `word` standing alone (any case), outside quotes and parentheses.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'(') => depth += 1,
            (None, b')') => depth -= 1,
            (None, _) if depth == 0 && text.is_char_boundary(i) => {
                let before = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
                let end = i + word.len();
                let matches =
                    end <= bytes.len() && text.is_char_boundary(end) && text[i..end].eq_ignore_ascii_case(word);
                let after = end >= bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
                if before && matches && after {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Each character of `text` with whether it stands outside quotes and parentheses (a quote or
/// parenthesis itself counts as inside): the one scanner the shorthand's splitting shares.
pub(crate) fn top_level_chars(text: &str) -> impl Iterator<Item = (usize, char, bool)> + '_ {
    let (mut depth, mut quote) = (0i32, None::<char>);
    text.char_indices().map(move |(i, c)| {
        let top = match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                false
            }
            (Some(_), _) => false,
            (None, '\'' | '"') => {
                quote = Some(c);
                false
            }
            (None, '(') => {
                depth += 1;
                false
            }
            (None, ')') => {
                depth -= 1;
                false
            }
            (None, _) => depth == 0,
        };
        (i, c, top)
    })
}

/// Splits at `separator` outside quotes and parentheses.
pub(crate) fn split_top(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c, top) in top_level_chars(text) {
        if top && c == separator {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Splits a key condition at its `AND`s, keeping `BETWEEN a AND b` whole.
fn split_and(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut start, mut search) = (0, 0);
    while let Some(found) = find_word(&text[search..], "AND") {
        let at = search + found;
        let segment = &text[start..at];
        search = at + 3;
        // The first AND after a BETWEEN is its own.
        if find_word(segment, "BETWEEN").is_some() && find_word(segment, "AND").is_none() {
            continue;
        }
        parts.push(segment.to_string());
        start = at + 3;
    }
    parts.push(text[start..].to_string());
    parts
}

/// What a row becomes: the operation and its request, and what was assumed to build it.
#[derive(Debug, Clone)]
pub struct Built {
    pub operation: String,
    pub request: Value,
}

/// The fixture a call is bound against: the table's items and how new ones are made.
pub struct Fixture<'a> {
    pub table: &'a TableDesign,
    pub layout: &'a Layout,
    pub items: &'a [(usize, Map<String, Value>)],
}

/// Builds the request for `operation` with `text` on `index` (None: the table). `strong` makes a
/// read strongly consistent unless the note says otherwise (the inventory asked for it).
pub fn build(
    fixture: &Fixture,
    operation: &str,
    text: &str,
    index: Option<&str>,
    strong: bool,
    defaults: &[(String, String)],
) -> Result<Built, String> {
    build_on_items(fixture, operation, text, index, strong, defaults).map_err(|e| {
        // A table with a layout and no items yet (a workspace before "Generate items"): the
        // layout is there, the items are not.
        if fixture.items.is_empty() && !fixture.table.entities.is_empty() && e.starts_with("no item") {
            format!(
                "`{}` holds no items yet, so the call has no key to bind: generate them from its entity layout (Generate items) or add some",
                fixture.table.name
            )
        } else {
            e
        }
    })
}

fn build_on_items(
    fixture: &Fixture,
    operation: &str,
    text: &str,
    index: Option<&str>,
    strong: bool,
    defaults: &[(String, String)],
) -> Result<Built, String> {
    let actions = parse(operation, text)?;
    let table = fixture.table;
    let mut bound = Bindings::new();
    let request = match operation {
        "GetItem" | "Query" | "Scan" => {
            let action = &actions[0];
            let mut options = defaults.to_vec();
            options.extend(action.options.iter().cloned());
            let mut request = read_request(fixture, operation, action, index, &options, &mut bound)?;
            if strong && !options.iter().any(|(o, _)| o == "ConsistentRead") {
                request.insert("ConsistentRead".into(), json!(true));
            }
            Value::Object(request)
        }
        "PutItem" | "UpdateItem" | "DeleteItem" => {
            let kind = &operation[..operation.len() - 4];
            let mut action = actions[0].clone();
            action.kind = Some(kind.to_string());
            Value::Object(write_request(fixture, &action, &mut bound, 0)?)
        }
        "TransactWriteItems" => {
            let mut ordered: Vec<(usize, &Action)> = actions.iter().enumerate().collect();
            // Existing items first: their keys give values the new ones share.
            ordered.sort_by_key(|(_, a)| a.kind.as_deref() == Some("Put"));
            let mut built: Vec<(usize, Value)> = Vec::new();
            for (position, action) in ordered {
                let kind = action.kind.clone().unwrap_or_default();
                let request = write_request(fixture, action, &mut bound, position as u64)?;
                built.push((position, json!({ kind: request })));
            }
            built.sort_by_key(|(p, _)| *p);
            json!({"TransactItems": built.into_iter().map(|(_, v)| v).collect::<Vec<_>>()})
        }
        "TransactGetItems" | "BatchGetItem" => {
            let mut keys = Vec::new();
            for action in &actions {
                let (key, _) = existing_key(fixture, action, &mut bound)?;
                keys.push(key);
            }
            if operation == "BatchGetItem" {
                json!({"RequestItems": {table.name.clone(): {"Keys": keys}}})
            } else {
                json!({"TransactItems": keys.into_iter().map(|k| json!({"Get": {"TableName": table.name, "Key": k}})).collect::<Vec<_>>()})
            }
        }
        "SearchVectors" => Value::Object(search_request(fixture, &actions[0], index, &mut bound)?),
        other => return Err(format!("`{other}` cannot be built from a design note")),
    };
    Ok(Built { operation: operation.to_string(), request })
}

/// A vector search: the equalities its search schema allows (`tenant=<tenantId>,
/// category=billing`), `TopK` (10 when not given) and a projection, searching for the vector of the
/// first item that answers the equalities ("more like this one": it is its own nearest, at 0).
fn search_request(
    fixture: &Fixture,
    action: &Action,
    index: Option<&str>,
    bound: &mut Bindings,
) -> Result<Map<String, Value>, String> {
    let table = fixture.table;
    let names: Vec<&str> = table.vector_indexes.iter().map(|v| v.name.as_str()).collect();
    let vectors = index.and_then(|name| table.vector_index(name)).ok_or_else(|| {
        if names.is_empty() {
            format!("a SearchVectors reads a vector index, and `{}` has none", table.name)
        } else {
            format!("a SearchVectors names one of `{}`'s vector indexes: {}", table.name, names.join(", "))
        }
    })?;
    for part in &action.key {
        let KeyPart::Compare { attribute, op: "=", .. } = part else {
            return Err(format!("`{}`: a vector search filters by equality only (ATTRIBUTE=value)", part.attribute()));
        };
        if !vectors.filters().any(|f| &f.name == attribute) {
            let schema: Vec<&str> = vectors.filters().map(|f| f.name.as_str()).collect();
            return Err(format!(
                "`{attribute}` is not in the search schema of `{}` ({})",
                vectors.name,
                if schema.is_empty() { "it has none".to_string() } else { schema.join(", ") }
            ));
        }
    }
    if let Some(hash) = vectors.hash_filter.as_ref().filter(|h| !action.key.iter().any(|p| p.attribute() == h.name)) {
        return Err(format!(
            "a search of `{}` needs `{}=value`: its search schema's HASH attribute",
            vectors.name, hash.name
        ));
    }
    let answers = |item: &Map<String, Value>, b: &mut Bindings| {
        item.get(&vectors.attribute).and_then(|v| v.get("L")).is_some()
            && action.key.iter().all(|part| match part {
                KeyPart::Compare { attribute, value, .. } => {
                    item.get(attribute).and_then(text_of).is_some_and(|text| value.matches(&text, b))
                }
                _ => false,
            })
    };
    let (chosen, b) = fixture
        .items
        .iter()
        .find_map(|(_, item)| {
            let mut b = bound.clone();
            answers(item, &mut b).then_some((item, b))
        })
        .ok_or_else(|| {
            format!(
                "no item of `{}` holds a vector in `{}` that answers the search's filters",
                table.name, vectors.attribute
            )
        })?;
    *bound = b;
    let mut request = Map::new();
    request.insert("TableName".into(), json!(table.name));
    request.insert("IndexName".into(), json!(vectors.name));
    request.insert("SearchVector".into(), chosen[&vectors.attribute]["L"].clone());
    let mut placeholders = Placeholders::default();
    let mut parts = Vec::new();
    for part in &action.key {
        let KeyPart::Compare { attribute, value, .. } = part else { continue };
        let text = value.fill(bound).ok_or_else(|| format!("`{value}`: no item gives its placeholders a value"))?;
        let kind = vectors.filters().find(|f| &f.name == attribute).map_or("S", |f| f.kind.as_str());
        let typed = if kind == "N" { json!({"N": text}) } else { json!({"S": text}) };
        parts.push(format!("{} = {}", placeholders.name(attribute), placeholders.value(typed)));
    }
    if !parts.is_empty() {
        request.insert("SearchConditionExpression".into(), json!(parts.join(" AND ")));
    }
    let mut top_k = 10;
    for (option, value) in &action.options {
        match option.as_str() {
            "TopK" => {
                top_k = value
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=100).contains(n))
                    .ok_or_else(|| format!("TopK={value}: a whole number from 1 to 100"))?;
            }
            "Projection" | "ProjectionExpression" => {
                apply_option(&mut request, option, value, bound, &mut placeholders)?
            }
            other => return Err(format!("{other}: not an option of a vector search (TopK, Projection)")),
        }
    }
    request.insert("TopK".into(), json!(top_k));
    placeholders.add_to(&mut request);
    Ok(request)
}

fn text_of(value: &Value) -> Option<String> {
    value.get("S").or_else(|| value.get("N")).and_then(Value::as_str).map(String::from)
}

/// The items of the table or index, with what makes an item part of the index.
fn target_items<'a>(
    fixture: &'a Fixture,
    index: Option<&str>,
) -> Result<(Vec<&'a Map<String, Value>>, String, Option<String>), String> {
    let (partition, sort) = fixture
        .table
        .keys_of(index)
        .ok_or_else(|| format!("`{}` has no index `{}`", fixture.table.name, index.unwrap_or_default()))?;
    let items = fixture
        .items
        .iter()
        .map(|(_, item)| item)
        .filter(|item| item.contains_key(&partition.name) && sort.is_none_or(|s| item.contains_key(&s.name)))
        .collect();
    Ok((items, partition.name.clone(), sort.map(|s| s.name.clone())))
}

fn read_request(
    fixture: &Fixture,
    operation: &str,
    action: &Action,
    index: Option<&str>,
    options: &[(String, String)],
    bound: &mut Bindings,
) -> Result<Map<String, Value>, String> {
    let table = fixture.table;
    let mut request = Map::new();
    request.insert("TableName".into(), json!(table.name));
    let mut placeholders = Placeholders::default();
    match operation {
        "GetItem" => {
            if index.is_some() {
                return Err("GetItem reads the table, not an index: use Query on the index".into());
            }
            let (key, _) = existing_key(fixture, action, bound)?;
            request.insert("Key".into(), key);
        }
        "Query" => {
            if let Some(index) = index {
                request.insert("IndexName".into(), json!(index));
            }
            let (items, partition, sort) = target_items(fixture, index)?;
            bind_collection(action, &items, &partition, sort.as_deref(), bound)?;
            let mut parts = Vec::new();
            for part in &action.key {
                parts.push(key_condition_text(fixture.table, part, bound, &mut placeholders)?);
            }
            if parts.is_empty() {
                return Err(format!("a Query needs `{partition}=value`"));
            }
            request.insert("KeyConditionExpression".into(), json!(parts.join(" AND ")));
        }
        _ => {
            if let Some(index) = index {
                request.insert("IndexName".into(), json!(index));
            }
            if !action.key.is_empty() {
                return Err("a Scan takes no key condition: write it as Filter=…".into());
            }
        }
    }
    let (items, _, _) = target_items(fixture, index)?;
    for (option, value) in options {
        let value = if option.starts_with("Filter") { bind_references(value, &items, bound) } else { value.clone() };
        apply_option(&mut request, option, &value, bound, &mut placeholders)?;
    }
    placeholders.add_to(&mut request);
    Ok(request)
}

/// A filter or condition written with DynamoDB's `:name` values (`email = :email`): each gets the
/// value the first item holding the attribute it is compared with has (or an attribute of its
/// own name), and is written `<name>` for the translator. One left without a value stays as it
/// was, and the translator says so.
fn bind_references(text: &str, items: &[&Map<String, Value>], bound: &mut Bindings) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(':') {
        let name_len =
            rest[at + 1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len() - at - 1);
        let name = &rest[at + 1..at + 1 + name_len];
        let before = &rest[..at];
        if name.is_empty() || !outside_quotes(text, text.len() - rest.len() + at) {
            out.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            continue;
        }
        let compared = before
            .trim_end()
            .trim_end_matches(['=', '<', '>', ' '])
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .next()
            .unwrap_or_default()
            .to_string();
        if !bound.contains_key(name) {
            let value = [compared.as_str(), name]
                .iter()
                .filter(|a| !a.is_empty())
                .find_map(|attribute| items.iter().find_map(|item| item.get(*attribute).and_then(text_of)));
            // No item holds it: a value none has, so the call still runs (and reads what it reads).
            let value = value.unwrap_or_else(|| super::fixture::slot_value(name, 0));
            bound.insert(name.to_string(), value);
        }
        out.push_str(before);
        if bound.contains_key(name) {
            out.push_str(&format!("<{name}>"));
        } else {
            out.push(':');
            out.push_str(name);
        }
        rest = &rest[at + 1 + name_len..];
    }
    out.push_str(rest);
    out
}

fn apply_option(
    request: &mut Map<String, Value>,
    option: &str,
    value: &str,
    bound: &Bindings,
    placeholders: &mut Placeholders,
) -> Result<(), String> {
    let flag = |value: &str| match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" => Ok(true),
        "false" | "no" => Ok(false),
        other => Err(format!("{option}={other}: true or false")),
    };
    match option {
        "ScanIndexForward" => {
            request.insert(option.into(), json!(flag(value)?));
        }
        "Order" => {
            let forward = !value.trim().eq_ignore_ascii_case("desc");
            request.insert("ScanIndexForward".into(), json!(forward));
        }
        "ConsistentRead" => {
            request.insert(option.into(), json!(flag(value)?));
        }
        "Limit" | "Page" => {
            let limit: u64 = value
                .trim()
                .parse()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| format!("{option}={value}: a whole number from 1"))?;
            request.insert("Limit".into(), json!(limit));
        }
        "Filter" | "FilterExpression" => {
            request.insert("FilterExpression".into(), json!(translate(value, bound, placeholders)?));
        }
        "Projection" | "ProjectionExpression" => {
            let names: Vec<String> = value
                .split([' ', '+'])
                .filter(|n| !n.is_empty())
                .map(|n| placeholders.name(n.trim_matches(',')))
                .collect();
            request.insert("ProjectionExpression".into(), json!(names.join(", ")));
        }
        "Select" => {
            request.insert(option.into(), json!(value.trim().to_ascii_uppercase()));
        }
        _ => return Err(format!("{option}: not an option of a read")),
    }
    Ok(())
}

/// `#n0 = :v0`, `begins_with(#n1, :v1)`, `#n1 BETWEEN :v2 AND :v3`, placeholders filled.
fn key_condition_text(
    table: &TableDesign,
    part: &KeyPart,
    bound: &Bindings,
    placeholders: &mut Placeholders,
) -> Result<String, String> {
    let name = placeholders.name(part.attribute());
    let mut value = |template: &Template| -> Result<String, String> {
        let text = template
            .fill(bound)
            .ok_or_else(|| format!("`{template}`: no item of the fixture gives its placeholders a value"))?;
        Ok(placeholders.value(typed(table, part.attribute(), &text)))
    };
    Ok(match part {
        KeyPart::Compare { op, value: template, .. } => format!("{name} {op} {}", value(template)?),
        KeyPart::BeginsWith { value: template, .. } => format!("begins_with({name}, {})", value(template)?),
        KeyPart::Between { low, high, .. } => format!("{name} BETWEEN {} AND {}", value(low)?, value(high)?),
    })
}

fn typed(table: &TableDesign, attribute: &str, text: &str) -> Value {
    let kind = table.key_attributes().into_iter().find(|k| k.name == attribute).map_or("S", |k| k.kind.as_str());
    match kind {
        "N" => json!({"N": text}),
        "B" => {
            use base64::Engine as _;
            json!({"B": base64::engine::general_purpose::STANDARD.encode(text)})
        }
        _ => json!({"S": text}),
    }
}

/// Gives the Query's placeholders the values of the collection with the most items that answer it.
fn bind_collection(
    action: &Action,
    items: &[&Map<String, Value>],
    partition: &str,
    sort: Option<&str>,
    bound: &mut Bindings,
) -> Result<(), String> {
    let Some(KeyPart::Compare { value: partition_template, op: "=", .. }) =
        action.key.iter().find(|p| p.attribute() == partition)
    else {
        return Err(format!("a Query needs `{partition}=value` (its partition key, equal)"));
    };
    if let Some(other) = action.key.iter().find(|p| p.attribute() != partition && Some(p.attribute()) != sort) {
        return Err(format!(
            "`{}` is not a key of this table or index (keys: {partition}{})",
            other.attribute(),
            sort.map_or(String::new(), |s| format!(", {s}"))
        ));
    }
    let sort_part = action.key.iter().find(|p| Some(p.attribute()) == sort);
    // Per partition value: the items that answer, and the bindings of the first.
    let mut groups: Vec<(String, Vec<String>, Bindings)> = Vec::new();
    for item in items {
        let Some(value) = item.get(partition).and_then(text_of) else { continue };
        let mut b = bound.clone();
        if !partition_template.matches(&value, &mut b) {
            continue;
        }
        let sort_value = sort.and_then(|s| item.get(s)).and_then(text_of).unwrap_or_default();
        let answers = match sort_part {
            Some(KeyPart::Compare { op: "=", value: template, .. }) => template.matches(&sort_value, &mut b),
            Some(KeyPart::BeginsWith { value: template, .. }) => begins(template, &sort_value, &mut b),
            _ => true,
        };
        if !answers {
            continue;
        }
        match groups.iter_mut().find(|(v, _, _)| *v == value) {
            Some(group) => group.1.push(sort_value),
            None => groups.push((value, vec![sort_value], b)),
        }
    }
    let Some((_, mut sorts, chosen)) = groups.into_iter().max_by_key(|(_, s, _)| s.len()) else {
        if items.is_empty() {
            return Err(format!(
                "no item of the fixture has `{partition}`{}: give an entity of the layout a `{partition}` column with its template",
                sort.map_or(String::new(), |s| format!(" and `{s}`"))
            ));
        }
        return Err(format!("no item of the fixture has `{partition}` of the shape `{partition_template}`{}: add the entity to the layout", if sort_part.is_some() { " answering the sort condition" } else { "" }));
    };
    *bound = chosen;
    // Ranges take values from inside the collection: a quarter and three quarters along.
    sorts.sort();
    let at = |share: usize| sorts.get(sorts.len() * share / 4).cloned().unwrap_or_default();
    let fill_from = |template: &Template, value: String, bound: &mut Bindings| {
        if template.fill(bound).is_none() {
            template.matches(&value, bound);
        }
    };
    match sort_part {
        Some(KeyPart::Compare { op, value: template, .. }) if *op != "=" => {
            let value = if op.starts_with('<') { at(3) } else { at(1) };
            fill_from(template, value, bound);
        }
        Some(KeyPart::Between { low, high, .. }) => {
            fill_from(low, at(1), bound);
            fill_from(high, at(3), bound);
        }
        _ => {}
    }
    Ok(())
}

/// `value` starts with what `template` makes (its trailing placeholder taking any rest).
fn begins(template: &Template, value: &str, bound: &mut Bindings) -> bool {
    if let Some(text) = template.fill(bound) {
        return value.starts_with(&text);
    }
    // Try the prefixes ending where the template's text could end.
    let last_text = template.parts.iter().rev().find_map(|p| match p {
        super::template::Part::Text(t) => Some(t.as_str()),
        super::template::Part::Placeholder(_) => None,
    });
    let ends_in_placeholder = matches!(template.parts.last(), Some(super::template::Part::Placeholder(_)));
    if ends_in_placeholder {
        return template.matches(value, bound);
    }
    let Some(last_text) = last_text else { return false };
    value.match_indices(last_text).any(|(at, _)| template.matches(&value[..at + last_text.len()], bound))
}

/// The key of an existing item the action's key condition names (all its key attributes equal).
fn existing_key(
    fixture: &Fixture,
    action: &Action,
    bound: &mut Bindings,
) -> Result<(Value, Map<String, Value>), String> {
    let table = fixture.table;
    let key_names = table.key_names();
    let templates = key_templates(action, &key_names)?;
    for (_, item) in fixture.items {
        let mut b = bound.clone();
        let all = templates
            .iter()
            .all(|(name, template)| item.get(*name).and_then(text_of).is_some_and(|v| template.matches(&v, &mut b)));
        if all {
            *bound = b;
            let key: Map<String, Value> = key_names.iter().map(|n| ((*n).to_string(), item[*n].clone())).collect();
            return Ok((Value::Object(key), item.clone()));
        }
    }
    let shown: Vec<String> = templates.iter().map(|(n, t)| format!("{n}={t}")).collect();
    Err(format!("no item of the fixture has the key {}: add the entity to the layout", shown.join(", ")))
}

/// The `=` template of each key attribute, all of them required.
fn key_templates<'a>(action: &'a Action, key_names: &[&'a str]) -> Result<Vec<(&'a str, &'a Template)>, String> {
    let mut templates = Vec::new();
    for name in key_names {
        match action.key.iter().find(|p| p.attribute() == *name) {
            Some(KeyPart::Compare { op: "=", value, .. }) => templates.push((*name, value)),
            _ => {
                return Err(format!(
                    "a key names every key attribute with `=`: {}",
                    key_names.iter().map(|n| format!("{n}=…")).collect::<Vec<_>>().join(", ")
                ))
            }
        }
    }
    if let Some(extra) = action.key.iter().find(|p| !key_names.contains(&p.attribute())) {
        return Err(format!(
            "`{}` is not a key attribute of the table (keys: {})",
            extra.attribute(),
            key_names.join(", ")
        ));
    }
    Ok(templates)
}

/// A Put, Update, Delete or ConditionCheck request (`position` makes a new item's values its own).
fn write_request(
    fixture: &Fixture,
    action: &Action,
    bound: &mut Bindings,
    position: u64,
) -> Result<Map<String, Value>, String> {
    let table = fixture.table;
    let kind = action.kind.as_deref().unwrap_or("Put");
    let mut request = Map::new();
    request.insert("TableName".into(), json!(table.name));
    let mut placeholders = Placeholders::default();
    let mut known: Vec<Map<String, Value>> = Vec::new();
    if kind == "Put" {
        let item = new_item(fixture, action, bound, position)?;
        known.push(item.clone());
        request.insert("Item".into(), Value::Object(item));
        if action.update.is_some() {
            return Err("a Put writes a whole item: its attributes come from the layout, not SET".into());
        }
    } else {
        let (key, item) = existing_key(fixture, action, bound)?;
        known.push(item);
        request.insert("Key".into(), key);
        if let Some(update) = &action.update {
            if kind != "Update" {
                return Err(format!("{kind} takes no update expression"));
            }
            let known: Vec<&Map<String, Value>> = known.iter().collect();
            let update = bind_references(update, &known, bound);
            request.insert("UpdateExpression".into(), json!(translate(&update, bound, &mut placeholders)?));
        } else if kind == "Update" {
            return Err(
                "an Update needs what it changes: `SET attribute = value`, `ADD counter 1`, `REMOVE attribute`".into(),
            );
        }
    }
    match &action.condition {
        Some(condition) => {
            let known: Vec<&Map<String, Value>> = known.iter().collect();
            let condition = bind_references(condition, &known, bound);
            request.insert("ConditionExpression".into(), json!(translate(&condition, bound, &mut placeholders)?));
        }
        None if kind == "ConditionCheck" => return Err("a ConditionCheck needs `if condition`".into()),
        None => {}
    }
    if !action.options.is_empty() {
        return Err(format!("{} is an option of a read, not of a write", action.options[0].0));
    }
    placeholders.add_to(&mut request);
    Ok(request)
}

/// The item a Put writes: a new item of the entity whose keys have this shape, values already
/// bound kept (the order a transaction also updates), the rest fresh.
fn new_item(
    fixture: &Fixture,
    action: &Action,
    bound: &mut Bindings,
    position: u64,
) -> Result<Map<String, Value>, String> {
    let table = fixture.table;
    let key_names = table.key_names();
    let templates = key_templates(action, &key_names)?;
    let partition = templates[0].1;
    let sort = templates.get(1).map(|t| t.1);
    let Some(entity) = fixture.layout.entity_for(partition, sort) else {
        // No entity says what else the item holds: it is its key (fully given, or with fresh values).
        if templates.iter().any(|(_, t)| !t.is_constant()) && fixture.table.entities.is_empty() {
            return Err(format!(
                "no entity of the layout has keys of the shape {}: add it to the layout so its items can be made",
                templates.iter().map(|(n, t)| format!("{n}={t}")).collect::<Vec<_>>().join(", ")
            ));
        }
        let mut item = Map::new();
        for (name, template) in &templates {
            for placeholder in template.placeholders() {
                if !bound.contains_key(placeholder) {
                    bound
                        .insert(placeholder.to_string(), super::fixture::slot_value(placeholder, 1_000_000 + position));
                }
            }
            let text = template.fill(bound).unwrap_or_default();
            item.insert((*name).to_string(), typed(table, name, &text));
        }
        return Ok(item);
    };
    let design = fixture.layout.entity(entity);
    let mut given = Bindings::new();
    for (name, template) in &templates {
        if let Some(theirs) = design.template(name) {
            for (mine, their_name) in template.renamed_by(theirs) {
                if let Some(value) = bound.get(&mine) {
                    given.insert(their_name, value.clone());
                }
            }
        }
    }
    let index = fixture.layout.count(entity) + 1000 + position;
    let item = fixture.layout.item(entity, index, &given)?;
    for (name, template) in &templates {
        if let Some(value) = item.get(*name).and_then(text_of) {
            template.matches(&value, bound);
        }
    }
    Ok(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_methods_shorthand() {
        let actions =
            parse("Query", "PK=USER#id AND begins_with(SK,'ORDER#'), ScanIndexForward=false").expect("parses");
        assert_eq!(actions[0].key.len(), 2);
        assert_eq!(actions[0].options, [("ScanIndexForward".to_string(), "false".to_string())]);
        let between = parse("Query", "PK=X#id AND SK BETWEEN 'A' AND 'B', Limit=5").expect("between");
        assert!(matches!(&between[0].key[1], KeyPart::Between { attribute, .. } if attribute == "SK"));
        let write = parse("UpdateItem", "PK=ORDER#id, SK=META SET #s = 'SHIPPED' if version = 3").expect("update");
        assert_eq!(write[0].update.as_deref(), Some("SET #s = 'SHIPPED'"));
        assert_eq!(write[0].condition.as_deref(), Some("version = 3"));
        let transaction = parse(
            "TransactWriteItems",
            "Put PK=A#a, SK=M if attribute_not_exists(PK); Update PK=S#s, SK=STOCK SET stock = stock - 1 if stock >= 1",
        )
        .expect("transaction");
        assert_eq!(transaction.len(), 2);
        assert_eq!(transaction[1].kind.as_deref(), Some("Update"));
        assert_eq!(condition_attribute_names("GSI1PK=WAREHOUSE#id#OPEN"), ["GSI1PK"]);
    }

    #[test]
    fn refuses_what_is_not_a_key_condition() {
        assert!(check_shorthand("Query", "PK").expect_err("no op").contains("is not a key condition"));
        assert!(check_shorthand("Query", "ScanIndexForward=false")
            .expect_err("no key")
            .contains("needs a key condition"));
        assert!(check_shorthand("TransactWriteItems", "Frob PK=A").expect_err("kind").contains("starts with Put"));
        assert!(check_shorthand("Query", &"x".repeat(5000)).expect_err("long").contains("at most 4096"));
    }
}

impl KeyPart {
    /// In the shorthand: `PK=USER#<userId>`, `begins_with(SK, 'ORDER#')`, `SK BETWEEN a AND b`.
    pub fn shorthand(&self) -> String {
        let value = |t: &Template| shorthand_value(t);
        match self {
            Self::Compare { attribute, op, value: template } => format!("{attribute}{op}{}", value(template)),
            Self::BeginsWith { attribute, value: template } => format!("begins_with({attribute}, {})", value(template)),
            Self::Between { attribute, low, high } => format!("{attribute} BETWEEN {} AND {}", value(low), value(high)),
        }
    }
}

/// A template as the shorthand writes it: placeholders in angle brackets; text that the shorthand
/// would otherwise read as a placeholder (a lower-case word) or cut (`,`, spaces) quoted.
pub fn shorthand_value(template: &Template) -> String {
    let text = template.to_string();
    if template.is_constant() {
        let plain = Template::parse_shorthand(&text).ok().is_some_and(|t| t == *template);
        if plain && !text.contains([',', ' ', ';', '(', ')', '=', '<', '>']) && !text.is_empty() {
            return text;
        }
        return format!("'{}'", text.replace('\'', ""));
    }
    text
}

impl Action {
    /// The action in the shorthand, as [`parse`] reads it back.
    pub fn shorthand(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let key: Vec<String> = self.key.iter().map(KeyPart::shorthand).collect();
        if !key.is_empty() {
            parts.push(key.join(", "));
        }
        for (option, value) in &self.options {
            parts.push(format!("{option}={value}"));
        }
        let mut text = parts.join(", ");
        if let Some(update) = self.update.as_ref().filter(|u| !u.trim().is_empty()) {
            text.push_str(&format!(" {}", update.trim()));
        }
        if let Some(condition) = self.condition.as_ref().filter(|c| !c.trim().is_empty()) {
            text.push_str(&format!(" if {}", condition.trim()));
        }
        match &self.kind {
            Some(kind) => format!("{kind} {text}"),
            None => text,
        }
    }
}

/// Several actions (a transaction's), as one note: `Put …; Update …`.
pub fn compose(actions: &[Action]) -> String {
    actions.iter().map(Action::shorthand).collect::<Vec<_>>().join("; ")
}

/// A request as it ran (the console's, or a history entry) made a design-note row: its key values,
/// expressions, index and options written in the shorthand, every value it used kept as the
/// pattern's input. With the table it runs on.
pub fn from_request(operation: &str, request: &Value) -> Result<(String, CallRow), String> {
    let operation = operation_name(operation).ok_or_else(|| format!("{operation} cannot be a pattern's call"))?;
    let table_of = |r: &Value| r.get("TableName").and_then(Value::as_str).map(String::from);
    let (table, key_condition) = match operation {
        "TransactWriteItems" | "TransactGetItems" => {
            let mut table = None;
            let mut actions = Vec::new();
            for entry in request.get("TransactItems").and_then(Value::as_array).into_iter().flatten() {
                let Some((kind, body)) = entry.as_object().and_then(|o| o.iter().next()) else { continue };
                table = table.or_else(|| table_of(body));
                let mut action = action_from(body, kind == "Put")?;
                action.kind = Some(kind.clone());
                actions.push(action);
            }
            (table, compose(&actions))
        }
        "BatchGetItem" => {
            let (table, keys) = request
                .get("RequestItems")
                .and_then(Value::as_object)
                .and_then(|o| o.iter().next())
                .ok_or("a BatchGetItem without RequestItems")?;
            let mut actions = Vec::new();
            for key in keys.get("Keys").and_then(Value::as_array).into_iter().flatten() {
                actions.push(action_from(&json!({"Key": key}), false)?);
            }
            (Some(table.clone()), compose(&actions))
        }
        _ => {
            let mut action = action_from(request, operation == "PutItem")?;
            for (field, option) in [
                ("ScanIndexForward", "ScanIndexForward"),
                ("Limit", "Limit"),
                ("ConsistentRead", "ConsistentRead"),
                ("Select", "Select"),
                ("TopK", "TopK"),
            ] {
                if let Some(value) = request.get(field) {
                    let shown = value.as_str().map_or_else(|| value.to_string(), String::from);
                    action.options.push((option.into(), shown));
                }
            }
            (table_of(request), action.shorthand())
        }
    };
    let table = table.ok_or("the request names no table")?;
    let index = request.get("IndexName").and_then(Value::as_str).map(String::from);
    Ok((
        table,
        CallRow { id: String::new(), pattern: String::new(), operation: operation.into(), key_condition, index },
    ))
}

/// One request body (or transaction action) in the shorthand's parts, values in place.
fn action_from(body: &Value, put: bool) -> Result<Action, String> {
    let names = body.get("ExpressionAttributeNames").and_then(Value::as_object).cloned().unwrap_or_default();
    let values = body.get("ExpressionAttributeValues").and_then(Value::as_object).cloned().unwrap_or_default();
    let inline = |text: &str| inline_expression(text, &names, &values);
    let mut action = Action::default();
    let key_source = if put { body.get("Item") } else { body.get("Key") };
    if let Some(key) = key_source.and_then(Value::as_object) {
        // A Put's item names its key among all its attributes: the key is what the note needs;
        // the rest of the item comes from the entity layout.
        let wanted: Vec<&String> = if put {
            key.keys()
                .filter(|k| {
                    k.to_ascii_uppercase().ends_with("PK")
                        || k.to_ascii_uppercase().ends_with("SK")
                        || k.as_str() == "pk"
                        || k.as_str() == "sk"
                })
                .collect()
        } else {
            key.keys().collect()
        };
        for name in wanted {
            let text = literal(&key[name]).ok_or_else(|| format!("key `{name}`: only S, N or B values make a key"))?;
            action.key.push(KeyPart::Compare {
                attribute: name.clone(),
                op: "=",
                value: Template { parts: vec![super::template::Part::Text(text)] },
            });
        }
    }
    for field in ["KeyConditionExpression", "SearchConditionExpression"] {
        if let Some(condition) = body.get(field).and_then(Value::as_str) {
            for piece in split_and(&inline(condition)) {
                action.key.push(key_part(piece.trim())?);
            }
        }
    }
    if let Some(update) = body.get("UpdateExpression").and_then(Value::as_str) {
        action.update = Some(inline(update));
    }
    if let Some(condition) = body.get("ConditionExpression").and_then(Value::as_str) {
        action.condition = Some(inline(condition));
    }
    if let Some(filter) = body.get("FilterExpression").and_then(Value::as_str) {
        action.options.push(("Filter".into(), inline(filter)));
    }
    if let Some(projection) = body.get("ProjectionExpression").and_then(Value::as_str) {
        action.options.push(("Projection".into(), inline(projection).replace(", ", " ").replace(',', " ")));
    }
    Ok(action)
}

/// The text of a key value: S and N as they are.
fn literal(value: &Value) -> Option<String> {
    value.get("S").or_else(|| value.get("N")).and_then(Value::as_str).map(String::from)
}

/// `#s = :v` with its names and values written in place: `status = 'SHIPPED'`.
fn inline_expression(text: &str, names: &Map<String, Value>, values: &Map<String, Value>) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '#' || c == ':' {
            let end = chars[i + 1..]
                .iter()
                .position(|d| !(d.is_ascii_alphanumeric() || *d == '_'))
                .map_or(chars.len(), |e| i + 1 + e);
            let token: String = chars[i..end].iter().collect();
            let replaced = if c == '#' {
                names.get(&token).and_then(Value::as_str).map(String::from)
            } else {
                values.get(&token).map(|v| match (v.get("S"), v.get("N"), v.get("BOOL")) {
                    (Some(s), _, _) => format!("'{}'", s.as_str().unwrap_or_default().replace('\'', "")),
                    (_, Some(n), _) => n.as_str().unwrap_or_default().to_string(),
                    (_, _, Some(b)) => b.to_string(),
                    _ => token.clone(),
                })
            };
            out.push_str(&replaced.unwrap_or(token));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod compose_tests {
    use super::*;

    #[test]
    fn the_controls_shorthand_reads_back_as_written() {
        for (operation, text) in [
            ("Query", "PK=USER#<userId>, begins_with(SK, 'ORDER#'), ScanIndexForward=false, Limit=20"),
            ("GetItem", "PK=USER#<userId>, SK=PROFILE"),
            ("UpdateItem", "PK=ORDER#<orderId>, SK=META SET status = 'SHIPPED' if version = 3"),
            ("TransactWriteItems", "Put PK=ORDER#<orderId>, SK=META if attribute_not_exists(PK); Update PK=SKU#<sku>, SK=STOCK SET stock = stock - 1 if stock >= 1"),
            ("Query", "GSI1PK='warehouse open', SK BETWEEN 'a' AND 'b'"),
        ] {
            let actions = parse(operation, text).expect(text);
            assert_eq!(parse(operation, &compose(&actions)).expect("again"), actions, "{text} → {}", compose(&actions));
        }
    }

    #[test]
    fn a_console_request_becomes_a_note_with_its_values() {
        let request = json!({"TableName": "shop", "IndexName": "GSI1",
            "KeyConditionExpression": "#pk = :pk AND begins_with(SK, :p)", "FilterExpression": "#s = :open",
            "ExpressionAttributeNames": {"#pk": "GSI1PK", "#s": "status"},
            "ExpressionAttributeValues": {":pk": {"S": "WAREHOUSE#w-1#OPEN"}, ":p": {"S": "2026"}, ":open": {"S": "OPEN"}},
            "ScanIndexForward": false, "Limit": 5});
        let (table, call) = from_request("Query", &request).expect("becomes a call");
        assert_eq!(table, "shop");
        assert_eq!(call.index.as_deref(), Some("GSI1"));
        assert_eq!(
            call.key_condition,
            "GSI1PK=WAREHOUSE#w-1#OPEN, begins_with(SK, 2026), Filter=status = 'OPEN', ScanIndexForward=false, Limit=5"
        );
        check_shorthand("Query", &call.key_condition).expect("reads back");
        let update = json!({"TableName": "shop", "Key": {"PK": {"S": "ORDER#1"}, "SK": {"S": "META"}},
            "UpdateExpression": "SET #s = :s", "ConditionExpression": "version = :v",
            "ExpressionAttributeNames": {"#s": "status"}, "ExpressionAttributeValues": {":s": {"S": "SHIPPED"}, ":v": {"N": "3"}}});
        let (_, call) = from_request("UpdateItem", &update).expect("update");
        assert_eq!(call.key_condition, "PK=ORDER#1, SK=META SET status = 'SHIPPED' if version = 3");
    }
}

/// The request of a call with its placeholders left as `{{name}}` for a challenge's test inputs to
/// fill (`PK=CUST#<customerId>` → `{"S": "CUST#{{customerId}}"}`), not bound to a fixture.
pub fn template_request(
    table: &TableDesign,
    operation: &str,
    text: &str,
    index: Option<&str>,
    strong: bool,
) -> Result<Value, String> {
    let actions = parse(operation, text)?;
    let mut bound = Bindings::new();
    for action in &actions {
        for part in &action.key {
            let templates: Vec<&Template> = match part {
                KeyPart::Compare { value, .. } | KeyPart::BeginsWith { value, .. } => vec![value],
                KeyPart::Between { low, high, .. } => vec![low, high],
            };
            for name in templates.iter().flat_map(|t| t.placeholders()) {
                bound.insert(name.to_string(), format!("{{{{{name}}}}}"));
            }
        }
        let texts = action
            .options
            .iter()
            .map(|(_, v)| v.as_str())
            .chain(action.update.as_deref())
            .chain(action.condition.as_deref());
        for text in texts {
            for name in expression_placeholders(text) {
                bound.insert(name.clone(), format!("{{{{{name}}}}}"));
            }
        }
    }
    let key_of = |action: &Action| -> Result<Value, String> {
        let names = table.key_names();
        let mut key = Map::new();
        for (name, template) in key_templates(action, &names)? {
            key.insert(name.to_string(), typed(table, name, &template.fill(&bound).unwrap_or_default()));
        }
        Ok(Value::Object(key))
    };
    let write = |action: &Action, kind: &str| -> Result<Value, String> {
        let mut request = Map::new();
        request.insert("TableName".into(), json!(table.name));
        let mut placeholders = Placeholders::default();
        let key = key_of(action)?;
        if kind == "Put" {
            request.insert("Item".into(), key);
        } else {
            request.insert("Key".into(), key);
        }
        if let Some(update) = &action.update {
            request.insert("UpdateExpression".into(), json!(translate(update, &bound, &mut placeholders)?));
        }
        if let Some(condition) = &action.condition {
            request.insert("ConditionExpression".into(), json!(translate(condition, &bound, &mut placeholders)?));
        }
        placeholders.add_to(&mut request);
        Ok(Value::Object(request))
    };
    Ok(match operation {
        "GetItem" | "Query" | "Scan" => {
            let action = &actions[0];
            let mut request = Map::new();
            request.insert("TableName".into(), json!(table.name));
            let mut placeholders = Placeholders::default();
            if operation == "GetItem" {
                request.insert("Key".into(), key_of(action)?);
            } else {
                if let Some(index) = index {
                    request.insert("IndexName".into(), json!(index));
                }
                if operation == "Query" {
                    let parts: Result<Vec<String>, String> =
                        action.key.iter().map(|p| key_condition_text(table, p, &bound, &mut placeholders)).collect();
                    request.insert("KeyConditionExpression".into(), json!(parts?.join(" AND ")));
                }
            }
            for (option, value) in &action.options {
                apply_option(&mut request, option, value, &bound, &mut placeholders)?;
            }
            if strong && operation != "Scan" && !action.options.iter().any(|(o, _)| o == "ConsistentRead") {
                request.insert("ConsistentRead".into(), json!(true));
            }
            placeholders.add_to(&mut request);
            Value::Object(request)
        }
        "PutItem" | "UpdateItem" | "DeleteItem" => write(&actions[0], &operation[..operation.len() - 4])?,
        "TransactWriteItems" => {
            let mut items = Vec::new();
            for action in &actions {
                let kind = action.kind.clone().unwrap_or_else(|| "Put".into());
                items.push(json!({ kind.clone(): write(action, &kind)? }));
            }
            json!({"TransactItems": items})
        }
        "TransactGetItems" | "BatchGetItem" => {
            let keys: Result<Vec<Value>, String> = actions.iter().map(key_of).collect();
            let keys = keys?;
            if operation == "BatchGetItem" {
                json!({"RequestItems": {table.name.clone(): {"Keys": keys}}})
            } else {
                json!({"TransactItems": keys.into_iter().map(|k| json!({"Get": {"TableName": table.name, "Key": k}})).collect::<Vec<_>>()})
            }
        }
        other => return Err(format!("`{other}` cannot be built from a design note")),
    })
}

/// The `<name>` placeholders an expression names.
fn expression_placeholders(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        match after.find('>') {
            Some(close) if super::template::is_name(after[..close].trim()) => {
                names.push(after[..close].trim().to_string());
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    names
}
