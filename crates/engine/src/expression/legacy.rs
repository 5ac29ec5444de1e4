//! The legacy (pre-expression) parameters — `AttributesToGet`, `Expected`, `KeyConditions`,
//! `QueryFilter`, `ScanFilter`, `ConditionalOperator`, `AttributeUpdates` — rewritten as the
//! expressions they stand for, with generated `#l…` names and `:l…` values, so one evaluator serves
//! both. DynamoDB refuses most requests that mix the two kinds; the one mix it takes, a Query's
//! `KeyConditions` beside expressions, gets placeholders the caller's maps do not use.

use crate::error::{DynamoError, Result};
use crate::value::AttributeValue;
use serde_json::Value;
use std::collections::HashMap;

/// The names and values the rewritten expressions of one request refer to.
#[derive(Debug, Default)]
pub struct Rewritten {
    pub names: HashMap<String, String>,
    pub values: HashMap<String, AttributeValue>,
    /// Placeholders the request's own maps use, which generated ones must not.
    reserved: std::collections::HashSet<String>,
}

impl Rewritten {
    /// A rewrite beside a request's own expression maps: its placeholders avoid theirs.
    pub fn reserving(
        names: Option<&HashMap<String, String>>,
        values: Option<&HashMap<String, AttributeValue>>,
    ) -> Self {
        let reserved = names
            .into_iter()
            .flat_map(HashMap::keys)
            .chain(values.into_iter().flat_map(HashMap::keys))
            .cloned()
            .collect();
        Self { reserved, ..Self::default() }
    }

    /// `{sigil}l{n}` for the first `n` from `start` that no map uses.
    fn free(&self, sigil: char, start: usize) -> String {
        (start..).map(|n| format!("{sigil}l{n}")).find(|p| !self.reserved.contains(p)).unwrap_or_default()
    }

    fn name(&mut self, attribute: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, n)| *n == attribute) {
            return placeholder.clone();
        }
        let placeholder = self.free('#', self.names.len());
        self.reserved.insert(placeholder.clone());
        self.names.insert(placeholder.clone(), attribute.to_string());
        placeholder
    }

    fn value(&mut self, value: &Value, attribute: &str) -> Result<String> {
        let parsed = Self::parse_value(value, attribute)?;
        Ok(self.add_value(parsed))
    }

    /// A legacy parameter's value, refused in the words DynamoDB gives for the value itself
    /// (an empty AttributeValue, a NULL that is not true, a bad number), else as not a value.
    fn parse_value(value: &Value, attribute: &str) -> Result<AttributeValue> {
        let parsed: AttributeValue = serde_json::from_value(value.clone()).map_err(|error| {
            let text = error.to_string();
            match text.strip_prefix(crate::value::VALIDATION_MARK) {
                Some(own) => DynamoError::validation(own),
                None => match text.strip_prefix(crate::value::ENVELOPED_MARK) {
                    Some(own) => DynamoError::request_validation(crate::value::worded(own, false)),
                    None => DynamoError::validation(format!(
                        "One or more parameter values were invalid: Invalid value for attribute: {attribute}"
                    )),
                },
            }
        })?;
        // A legacy condition's value is held to the 32 levels too, before the table is looked up
        // (a Scan's ScanFilter, seven of ten regions; the autumn-2026 suite's deep requests).
        if parsed.depth() > crate::value::MAX_DEPTH {
            return Err(DynamoError::validation(crate::value::NESTED_TOO_DEEP));
        }
        Ok(parsed)
    }

    /// A value given its own placeholder.
    fn add_value(&mut self, parsed: AttributeValue) -> String {
        let placeholder = self.free(':', self.values.len());
        self.reserved.insert(placeholder.clone());
        self.values.insert(placeholder.clone(), parsed);
        placeholder
    }

    /// Whether the request brought its own expression maps: then there is nothing to rewrite
    /// into, and the expression checks refuse the maps for having no expression.
    pub fn has_maps<V>(names: Option<&HashMap<String, String>>, values: Option<&HashMap<String, V>>) -> bool {
        names.is_some() || values.is_some()
    }

    /// Moves the generated names and values into a request's expression maps.
    pub fn finish(
        self,
        names: &mut Option<HashMap<String, String>>,
        values: &mut Option<HashMap<String, AttributeValue>>,
    ) {
        if !self.names.is_empty() {
            names.get_or_insert_with(HashMap::new).extend(self.names);
        }
        if !self.values.is_empty() {
            values.get_or_insert_with(HashMap::new).extend(self.values);
        }
    }
}

