//! What CloudFormation decides before it creates anything: each parameter's value checked against
//! its constraints (a value it would refuse stops the stack, so it stops the check), and the
//! template's `Conditions` evaluated with those values (`Fn::Equals`, `Fn::And`, `Fn::Or`,
//! `Fn::Not`, `Condition`), for resources' `Condition:` and `Fn::If`.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Conditions nest at most this deep (CloudFormation allows far less in practice).
const MAX_DEPTH: usize = 32;

/// Every parameter whose value (given, else its default) breaks one of its constraints, worded as
/// CloudFormation words it (or with the parameter's `ConstraintDescription`).
pub(super) fn refused_parameters(parameters: &Map<String, Value>, given: &BTreeMap<String, String>) -> Vec<String> {
    let mut refused = Vec::new();
    for (name, parameter) in parameters {
        let value = match given.get(name) {
            Some(value) => value.clone(),
            None => match parameter.get("Default") {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Number(number)) => number.to_string(),
                Some(Value::Bool(flag)) => flag.to_string(),
                _ => continue,
            },
        };
        let kind = parameter.get("Type").and_then(Value::as_str).unwrap_or("String");
        let values: Vec<String> = if kind.starts_with("List<") || kind == "CommaDelimitedList" {
            value.split(',').map(|v| v.trim().to_string()).collect()
        } else {
            vec![value.clone()]
        };
        let described = parameter.get("ConstraintDescription").and_then(Value::as_str);
        let mut refuse = |message: String| {
            let shown = described.map_or(message, |d| format!("{d} (Parameter '{name}')"));
            refused.push(format!("Parameters.{name}: `{value}`: {shown} — CloudFormation refuses the stack"));
        };
        for one in &values {
            if kind.contains("Number") && one.parse::<f64>().is_err() {
                refuse(format!("Parameter '{name}' must be a number"));
                continue;
            }
            if let Some(allowed) = parameter.get("AllowedValues").and_then(Value::as_array) {
                let texts: Vec<String> =
                    allowed.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), String::from)).collect();
                if !texts.iter().any(|t| t == one) {
                    refuse(format!("Parameter '{name}' must be one of AllowedValues"));
                }
            }
            if let Some(pattern) = parameter.get("AllowedPattern").and_then(Value::as_str) {
                match regex_lite::Regex::new(&format!("^(?:{pattern})$")) {
                    Ok(regex) if !regex.is_match(one) => {
                        refuse(format!("Parameter '{name}' must match pattern {pattern}"))
                    }
                    Ok(_) => {}
                    Err(_) => refuse(format!(
                        "Parameter '{name}': AllowedPattern {pattern} is not a pattern CloudFormation reads"
                    )),
                }
            }
            let bound = |key: &str| parameter.get(key).and_then(|v| v.as_f64().or_else(|| v.as_str()?.parse().ok()));
            if let (Some(min), Ok(number)) = (bound("MinValue"), one.parse::<f64>()) {
                if number < min {
                    refuse(format!("Parameter '{name}' must be a number not less than {}", plain(min)));
                }
            }
            if let (Some(max), Ok(number)) = (bound("MaxValue"), one.parse::<f64>()) {
                if number > max {
                    refuse(format!("Parameter '{name}' must be a number not greater than {}", plain(max)));
                }
            }
            let length = one.chars().count() as f64;
            if let Some(min) = bound("MinLength").filter(|min| length < *min) {
                refuse(format!("Parameter '{name}' must contain at least {} characters", plain(min)));
            }
            if let Some(max) = bound("MaxLength").filter(|max| length > *max) {
                refuse(format!("Parameter '{name}' must contain at most {} characters", plain(max)));
            }
        }
    }
    refused
}

fn plain(number: f64) -> String {
    if number.fract() == 0.0 {
        format!("{number:.0}")
    } else {
        number.to_string()
    }
}

/// Each condition's truth; `resolve` gives a value with its `Ref`s and functions resolved.
pub(super) fn evaluate(
    conditions: &Map<String, Value>,
    resolve: &mut dyn FnMut(&Value, &str) -> Value,
) -> (BTreeMap<String, bool>, Vec<String>) {
    let mut known = BTreeMap::new();
    let mut errors = Vec::new();
    for name in conditions.keys() {
        let mut visiting = Vec::new();
        if let Err(why) = condition(name, conditions, resolve, &mut known, &mut visiting) {
            errors.push(format!("Conditions.{name}: {why}"));
        }
    }
    (known, errors)
}

fn condition(
    name: &str,
    conditions: &Map<String, Value>,
    resolve: &mut dyn FnMut(&Value, &str) -> Value,
    known: &mut BTreeMap<String, bool>,
    visiting: &mut Vec<String>,
) -> Result<bool, String> {
    if let Some(value) = known.get(name) {
        return Ok(*value);
    }
    if visiting.iter().any(|v| v == name) || visiting.len() > MAX_DEPTH {
        return Err(format!("condition `{name}` depends on itself"));
    }
    let body = conditions.get(name).ok_or_else(|| format!("no condition named `{name}`"))?;
    visiting.push(name.to_string());
    let value = truth(body, conditions, resolve, known, visiting, &format!("Conditions.{name}"))?;
    visiting.pop();
    known.insert(name.to_string(), value);
    Ok(value)
}

