//! Expressions as a design note writes them — values in place (`stock >= 1`, `status = 'OPEN'`,
//! `SET #s = 'SHIPPED'`), placeholders from the key (`<orderId>`) — turned into DynamoDB's form:
//! every attribute name through `ExpressionAttributeNames` (so reserved words such as `status`
//! just work) and every value through `ExpressionAttributeValues`.

use super::template::{is_name, Bindings, Template};
use serde_json::{json, Map, Value};

const KEYWORDS: [&str; 11] = ["AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE", "TRUE", "FALSE"];
const FUNCTIONS: [&str; 8] = [
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "begins_with",
    "contains",
    "size",
    "if_not_exists",
    "list_append",
];

/// The names and values a request's expressions share.
#[derive(Debug, Default)]
pub struct Placeholders {
    pub names: Map<String, Value>,
    pub values: Map<String, Value>,
}

impl Placeholders {
    /// `name` as an expression writes it: as it is, or through `#n…` when DynamoDB reserves it
    /// (`status`) or it is not a plain name.
    pub fn name(&mut self, name: &str) -> String {
        if is_name(name) && !dynalab_engine::expression::reserved::is_reserved(name) {
            return name.to_string();
        }
        if let Some((key, _)) = self.names.iter().find(|(_, v)| v.as_str() == Some(name)) {
            return key.clone();
        }
        let key = format!("#n{}", self.names.len());
        self.names.insert(key.clone(), json!(name));
        key
    }

    pub fn value(&mut self, value: Value) -> String {
        let key = format!(":v{}", self.values.len());
        self.values.insert(key.clone(), value);
        key
    }

    /// Adds `ExpressionAttributeNames` / `Values` to `request` when any were used.
    pub fn add_to(self, request: &mut Map<String, Value>) {
        if !self.names.is_empty() {
            request.insert("ExpressionAttributeNames".into(), Value::Object(self.names));
        }
        if !self.values.is_empty() {
            request.insert("ExpressionAttributeValues".into(), Value::Object(self.values));
        }
    }
}

/// `text` in DynamoDB's form, its names and values added to `placeholders`; `<name>` takes its
/// value from `bound`.
pub fn translate(text: &str, bound: &Bindings, placeholders: &mut Placeholders) -> Result<String, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' || c == '"' {
            let end = chars[i + 1..]
                .iter()
                .position(|d| *d == c)
                .ok_or_else(|| format!("`{text}`: a quote is not closed"))?;
            let inner: String = chars[i + 1..i + 1 + end].iter().collect();
            let filled =
                Template::parse(&inner)?.fill(bound).ok_or_else(|| format!("`{inner}`: a placeholder has no value"))?;
            out.push_str(&placeholders.value(json!({"S": filled})));
            i += end + 2;
        } else if c == '<' && chars.get(i + 1).is_some_and(|d| d.is_ascii_alphabetic()) {
            let end =
                chars[i..].iter().position(|d| *d == '>').ok_or_else(|| format!("`{text}`: a `<` without its `>`"))?;
            let name: String = chars[i + 1..i + end].iter().collect();
            let value = bound.get(name.trim()).ok_or_else(|| format!("`<{name}>` has no value"))?;
            out.push_str(&placeholders.value(json!({"S": value})));
            i += end + 1;
        } else if c.is_ascii_digit() {
            let end = chars[i..].iter().position(|d| !(d.is_ascii_digit() || *d == '.')).map_or(chars.len(), |e| i + e);
            let number: String = chars[i..end].iter().collect();
            if out.ends_with('[') {
                out.push_str(&number); // a list index, not a value
            } else {
                out.push_str(&placeholders.value(json!({"N": number})));
            }
            i = end;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = chars[i..]
                .iter()
                .position(|d| !(d.is_ascii_alphanumeric() || *d == '_'))
                .map_or(chars.len(), |e| i + e);
            let word: String = chars[i..end].iter().collect();
            let upper = word.to_ascii_uppercase();
            let next = chars[end..].iter().find(|d| !d.is_whitespace());
            if upper == "TRUE" || upper == "FALSE" {
                out.push_str(&placeholders.value(json!({"BOOL": upper == "TRUE"})));
            } else if KEYWORDS.contains(&upper.as_str()) {
                out.push_str(&upper);
            } else if next == Some(&'(') && FUNCTIONS.contains(&word.as_str()) {
                out.push_str(&word);
            } else {
                out.push_str(&placeholders.name(&word));
            }
            i = end;
        } else if c == ':' || c == '#' {
            let end = chars[i + 1..]
                .iter()
                .position(|d| !(d.is_ascii_alphanumeric() || *d == '_'))
                .map_or(chars.len(), |e| i + 1 + e);
            let word: String = chars[i + 1..end].iter().collect();
            if c == ':' || !is_name(&word) {
                return Err(format!(
                    "`{}{word}`: write values in place (`stock >= 1`, `status = 'OPEN'`) and names as they are",
                    c
                ));
            }
            // `#s` written by someone used to DynamoDB: the name is `s`.
            out.push_str(&placeholders.name(&word));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_go_through_placeholders() {
        let mut placeholders = Placeholders::default();
        let bound: Bindings = [("orderId".to_string(), "o-1".to_string())].into();
        let update = translate("SET status = 'SHIPPED', stock = stock - 1", &bound, &mut placeholders).expect("update");
        assert_eq!(update, "SET #n0 = :v0, stock = stock - :v1", "a reserved word goes through a name");
        let condition =
            translate("attribute_exists(PK) AND lastOrder <> <orderId>", &bound, &mut placeholders).expect("condition");
        assert_eq!(condition, "attribute_exists(PK) AND lastOrder <> :v2");
        assert_eq!(placeholders.values[":v2"], json!({"S": "o-1"}));
        assert_eq!(placeholders.names["#n0"], json!("status"));
        let mut request = Map::new();
        placeholders.add_to(&mut request);
        assert!(request.contains_key("ExpressionAttributeNames"));
    }

    #[test]
    fn refuses_values_by_reference_and_open_quotes() {
        let mut placeholders = Placeholders::default();
        assert!(translate("a = :x", &Bindings::new(), &mut placeholders)
            .expect_err(":x")
            .contains("write values in place"));
        assert!(translate("a = 'x", &Bindings::new(), &mut placeholders).expect_err("quote").contains("not closed"));
        assert!(translate("a = <missing>", &Bindings::new(), &mut placeholders)
            .expect_err("unbound")
            .contains("has no value"));
    }
}