/// Which legacy map is being rewritten: they allow different operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Expected,
    Filter,
    Key,
}

/// `AttributesToGet` as a `ProjectionExpression`.
pub fn projection(attributes: &Value, into: &mut Rewritten) -> Result<String> {
    let names: Vec<&str> =
        attributes.as_array().map(|l| l.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    if names.is_empty() {
        return Err(DynamoError::validation(
            "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1",
        ));
    }
    // The service names the first name given twice (dynalite's suite, checked against it, and
    // dynoxide's captures); as a projection it would be two overlapping paths instead.
    // A set, not a scan of the names before each: a request may carry a million of them.
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    if let Some(twice) = names.iter().find(|a| !seen.insert(**a)) {
        return Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: Duplicate value in attribute name: {twice}"
        )));
    }
    names.iter().try_for_each(|a| check_name(a))?;
    Ok(names.iter().map(|a| into.name(a)).collect::<Vec<_>>().join(", "))
}

/// A legacy parameter names attributes directly: the same 65,535-byte limit as an item's names,
/// said as for an item (its placeholder is the engine's own and means nothing to the caller).
fn check_name(name: &str) -> Result<()> {
    if name.len() > crate::value::MAX_ATTRIBUTE_NAME_BYTES {
        return Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: Attribute name is too large, must be less than {} bytes",
            crate::value::MAX_ATTRIBUTE_NAME_BYTES + 1
        )));
    }
    Ok(())
}

/// `Expected`, `QueryFilter`, `ScanFilter` or `KeyConditions` as one condition, joined by
/// `ConditionalOperator` (AND unless OR; key conditions are always AND).
pub fn conditions(map: &Value, operator: Option<&str>, kind: Kind, into: &mut Rewritten) -> Result<Option<String>> {
    let Some(entries) = map.as_object() else {
        return Err(DynamoError::validation("One or more parameter values were invalid: the conditions must be a map"));
    };
    let joiner = match (operator, kind) {
        (Some("OR"), Kind::Expected | Kind::Filter) => " OR ",
        (None | Some("AND"), _) | (Some(_), Kind::Key) => " AND ",
        (Some(other), _) => {
            return Err(DynamoError::validation(format!(
                "1 validation error detected: Value '{other}' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]"
            )))
        }
    };
    let mut parts = Vec::new();
    for (attribute, condition) in entries {
        parts.push(one(attribute, condition, kind, into)?);
    }
    if kind == Kind::Key {
        // After each condition's own checks, as DynamoDB orders them (dynalite's suite).
        if !(1..=2).contains(&entries.len()) {
            return Err(DynamoError::validation("Conditions can be of length 1 or 2 only"));
        }
        refuse_unkeyable(entries)?;
    }
    Ok((!parts.is_empty()).then(|| parts.iter().map(|p| format!("({p})")).collect::<Vec<_>>().join(joiner)))
}

/// A `KeyConditions` operator a key cannot take, in the service's words (dynalite's suite): an
/// operator no key can take is "not an indexable operation"; a range operator on the partition
/// key is "Query key condition not supported". The table is not known yet: a lone condition is
/// taken to be on the partition key.
fn refuse_unkeyable(entries: &serde_json::Map<String, Value>) -> Result<()> {
    let operator = |c: &Value| c.get("ComparisonOperator").and_then(Value::as_str).map(str::to_string);
    for condition in entries.values() {
        let Some(op) = operator(condition) else { continue };
        if KEY_OPERATORS.contains(&op.as_str()) || !COMPARISON_OPERATORS.contains(&op.as_str()) {
            continue;
        }
        return Err(DynamoError::validation("Attempted conditional constraint is not an indexable operation"));
    }
    // Every operator is one a key can take: a range operator on the partition key (no EQ beside
    // it) is not.
    let on_partition = |c: &Value| operator(c).is_some_and(|op| op != "EQ");
    if entries.len() == 1 && entries.values().any(on_partition) {
        return Err(DynamoError::validation("Query key condition not supported"));
    }
    Ok(())
}

/// `ComparisonOperator`'s enum in the order Coral's constraint message lists it (dynalite's
/// suite, checked against the service).
const CORAL_OPERATOR_ORDER: [&str; 13] = [
    "IN",
    "NULL",
    "BETWEEN",
    "LT",
    "NOT_CONTAINS",
    "EQ",
    "GT",
    "NOT_NULL",
    "NE",
    "LE",
    "BEGINS_WITH",
    "GE",
    "CONTAINS",
];