fn truth(
    body: &Value,
    conditions: &Map<String, Value>,
    resolve: &mut dyn FnMut(&Value, &str) -> Value,
    known: &mut BTreeMap<String, bool>,
    visiting: &mut Vec<String>,
    at: &str,
) -> Result<bool, String> {
    if visiting.len() > MAX_DEPTH {
        return Err(format!("{at}: nested more than {MAX_DEPTH} levels"));
    }
    let Some((function, argument)) = body.as_object().filter(|m| m.len() == 1).and_then(|m| m.iter().next()) else {
        return match body {
            Value::Bool(flag) => Ok(*flag),
            Value::String(text) if text == "true" || text == "false" => Ok(text == "true"),
            _ => Err(format!("{at}: not a condition function (Fn::Equals, Fn::And, Fn::Or, Fn::Not, Condition)")),
        };
    };
    let list = |argument: &Value| argument.as_array().cloned().unwrap_or_default();
    match function.as_str() {
        "Condition" => {
            let name = argument.as_str().ok_or_else(|| format!("{at}: Condition names a condition"))?;
            condition(name, conditions, resolve, known, visiting)
        }
        "Fn::Equals" => {
            let parts = list(argument);
            if parts.len() != 2 {
                return Err(format!("{at}: Fn::Equals compares two values"));
            }
            let text = |v: Value| v.as_str().map_or_else(|| v.to_string(), String::from);
            let left = text(resolve(&parts[0], at));
            let right = text(resolve(&parts[1], at));
            Ok(left == right)
        }
        "Fn::Not" => {
            let parts = list(argument);
            let inner = parts.first().ok_or_else(|| format!("{at}: Fn::Not takes one condition"))?;
            Ok(!truth(inner, conditions, resolve, known, visiting, at)?)
        }
        "Fn::And" | "Fn::Or" => {
            let parts = list(argument);
            if !(2..=10).contains(&parts.len()) {
                return Err(format!("{at}: {function} takes 2 to 10 conditions"));
            }
            let mut values = Vec::new();
            for part in &parts {
                values.push(truth(part, conditions, resolve, known, visiting, at)?);
            }
            Ok(if function == "Fn::And" { values.iter().all(|v| *v) } else { values.iter().any(|v| *v) })
        }
        other => Err(format!("{at}: `{other}` is not a condition function")),
    }
}

/// CloudFormation leaves out a property whose value is `Ref AWS::NoValue` (resolved to null).
pub(super) fn without_no_values(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(without_no_values);
        }
        Value::Array(items) => {
            items.retain(|v| !v.is_null());
            items.iter_mut().for_each(without_no_values);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn constraints_are_checked_as_cloudformation_checks_them() {
        let parameters = json!({
            "Stage": {"Type": "String", "Default": "dev", "AllowedValues": ["dev", "prod"]},
            "Reads": {"Type": "Number", "Default": "5", "MinValue": 1, "MaxValue": 100},
            "Prefix": {"Type": "String", "Default": "app", "AllowedPattern": "[a-z]+", "MinLength": 2, "MaxLength": 8}
        });
        let parameters = parameters.as_object().expect("object");
        assert!(refused_parameters(parameters, &BTreeMap::new()).is_empty());
        let given: BTreeMap<String, String> = [("Stage", "qa"), ("Reads", "500"), ("Prefix", "App-1")]
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        let refused = refused_parameters(parameters, &given).join("\n");
        assert!(refused.contains("Parameter 'Stage' must be one of AllowedValues"), "{refused}");
        assert!(refused.contains("Parameter 'Reads' must be a number not greater than 100"), "{refused}");
        assert!(refused.contains("Parameter 'Prefix' must match pattern [a-z]+"), "{refused}");
    }

    #[test]
    fn conditions_follow_the_parameters() {
        let conditions = json!({
            "IsProd": {"Fn::Equals": [{"Ref": "Stage"}, "prod"]},
            "IsNotProd": {"Fn::Not": [{"Condition": "IsProd"}]},
            "Both": {"Fn::And": [{"Condition": "IsProd"}, {"Fn::Equals": ["a", "a"]}]},
            "Loop": {"Fn::Not": [{"Condition": "Loop"}]}
        });
        let mut resolve =
            |value: &Value, _: &str| if value == &json!({"Ref": "Stage"}) { json!("prod") } else { value.clone() };
        let (known, errors) = evaluate(conditions.as_object().expect("object"), &mut resolve);
        assert_eq!(known.get("IsProd"), Some(&true));
        assert_eq!(known.get("IsNotProd"), Some(&false));
        assert_eq!(known.get("Both"), Some(&true));
        assert!(errors.iter().any(|e| e.contains("depends on itself")), "{errors:?}");
    }
}
