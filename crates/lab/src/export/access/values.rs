//! A proven request as generated code writes it: attribute values as plain values (what the
//! document client and boto3's resource client take), and the key inputs lifted into parameters.

use super::names::parameter_name;
use super::{Parameter, Shape};
use base64::Engine as _;
use dynalab_engine::TableShape;
use serde_json::{Map, Value};

/// A request: its fields as they are, its attribute values as [`Plain`] values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// A string, number or boolean of the request itself (`TableName`, `Limit`, …).
    Json(Value),
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    Value(Plain),
    /// The function's page-key parameter (`ExclusiveStartKey`).
    StartKey,
}

impl Node {
    pub fn get(&self, field: &str) -> Option<&Node> {
        match self {
            Self::Object(fields) => fields.iter().find(|(k, _)| k == field).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// An attribute value as code holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plain {
    Str(Vec<Piece>),
    Num(Piece),
    Bool(bool),
    Null,
    Bin(Vec<u8>),
    List(Vec<Plain>),
    Map(Vec<(String, Plain)>),
    StrSet(Vec<String>),
    NumSet(Vec<String>),
    BinSet(Vec<Vec<u8>>),
}

/// Part of a string or a number: text as proven, or a parameter of the function.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Text(String),
    Parameter(usize),
}

/// Fields whose value maps attribute names to attribute values.
const VALUE_MAPS: [&str; 4] = ["Key", "Item", "ExpressionAttributeValues", "ExclusiveStartKey"];
/// Fields whose value is a list of attribute values.
const VALUE_LISTS: [&str; 2] = ["Parameters", "AttributeValueList"];

/// Fields in the order a person writes a request.
const FIELD_ORDER: [&str; 18] = [
    "TableName",
    "IndexName",
    "Key",
    "Item",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
    "UpdateExpression",
    "ConditionExpression",
    "ExpressionAttributeNames",
    "ExpressionAttributeValues",
    "ScanIndexForward",
    "Limit",
    "ConsistentRead",
    "Select",
    "ReturnValues",
    "Statement",
    "Parameters",
];

/// The key inputs of a function's calls, lifted as parameters, and the values they replace.
#[derive(Default)]
pub(crate) struct Lifted {
    pub parameters: Vec<Parameter>,
    /// (type tag, the whole value as proven) → how it is written.
    replaced: Vec<((&'static str, String), Plain)>,
    /// Every table's key attributes: an item or key writes them first.
    key_order: Vec<String>,
}

impl Lifted {
    /// `request` with its attribute values plain and its key inputs (keys, key conditions' values,
    /// an item's key attributes) as parameters; `shapes` are the tables'.
    pub fn request(&mut self, request: &Value, shapes: &[TableShape]) -> Node {
        for name in shapes.iter().flat_map(|s| super::table_key(s)) {
            if !self.key_order.contains(&name) {
                self.key_order.push(name);
            }
        }
        self.collect(request, None, shapes);
        self.node(request)
    }

    /// An item's or key's attributes, its key attributes first.
    fn values(&self, map: &Value) -> Node {
        let mut fields: Vec<(&String, &Value)> = map.as_object().into_iter().flatten().collect();
        fields.sort_by_key(|(name, _)| self.key_order.iter().position(|k| k == *name).unwrap_or(usize::MAX));
        Node::Object(fields.into_iter().map(|(k, v)| (k.clone(), Node::Value(self.plain(v)))).collect())
    }

    fn collect(&mut self, value: &Value, table: Option<&str>, shapes: &[TableShape]) {
        match value {
            Value::Object(map) => {
                let table = map.get("TableName").and_then(Value::as_str).or(table);
                let keys = table
                    .map(|t| key_attributes(shapes, t, map.get("IndexName").and_then(Value::as_str)))
                    .unwrap_or_default();
                for (field, inner) in map {
                    match field.as_str() {
                        "Key" => {
                            for (attribute, value) in inner.as_object().into_iter().flatten() {
                                self.candidate(attribute, value);
                            }
                        }
                        "Item" => {
                            for (attribute, value) in
                                inner.as_object().into_iter().flatten().filter(|(a, _)| keys.contains(a))
                            {
                                self.candidate(attribute, value);
                            }
                        }
                        "Keys" => {
                            for key in inner.as_array().into_iter().flatten().filter_map(Value::as_object) {
                                for (attribute, value) in key {
                                    self.candidate(attribute, value);
                                }
                            }
                        }
                        "KeyConditionExpression" => {
                            let names = map.get("ExpressionAttributeNames");
                            let values = map.get("ExpressionAttributeValues");
                            for (placeholder, attribute) in key_condition_bindings(inner.as_str().unwrap_or(""), names)
                            {
                                if let Some(value) = values.and_then(|v| v.get(&placeholder)) {
                                    self.candidate(&attribute, value);
                                }
                            }
                        }
                        "RequestItems" => {
                            for (table, requests) in inner.as_object().into_iter().flatten() {
                                self.collect(requests, Some(table), shapes);
                            }
                        }
                        "ExpressionAttributeValues" | "ExclusiveStartKey" | "Parameters" => {}
                        _ => self.collect(inner, table, shapes),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| self.collect(i, table, shapes)),
            _ => {}
        }
    }

    /// A key attribute's value becomes a parameter unless it is a constant of the design
    /// (`PROFILE`, `ORDER#` as a prefix to begin with).
    fn candidate(&mut self, attribute: &str, value: &Value) {
        let (tag, text) = match (value.get("S").and_then(Value::as_str), value.get("N").and_then(Value::as_str)) {
            (Some(s), _) => ("S", s),
            (None, Some(n)) => ("N", n),
            _ => return,
        };
        if self.replaced.iter().any(|((t, v), _)| *t == tag && v == text) {
            return;
        }
        let (label, rest) = if tag == "S" { split_label(text) } else { (None, text) };
        if rest.is_empty() || (tag == "S" && is_constant(text)) {
            return;
        }
        let mut name = parameter_name(label.map(|(word, _)| word), attribute);
        let base = name.clone();
        let mut n = 1;
        while self.parameters.iter().any(|p| p.name == name) {
            n += 1;
            name = base.clone().with(&n.to_string());
        }
        let index = self.parameters.len();
        self.parameters.push(Parameter { name, number: tag == "N", example: rest.to_string() });
        let written = if tag == "N" {
            Plain::Num(Piece::Parameter(index))
        } else {
            let mut pieces = Vec::new();
            if let Some((_, prefix)) = label {
                pieces.push(Piece::Text(prefix.to_string()));
            }
            pieces.push(Piece::Parameter(index));
            Plain::Str(pieces)
        };
        self.replaced.push(((tag, text.to_string()), written));
    }

    fn node(&self, value: &Value) -> Node {
        match value {
            Value::Object(map) => {
                let mut fields: Vec<(&String, &Value)> = map.iter().collect();
                fields.sort_by_key(|(k, _)| {
                    (FIELD_ORDER.iter().position(|f| f == k).unwrap_or(FIELD_ORDER.len()), (*k).clone())
                });
                Node::Object(
                    fields
                        .into_iter()
                        .map(|(field, inner)| {
                            let node = if VALUE_MAPS.contains(&field.as_str()) {
                                self.values(inner)
                            } else if field == "Keys" {
                                Node::Array(
                                    inner.as_array().into_iter().flatten().map(|key| self.values(key)).collect(),
                                )
                            } else if VALUE_LISTS.contains(&field.as_str()) {
                                Node::Array(
                                    inner
                                        .as_array()
                                        .into_iter()
                                        .flatten()
                                        .map(|v| Node::Value(self.plain(v)))
                                        .collect(),
                                )
                            } else {
                                self.node(inner)
                            };
                            (field.clone(), node)
                        })
                        .collect(),
                )
            }
            Value::Array(items) => Node::Array(items.iter().map(|i| self.node(i)).collect()),
            other => Node::Json(other.clone()),
        }
    }

    /// An attribute value as a plain value, a lifted key input written through its parameter.
    fn plain(&self, value: &Value) -> Plain {
        let lifted = |tag: &'static str, text: &str| {
            self.replaced.iter().find(|((t, v), _)| *t == tag && v == text).map(|(_, written)| written.clone())
        };
        let Some((tag, inner)) = value.as_object().and_then(|m| m.iter().next()) else {
            return Plain::Null;
        };
        let texts = |v: &Value| {
            v.as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from).collect::<Vec<_>>()
        };
        match tag.as_str() {
            "S" => {
                let text = inner.as_str().unwrap_or("");
                lifted("S", text)
                    .or_else(|| self.same_as_parameter(text))
                    .unwrap_or_else(|| Plain::Str(vec![Piece::Text(text.to_string())]))
            }
            "N" => {
                let text = inner.as_str().unwrap_or("0");
                lifted("N", text).unwrap_or_else(|| Plain::Num(Piece::Text(text.to_string())))
            }
            "BOOL" => Plain::Bool(inner.as_bool().unwrap_or(false)),
            "B" => Plain::Bin(bytes(inner)),
            "L" => Plain::List(inner.as_array().into_iter().flatten().map(|v| self.plain(v)).collect()),
            "M" => {
                Plain::Map(inner.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), self.plain(v))).collect())
            }
            "SS" => Plain::StrSet(texts(inner)),
            "NS" => Plain::NumSet(texts(inner)),
            "BS" => Plain::BinSet(inner.as_array().into_iter().flatten().map(bytes).collect()),
            _ => Plain::Null,
        }
    }
}