/// Coral's shape checks of a legacy conditions map (`ScanFilter`, `QueryFilter`,
/// `KeyConditions`): each member's `ComparisonOperator` present and in the enum, reported with
/// the request's other constraint violations (`member` is the map's place, `scanFilter`).
pub fn check_operators(v: &mut crate::validate::Violations, member: &str, conditions: Option<&Value>) {
    let Some(map) = conditions.and_then(Value::as_object) else { return };
    for (name, condition) in map {
        let at = format!("{member}.{name}.member.comparisonOperator");
        let operator = condition.get("ComparisonOperator").and_then(Value::as_str).map(str::to_string);
        v.required(&at, operator.as_ref());
        v.one_of(&at, operator.as_ref(), &CORAL_OPERATOR_ORDER);
    }
}

/// The `ComparisonOperator`s a key condition can take.
const KEY_OPERATORS: [&str; 7] = ["EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"];

/// `ComparisonOperator`'s values.
const COMPARISON_OPERATORS: [&str; 13] = [
    "EQ",
    "NE",
    "LE",
    "LT",
    "GE",
    "GT",
    "NOT_NULL",
    "NULL",
    "CONTAINS",
    "NOT_CONTAINS",
    "BEGINS_WITH",
    "IN",
    "BETWEEN",
];

