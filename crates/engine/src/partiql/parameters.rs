//! What DynamoDB checks of a statement's `Parameters` before anything else, in document order
//! (2026 evidence): each value nested at most 32 levels, and each number read as Java's
//! BigDecimal reads a string. A number it cannot read at all (an exponent or a scale beyond 32
//! bits, text that is no number) "cannot be converted", its text echoed; the magnitude is then
//! judged on precision minus scale in 32-bit arithmetic, which wraps (`1e2147483647` underflows).

use crate::error::{DynamoError, Result};
use serde_json::Value;

use crate::value::NESTED_TOO_DEEP;
const UNCONVERTIBLE: &str = "The parameter cannot be converted to a numeric value";

/// The first problem among `params`, in the order they are written.
pub fn check(params: &[Value]) -> Result<()> {
    params.iter().try_for_each(|value| check_value(value, 1))
}

/// `level` is 1 for a parameter itself; a value deeper than 32 levels is refused on the way down,
/// before anything inside it is looked at.
fn check_value(value: &Value, level: usize) -> Result<()> {
    if level > 32 {
        return Err(DynamoError::validation(NESTED_TOO_DEEP));
    }
    let Some((kind, inner)) = value.as_object().and_then(|typed| typed.iter().next()) else { return Ok(()) };
    match (kind.as_str(), inner) {
        ("N", Value::String(text)) => number(text),
        ("NS", Value::Array(members)) => members.iter().filter_map(Value::as_str).try_for_each(number),
        ("L", Value::Array(items)) => items.iter().try_for_each(|item| check_value(item, level + 1)),
        ("M", Value::Object(members)) => members.values().try_for_each(|member| check_value(member, level + 1)),
        _ => Ok(()),
    }
}

fn number(text: &str) -> Result<()> {
    if text.is_empty() {
        return Err(DynamoError::validation(UNCONVERTIBLE));
    }
    let unconvertible = || DynamoError::validation(format!("{UNCONVERTIBLE}: {text}"));
    let (precision, scale) = big_decimal(text).ok_or_else(unconvertible)?;
    if let Some(precision) = precision {
        let magnitude = precision.wrapping_sub(scale);
        if magnitude > 126 {
            return Err(DynamoError::validation(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
            ));
        }
        if magnitude < -129 {
            return Err(DynamoError::validation(
                "Number underflow. Attempting to store a number with magnitude smaller than supported range",
            ));
        }
    }
    crate::value::Number::parse(text).map(|_| ())
}

/// The precision (`None` for zero) and scale of `text` read as BigDecimal, or `None` when it is
/// not a number BigDecimal can hold.
fn big_decimal(text: &str) -> Option<(Option<i32>, i32)> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !digits_only(whole) || !digits_only(fraction) {
        return None;
    }
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => {
            let magnitude = e.strip_prefix(['-', '+']).unwrap_or(e);
            if magnitude.is_empty() || !digits_only(magnitude) {
                return None;
            }
            // Too long for 64 bits is far beyond 32.
            e.parse().ok()?
        }
    };
    let exponent = i32::try_from(exponent).ok()?;
    let scale = i32::try_from(fraction.len() as i64 - i64::from(exponent)).ok()?;
    let significant = format!("{whole}{fraction}");
    let significant = significant.trim_start_matches('0');
    let precision = (!significant.is_empty()).then(|| i32::try_from(significant.len()).unwrap_or(i32::MAX));
    Some((precision, scale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn said(params: &Value) -> String {
        check(params.as_array().expect("a list")).err().map(|e| e.message).unwrap_or_default()
    }

    #[test]
    fn numbers_are_read_as_big_decimal_reads_them() {
        for unreadable in ["1e99999999999", "-1e99999999999", "1e2147483648", "1e-2147483648", "abc", "1.5e-2147483647"]
        {
            assert_eq!(said(&json!([{"N": unreadable}])), format!("{UNCONVERTIBLE}: {unreadable}"));
        }
        assert_eq!(said(&json!([{"N": ""}])), UNCONVERTIBLE);
        assert!(said(&json!([{"N": "1e2147483647"}])).starts_with("Number underflow."), "the magnitude wraps");
        assert!(said(&json!([{"N": "1e126"}])).starts_with("Number overflow."));
        assert!(said(&json!([{"N": "1e-131"}])).starts_with("Number underflow."));
        for fine in ["0", "1e125", "9.9999e125", "1e-130", "-12.5", "+3"] {
            assert_eq!(said(&json!([{"N": fine}])), "", "{fine}");
        }
    }

    #[test]
    fn the_first_problem_in_document_order_is_reported() {
        let mut deep = json!({"N": "abc"});
        for _ in 0..40 {
            deep = json!({"M": {"n": deep}});
        }
        assert_eq!(said(&json!([deep.clone(), {"N": "abc"}])), NESTED_TOO_DEEP);
        assert_eq!(said(&json!([{"N": "abc"}, deep])), format!("{UNCONVERTIBLE}: abc"));
        assert_eq!(said(&json!([{"NS": ["1", "x"]}])), format!("{UNCONVERTIBLE}: x"));
        let mut fits = json!({"S": "leaf"});
        for _ in 0..31 {
            fits = json!({"L": [fits]});
        }
        assert_eq!(said(&json!([fits])), "", "a leaf at level 32 is accepted");
    }
}