impl Lifted {
    /// A string that is a key input's value (an order's `open_at` holding its sort key's suffix)
    /// is written through that parameter: it is the same input. Short strings are left alone.
    fn same_as_parameter(&self, text: &str) -> Option<Plain> {
        if text.chars().count() < 3 {
            return None;
        }
        let index = self.parameters.iter().position(|p| !p.number && p.example == text)?;
        Some(Plain::Str(vec![Piece::Parameter(index)]))
    }
}

fn bytes(value: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(value.as_str().unwrap_or("")).unwrap_or_default()
}

/// An item (DynamoDB JSON) as a plain map, nothing lifted.
pub(crate) fn plain_item(item: &Map<String, Value>) -> Plain {
    let none = Lifted::default();
    Plain::Map(item.iter().map(|(k, v)| (k.clone(), none.plain(v))).collect())
}

/// The type of an attribute value.
pub(crate) fn shape(value: &Value) -> Shape {
    match value.as_object().and_then(|m| m.keys().next()).map(String::as_str) {
        Some("S") => Shape::Str,
        Some("N") => Shape::Num,
        Some("BOOL") => Shape::Bool,
        Some("NULL") => Shape::Null,
        Some("B") => Shape::Bin,
        Some("L") => Shape::List,
        Some("M") => Shape::Map,
        Some("SS") => Shape::StrSet,
        Some("NS") => Shape::NumSet,
        Some("BS") => Shape::BinSet,
        _ => Shape::Mixed,
    }
}