fn one(attribute: &str, condition: &Value, kind: Kind, into: &mut Rewritten) -> Result<String> {
    check_name(attribute)?;
    let invalid = |what: String| DynamoError::validation(format!("One or more parameter values were invalid: {what}"));
    let operator = condition.get("ComparisonOperator").and_then(Value::as_str);
    let (list_given, value_given) = (condition.get("AttributeValueList"), condition.get("Value"));
    if kind == Kind::Expected {
        // The service's order of Expected's own rules (dynalite's suite, checked against it;
        // DynamoDB Local and dynoxide word them alike).
        if list_given.is_some() && value_given.is_some() {
            return Err(invalid(format!(
                "Value and AttributeValueList cannot be used together for Attribute: {attribute}"
            )));
        }
        match operator {
            Some(op) => {
                if condition.get("Exists").is_some() {
                    return Err(invalid(format!(
                        "Exists and ComparisonOperator cannot be used together for Attribute: {attribute}"
                    )));
                }
                if !matches!(op, "NULL" | "NOT_NULL") && list_given.is_none() && value_given.is_none() {
                    return Err(invalid(format!(
                        "Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {attribute}"
                    )));
                }
            }
            None if list_given.is_some() => {
                return Err(invalid(format!(
                    "AttributeValueList can only be used with a ComparisonOperator for Attribute: {attribute}"
                )));
            }
            None => {
                let exists = condition.get("Exists").and_then(Value::as_bool);
                return match (exists.unwrap_or(true), value_given) {
                    (true, Some(value)) => Ok(format!("{} = {}", into.name(attribute), into.value(value, attribute)?)),
                    (true, None) => Err(invalid(format!(
                        "Value must be provided when Exists is {} for Attribute: {attribute}",
                        if exists.is_none() { "null" } else { "true" }
                    ))),
                    (false, None) => Ok(format!("attribute_not_exists({})", into.name(attribute))),
                    (false, Some(_)) => {
                        Err(invalid(format!("Value cannot be used when Exists is false for Attribute: {attribute}")))
                    }
                };
            }
        }
    }
    // An Expected condition's `Value` is its one-value list.
    let list: Vec<Value> = match (list_given, value_given) {
        (Some(list), _) => list.as_array().cloned().unwrap_or_default(),
        (None, Some(value)) if kind == Kind::Expected => vec![value.clone()],
        _ => Vec::new(),
    };
    let operator =
        operator.ok_or_else(|| invalid(format!("ComparisonOperator is missing for Attribute: {attribute}")))?;
    let allowed: &[&str] = match kind {
        Kind::Key => &KEY_OPERATORS,
        _ => &COMPARISON_OPERATORS,
    };
    if !COMPARISON_OPERATORS.contains(&operator) {
        // DynamoDB Local's words for a name outside the enum (lower case included).
        return Err(DynamoError::validation("Comparison type does not exist in DynamoDB"));
    }
    if kind != Kind::Key && !allowed.contains(&operator) {
        return Err(invalid(format!("Unsupported operator on KeyCondition: {operator}")));
    }
    // Each value is judged before their number is (dynalite's suite), in its own words.
    let mut parsed = Vec::with_capacity(list.len());
    for value in &list {
        parsed.push(Rewritten::parse_value(value, attribute)?);
    }
    let arguments = match operator {
        "NOT_NULL" | "NULL" => 0..=0,
        "BETWEEN" => 2..=2,
        "IN" => 1..=usize::MAX,
        _ => 1..=1,
    };
    if !arguments.contains(&list.len()) {
        return Err(match kind {
            Kind::Key => DynamoError::validation(
                "The attempted filter operation is not supported for the provided filter argument count",
            ),
            _ => invalid(format!("Invalid number of argument(s) for the {operator} ComparisonOperator")),
        });
    }
    let argument_types: &[&str] = match operator {
        "LE" | "LT" | "GE" | "GT" | "BETWEEN" | "CONTAINS" | "NOT_CONTAINS" | "IN" => &["S", "N", "B"],
        "BEGINS_WITH" => &["S", "B"],
        _ => &[],
    };
    let wrong_type = list
        .iter()
        .filter_map(|v| v.as_object().and_then(|o| o.keys().next()))
        .find(|t| !argument_types.is_empty() && !argument_types.contains(&t.as_str()));
    if let Some(value_type) = wrong_type {
        return Err(invalid(format!(
            "ComparisonOperator {operator} is not valid for {value_type} AttributeValue type"
        )));
    }
    // After each value's type (DynamoDB Local's order; dynalite's suite has both messages).
    let type_of = |v: &Value| v.as_object().and_then(|o| o.keys().next().cloned());
    if let Some(first) = list.first().and_then(type_of) {
        if list.iter().any(|v| type_of(v).as_ref() != Some(&first)) {
            return Err(invalid("AttributeValues inside AttributeValueList must be of same type".into()));
        }
    }
    if operator == "BETWEEN" {
        let bounds: Vec<Option<crate::value::KeyValue>> =
            parsed.iter().map(crate::value::KeyValue::from_attribute).collect();
        if let [Some(low), Some(high)] = bounds.as_slice() {
            if low > high {
                return Err(DynamoError::validation(
                    "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
                ));
            }
        }
    }
    let name = into.name(attribute);
    let values: Vec<String> = parsed.into_iter().map(|value| into.add_value(value)).collect();
    Ok(match operator {
        "EQ" => format!("{name} = {}", values[0]),
        "NE" => format!("{name} <> {}", values[0]),
        "LE" => format!("{name} <= {}", values[0]),
        "LT" => format!("{name} < {}", values[0]),
        "GE" => format!("{name} >= {}", values[0]),
        "GT" => format!("{name} > {}", values[0]),
        "NOT_NULL" => format!("attribute_exists({name})"),
        "NULL" => format!("attribute_not_exists({name})"),
        "CONTAINS" => format!("contains({name}, {})", values[0]),
        // Legacy NOT_CONTAINS needs the attribute to exist (DynamoDB Local, measured).
        "NOT_CONTAINS" => format!("attribute_exists({name}) AND NOT contains({name}, {})", values[0]),
        "BEGINS_WITH" => format!("begins_with({name}, {})", values[0]),
        "IN" => format!("{name} IN ({})", values.join(", ")),
        _ => format!("{name} BETWEEN {} AND {}", values[0], values[1]),
    })
}

/// A PutItem's or DeleteItem's `Expected` (joined by `ConditionalOperator`) as its
/// `ConditionExpression` — unless the request brought its own maps, which the expression checks
/// then refuse for having no expression.
pub(crate) fn rewrite_expected(
    expected: &mut Option<Value>,
    operator: Option<&str>,
    condition: &mut Option<String>,
    names: &mut Option<HashMap<String, String>>,
    values: &mut Option<HashMap<String, AttributeValue>>,
) -> Result<()> {
    if Rewritten::has_maps(names.as_ref(), values.as_ref()) {
        return Ok(());
    }
    if let Some(expected) = expected.take() {
        let mut legacy = Rewritten::default();
        *condition = conditions(&expected, operator, Kind::Expected, &mut legacy)?;
        legacy.finish(names, values);
    }
    Ok(())
}

