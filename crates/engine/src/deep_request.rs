//! Requests nested deeper than JSON readers usually go (serde's 128 levels; a value nested 63
//! DynamoDB levels is about that deep). DynamoDB reads them, and its answers change past that
//! point (the autumn-2026 conformance suite's deepRequests, captured in eu-west-2 and us-east-1,
//! the transaction cases in ten regions):
//! - PutItem, UpdateItem and DeleteItem read such a request in an older form: an unknown
//!   `ReturnValues` or `ConditionalOperator` is refused in that form's words, and a `ReturnValues`
//!   the operation does not take as "ReturnValues can only be ALL_OLD or NONE", each ahead of the
//!   nesting error, which is what is left;
//! - every other operation reads the request whole, and its own checks, in their own order, say
//!   what is wrong (a transaction's actions one at a time: an earlier action's empty attribute
//!   name before a later action's value nested 100 levels).
//!
//! Decided: up to 256 JSON levels are read (a value nested 100 DynamoDB levels, with the request
//! around it, is about 210); deeper is the nesting error at once, so no request can take the
//! reader's stack.

use crate::error::{DynamoError, Result};
use crate::operation::Operation;
use crate::value::NESTED_TOO_DEEP;
use serde_json::Value;

/// Where serde stops reading unless told otherwise: past it, a request is "deep".
pub const SERDE_DEPTH: usize = 128;

/// The deepest request read at all.
const MAX_JSON_DEPTH: usize = 256;

/// How deeply `body`'s arrays and objects nest (brackets inside strings do not count).
pub fn json_depth(body: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for byte in body.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Reads a deep request whole (at most MAX_JSON_DEPTH levels), or refuses it as DynamoDB does;
/// `unreadable` words what the JSON reader refuses.
pub fn read<T: serde::de::DeserializeOwned>(
    operation: Operation,
    body: &str,
    depth: usize,
    unreadable: impl Fn(&serde_json::Error) -> DynamoError,
) -> Result<T> {
    if depth > MAX_JSON_DEPTH {
        return Err(DynamoError::validation(NESTED_TOO_DEEP));
    }
    if matches!(operation, Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem) {
        return Err(older_form(operation, body));
    }
    let mut reader = serde_json::Deserializer::from_str(body);
    reader.disable_recursion_limit();
    let input = T::deserialize(&mut reader).map_err(|e| unreadable(&e))?;
    reader.end().map_err(|e| unreadable(&e))?;
    Ok(input)
}

/// PutItem, UpdateItem or DeleteItem past the point where DynamoDB reads them in the older form.
fn older_form(operation: Operation, body: &str) -> DynamoError {
    let mut reader = serde_json::Deserializer::from_str(body);
    reader.disable_recursion_limit();
    let request: Value = serde::Deserialize::deserialize(&mut reader).unwrap_or_default();
    let member = |name: &str| request.get(name).and_then(Value::as_str);
    let enum_refusal = |value: &str, member: &str, set: &str| {
        DynamoError::validation(format!(
            "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: Member must satisfy enum value set: [{set}]"
        ))
    };
    let return_values = member("ReturnValues");
    if let Some(value) =
        return_values.filter(|v| !["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"].contains(v))
    {
        return enum_refusal(value, "returnValues", "ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW");
    }
    if let Some(value) = member("ConditionalOperator").filter(|v| !["OR", "AND"].contains(v)) {
        return enum_refusal(value, "conditionalOperator", "OR, AND");
    }
    if operation != Operation::UpdateItem && return_values.is_some_and(|v| !["ALL_OLD", "NONE"].contains(&v)) {
        return DynamoError::validation("ReturnValues can only be ALL_OLD or NONE");
    }
    DynamoError::validation(NESTED_TOO_DEEP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(json_depth(r#"{"a": [1, {"b": "]]}}[[{{"}]}"#), 3);
        assert_eq!(json_depth(r#"{"a": "\"{"}"#), 1);
        assert_eq!(json_depth(""), 0);
    }

    fn refusal(operation: Operation, body: &str) -> String {
        match crate::request::Request::parse(operation, body) {
            Ok(_) => "read".into(),
            Err(e) => e.message,
        }
    }

    #[test]
    fn a_request_of_any_depth_is_answered_without_taking_the_stack() {
        // A first action with an empty attribute name, a second whose item nests `levels` deep.
        let nested = |levels: usize| {
            let mut value = r#"{"S": "leaf"}"#.to_string();
            for _ in 0..levels {
                value = format!(r#"{{"M": {{"n": {value}}}}}"#);
            }
            format!(
                r#"{{"TransactItems": [{{"Put": {{"TableName": "deep", "Item": {{"pk": {{"S": "a"}}, "": {{"S": "x"}}}}}}}}, {{"Put": {{"TableName": "deep", "Item": {{"pk": {value}}}}}}}]}}"#
            )
        };
        // Read whole at 100 levels: the first action's problem is found before the second's depth.
        assert_ne!(refusal(Operation::TransactWriteItems, &nested(100)), NESTED_TOO_DEEP);
        assert_eq!(refusal(Operation::TransactWriteItems, &nested(200)), NESTED_TOO_DEEP, "past 256 JSON levels");
        let put = |levels: usize| {
            let mut value = r#"{"S": "leaf"}"#.to_string();
            for _ in 0..levels {
                value = format!(r#"{{"M": {{"n": {value}}}}}"#);
            }
            format!(r#"{{"TableName": "deep", "Item": {{"pk": {value}}}, "ReturnValues": "BOGUS"}}"#)
        };
        assert!(refusal(Operation::PutItem, &put(100)).contains("Value 'BOGUS' at 'returnValues'"), "the older form");
        assert_eq!(refusal(Operation::PutItem, &put(200)), NESTED_TOO_DEEP, "past 256 JSON levels");
        // Hostile depth where no value goes: answered (whatever the answer), the stack intact.
        let unknown = format!("{}1{}", "{\"a\":".repeat(200_000), "}".repeat(200_000));
        for body in [unknown, "[".repeat(1_000_000), format!(r#"{{"TransactItems": {}"#, "[".repeat(1_000_000))] {
            for operation in [Operation::TransactWriteItems, Operation::PutItem, Operation::Scan] {
                assert!(!refusal(operation, &body).is_empty());
            }
        }
    }
}