/// The key attributes of `table` and, when named, of its index.
fn key_attributes(shapes: &[TableShape], table: &str, index: Option<&str>) -> Vec<String> {
    let Some(shape) = shapes.iter().find(|s| s.name == table) else {
        return Vec::new();
    };
    let mut keys = super::table_key(shape);
    if let Some(index) = index.and_then(|name| shape.indexes.iter().find(|i| i.name == name)) {
        keys.extend(index.partition_key.iter().chain(&index.sort_key).cloned());
    }
    keys
}

/// `USER#ada` → (USER, `USER#`), `ada`: a label in capitals before a separator, and the rest.
fn split_label(text: &str) -> (Option<(&str, &str)>, &str) {
    if let Some(end) = text.find(['#', ':', '|']) {
        let label = &text[..end];
        if !label.is_empty()
            && label.starts_with(|c: char| c.is_ascii_uppercase())
            && label.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            return (Some((label, &text[..=end])), &text[end + 1..]);
        }
    }
    (None, text)
}

/// A value in capitals only (`PROFILE`, `STOCK`, `ORDER#`): a constant of the design, not an input.
fn is_constant(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_uppercase())
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || matches!(c, '_' | '#' | ':' | '|' | '-'))
}

/// Which attribute each `:value` of a key condition is compared with: the name written last
/// before it (`pk = :u AND begins_with(sk, :o)` → `:u` pk, `:o` sk; `#d BETWEEN :a AND :b` → both #d).
pub(crate) fn key_condition_bindings(text: &str, names: Option<&Value>) -> Vec<(String, String)> {
    const WORDS: [&str; 4] = ["AND", "BETWEEN", "BEGINS_WITH", "NOT"];
    let mut bindings = Vec::new();
    let mut last_name: Option<String> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c == ':' || c == '#' || c.is_ascii_alphabetic() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, next)) = chars.peek() {
                if next.is_ascii_alphanumeric() || next == '_' {
                    end = i + next.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let token = &text[start..end];
            if c == ':' {
                if let Some(name) = &last_name {
                    bindings.push((token.to_string(), name.clone()));
                }
            } else if c == '#' {
                last_name = names.and_then(|n| n.get(token)).and_then(Value::as_str).map(String::from);
            } else if !WORDS.contains(&token.to_ascii_uppercase().as_str()) {
                last_name = Some(token.to_string());
            }
        }
    }
    bindings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shape of an orders table with a GSI on `open_wh`, as the engine reports it.
    fn shapes() -> Vec<TableShape> {
        let mut engine = dynalab_engine::Engine::new(std::sync::Arc::new(dynalab_engine::FixedClock::at(0)));
        let create = json!({"TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "open_wh", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{"IndexName": "open_orders", "KeySchema": [{"AttributeName": "open_wh", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}]});
        assert!(engine.run("CreateTable", &create.to_string()).response.is_ok());
        vec![engine.outline("orders").expect("the table")]
    }

    #[test]
    fn key_inputs_become_parameters_and_constants_stay() {
        let mut lifted = Lifted::default();
        let node = lifted.request(
            &json!({"TableName": "orders", "KeyConditionExpression": "pk = :u AND begins_with(sk, :o)",
                "ExpressionAttributeValues": {":u": {"S": "USER#ada"}, ":o": {"S": "ORDER#"}}, "Limit": 20}),
            &shapes(),
        );
        assert_eq!(lifted.parameters.len(), 1);
        assert_eq!(lifted.parameters[0].name.camel(), "userId");
        assert_eq!(lifted.parameters[0].example, "ada");
        let values = node.get("ExpressionAttributeValues").expect("values");
        assert_eq!(
            values.get(":u"),
            Some(&Node::Value(Plain::Str(vec![Piece::Text("USER#".into()), Piece::Parameter(0)])))
        );
        assert_eq!(values.get(":o"), Some(&Node::Value(Plain::Str(vec![Piece::Text("ORDER#".into())]))));
        assert_eq!(node.get("Limit"), Some(&Node::Json(json!(20))));
    }

    #[test]
    fn an_index_key_without_a_label_is_named_after_its_attribute() {
        let mut lifted = Lifted::default();
        lifted.request(
            &json!({"TableName": "orders", "IndexName": "open_orders", "KeyConditionExpression": "#w = :w",
                "ExpressionAttributeNames": {"#w": "open_wh"}, "ExpressionAttributeValues": {":w": {"S": "w2"}}}),
            &shapes(),
        );
        assert_eq!(lifted.parameters[0].name.camel(), "openWh");
        assert_eq!(lifted.parameters[0].example, "w2");
    }

    #[test]
    fn one_value_is_one_parameter_across_a_transaction() {
        let mut lifted = Lifted::default();
        lifted.request(
            &json!({"TransactItems": [
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": "USER#linus"}, "sk": {"S": "PROFILE"}, "email": {"S": "l@x"}}}},
                {"Put": {"TableName": "orders", "Item": {"pk": {"S": "EMAIL#l@x"}, "sk": {"S": "EMAIL"}, "user": {"S": "USER#linus"}}}},
                {"Update": {"TableName": "orders", "Key": {"pk": {"S": "ORDER#o1"}, "sk": {"S": "ORDER#o2"}}}}]}),
            &shapes(),
        );
        let names: Vec<String> = lifted.parameters.iter().map(|p| p.name.camel()).collect();
        assert_eq!(names, ["userId", "emailId", "orderId", "orderId2"]);
    }

    #[test]
    fn key_condition_values_are_bound_to_the_name_before_them() {
        let bindings = key_condition_bindings("#d BETWEEN :a AND :b AND pk = :p", Some(&json!({"#d": "day"})));
        assert_eq!(bindings, [(":a".into(), "day".into()), (":b".into(), "day".into()), (":p".into(), "pk".into())]);
    }
}