/// `AttributeUpdates` as an `UpdateExpression`: PUT → SET, DELETE → REMOVE (or DELETE from a set
/// with a Value), ADD → ADD (for numbers and sets) or appending to a list.
pub fn updates(map: &Value, into: &mut Rewritten) -> Result<Option<String>> {
    let Some(entries) = map.as_object() else {
        return Err(DynamoError::validation(
            "One or more parameter values were invalid: AttributeUpdates must be a map",
        ));
    };
    let (mut set, mut remove, mut add, mut delete) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (attribute, update) in entries {
        check_name(attribute)?;
        let action = update.get("Action").and_then(Value::as_str).unwrap_or("PUT");
        let value = update.get("Value");
        // What DELETE and ADD take, by the value's type: DELETE with a value removes from a set;
        // ADD adds to a number, a set or a list. Types are named as the UpdateExpression errors
        // name them (DynamoDB Local, measured 2026-12-06; dynalite's older suite has `S`, `N`).
        let kind = value.and_then(Value::as_object).and_then(|o| o.keys().next()).map(String::as_str);
        match (action, kind) {
            ("DELETE", Some(kind)) if !matches!(kind, "SS" | "NS" | "BS") => {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: DELETE action with value is not supported for the type {}",
                    crate::value::type_word(kind)
                )));
            }
            ("ADD", Some(kind)) if !matches!(kind, "N" | "SS" | "NS" | "BS" | "L") => {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: ADD action is not supported for the type {}",
                    crate::value::type_word(kind)
                )));
            }
            _ => {}
        }
        let name = into.name(attribute);
        match (action, value) {
            ("PUT", Some(v)) => set.push(format!("{name} = {}", into.value(v, attribute)?)),
            ("DELETE", None) => remove.push(name),
            ("DELETE", Some(v)) => delete.push(format!("{name} {}", into.value(v, attribute)?)),
            ("ADD", Some(v)) if v.get("L").is_some() => {
                let appended = into.value(v, attribute)?;
                let empty = into.value(&serde_json::json!({"L": []}), attribute)?;
                set.push(format!("{name} = list_append(if_not_exists({name}, {empty}), {appended})"));
            }
            ("ADD", Some(v)) => add.push(format!("{name} {}", into.value(v, attribute)?)),
            ("PUT" | "ADD", None) => {
                return Err(DynamoError::validation(
                    "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified",
                ))
            }
            (other, _) => {
                return Err(DynamoError::validation(format!(
                    "1 validation error detected: Value '{other}' at 'attributeUpdates.{attribute}.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]"
                )))
            }
        }
    }
    let clauses: Vec<String> = [("SET", set), ("REMOVE", remove), ("ADD", add), ("DELETE", delete)]
        .into_iter()
        .filter(|(_, parts)| !parts.is_empty())
        .map(|(keyword, parts)| format!("{keyword} {}", parts.join(", ")))
        .collect();
    Ok((!clauses.is_empty()).then(|| clauses.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn expected_and_filters_become_conditions() {
        let mut into = Rewritten::default();
        let expected = json!({"a": {"Value": {"S": "x"}}, "b": {"Exists": false}, "c": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "5"}]}});
        let text = conditions(&expected, Some("OR"), Kind::Expected, &mut into).expect("ok").expect("some");
        assert_eq!(text, "(#l0 = :l0) OR (attribute_not_exists(#l1)) OR (#l2 BETWEEN :l1 AND :l2)");
        let mut into = Rewritten::default();
        let error = conditions(
            &json!({"a": {"ComparisonOperator": "EQ", "AttributeValueList": []}}),
            None,
            Kind::Filter,
            &mut into,
        )
        .expect_err("no argument");
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"
        );
        let error = conditions(&json!({"a": {"Exists": true}}), None, Kind::Expected, &mut Rewritten::default())
            .expect_err("no value");
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"
        );
    }

    #[test]
    fn attribute_updates_become_an_update_expression() {
        let mut into = Rewritten::default();
        let updates_map = json!({"a": {"Action": "PUT", "Value": {"S": "x"}}, "b": {"Action": "DELETE"},
            "c": {"Action": "ADD", "Value": {"N": "1"}}, "d": {"Action": "DELETE", "Value": {"SS": ["q"]}}, "e": {"Action": "ADD", "Value": {"L": [{"N": "1"}]}}});
        let text = updates(&updates_map, &mut into).expect("ok").expect("some");
        assert_eq!(
            text,
            "SET #l0 = :l0, #l4 = list_append(if_not_exists(#l4, :l4), :l3) REMOVE #l1 ADD #l2 :l1 DELETE #l3 :l2"
        );
    }
}
