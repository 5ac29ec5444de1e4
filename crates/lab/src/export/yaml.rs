//! JSON values written as block YAML (what CloudFormation and Serverless files look like): maps
//! and lists as blocks, strings in double quotes only where YAML would read them otherwise.

use serde_json::Value;
use std::fmt::Write as _;

pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    block(&mut out, value, 0);
    out
}

fn block(out: &mut String, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, inner) in map {
                match inner {
                    Value::Object(m) if !m.is_empty() => {
                        let _ = writeln!(out, "{pad}{}:", scalar_text(key));
                        block(out, inner, indent + 2);
                    }
                    Value::Array(items) if !items.is_empty() => {
                        let _ = writeln!(out, "{pad}{}:", scalar_text(key));
                        block(out, inner, indent + 2);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}{}: {}", scalar_text(key), inline(inner));
                    }
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                match item {
                    Value::Object(m) if !m.is_empty() => {
                        // The first key on the dash's line, the rest under it.
                        let mut nested = String::new();
                        block(&mut nested, item, indent + 2);
                        let trimmed = nested.trim_start();
                        let _ = write!(out, "{pad}- {trimmed}");
                    }
                    Value::Array(inner) if !inner.is_empty() => {
                        let _ = writeln!(out, "{pad}-");
                        block(out, item, indent + 2);
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}- {}", inline(item));
                    }
                }
            }
        }
        other => {
            let _ = writeln!(out, "{pad}{}", inline(other));
        }
    }
}

fn inline(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_text(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A string as a plain scalar when YAML reads it back as the same string, else double-quoted.
fn scalar_text(text: &str) -> String {
    let plain = !text.is_empty()
        && text.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '#' | '@' | '$' | '{' | '}' | ' ')
        })
        && text.starts_with(|c: char| c.is_ascii_alphabetic())
        && !text.ends_with(' ')
        && !text.contains(": ")
        && !text.contains(" #")
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

#[cfg(all(test, feature = "yaml"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_back_as_the_same_value() {
        let value = json!({"Resources": {"Orders": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "TableName": "orders", "Tags": [{"Key": "yes", "Value": "010"}], "Empty": [], "N": 5, "B": true,
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "Nested": [["a", "b"], []], "Odd": "a: b # c", "Sub": "${AWS::StackName}-x"}}}});
        let text = to_yaml(&value);
        let back: serde_json::Value = serde_yaml::from_str(&text).expect("YAML");
        assert_eq!(back, value, "{text}");
    }
}
