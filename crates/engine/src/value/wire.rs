//! DynamoDB JSON (`{"S":"x"}`, `{"N":"1"}`, …) in and out.
//!
//! Values are checked while they are read, as DynamoDB does before anything else looks at them.
//! A check that fails is carried out of serde as a custom error starting with [`VALIDATION_MARK`],
//! which `execute` turns into a `ValidationException` (any other serde error is a `SerializationException`).

use super::{AttributeValue, Item, Number};
use base64::Engine as _;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Prefix of a serde error that is really a DynamoDB validation error.
pub const VALIDATION_MARK: &str = "\u{1}validation:";
/// Prefix of a validation error that the single-item writes (PutItem, UpdateItem, DeleteItem)
/// wrap in Coral's "1 validation error detected: " (dynoxide's capture of the real service).
pub const ENVELOPED_MARK: &str = "\u{1}enveloped:";

/// Between the two wordings of a value refused under [`ENVELOPED_MARK`] when DynamoDB's two value
/// layers word it differently: the current layer's first, then the older one's (see [`worded`]).
const OLDER_LAYER: char = '\u{2}';

/// DynamoDB checks attribute values in one of two layers, and which one an operation runs decides
/// how a malformed number or a duplicate set member is worded (the autumn-2026 conformance suite,
/// four regions, 2026-10-09): the older layer for BatchWriteItem and Scan, the current one for
/// every other operation (transactions included, as eu-west-2 answers them; the other regions
/// answer those in the older layer). `message` is what the reader carried under the mark.
pub fn worded(message: &str, older_layer: bool) -> &str {
    match message.split_once(OLDER_LAYER) {
        Some((_, older)) if older_layer => older,
        Some((current, _)) => current,
        None => message,
    }
}

/// Whether `operation` reads values in DynamoDB's older layer (see [`worded`]).
pub fn older_layer(operation: crate::Operation) -> bool {
    matches!(operation, crate::Operation::BatchWriteItem | crate::Operation::Scan)
}

fn layered<E: de::Error>(current: &str, older: &str) -> E {
    if current == older {
        return enveloped(current);
    }
    E::custom(format_args!("{ENVELOPED_MARK}{current}{OLDER_LAYER}{older}"))
}

fn invalid<E: de::Error>(message: &str) -> E {
    E::custom(format_args!("{VALIDATION_MARK}{message}"))
}

fn enveloped<E: de::Error>(message: &str) -> E {
    E::custom(format_args!("{ENVELOPED_MARK}{message}"))
}

const BASE64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

impl Serialize for AttributeValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            Self::S(s) => map.serialize_entry("S", s)?,
            Self::N(n) => map.serialize_entry("N", &n.to_string())?,
            Self::B(b) => map.serialize_entry("B", &BASE64.encode(b))?,
            Self::Bool(b) => map.serialize_entry("BOOL", b)?,
            Self::Null => map.serialize_entry("NULL", &true)?,
            Self::Ss(set) => map.serialize_entry("SS", set)?,
            Self::Ns(set) => map.serialize_entry("NS", &NumberList(set))?,
            Self::Bs(set) => map.serialize_entry("BS", &BinaryList(set))?,
            Self::L(list) => map.serialize_entry("L", list)?,
            Self::M(item) => map.serialize_entry("M", item)?,
        }
        map.end()
    }
}

struct NumberList<'a>(&'a [Number]);

impl Serialize for NumberList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for n in self.0 {
            seq.serialize_element(&n.to_string())?;
        }
        seq.end()
    }
}

struct BinaryList<'a>(&'a [Vec<u8>]);

impl Serialize for BinaryList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for b in self.0 {
            seq.serialize_element(&BASE64.encode(b))?;
        }
        seq.end()
    }
}

/// An item as a JSON value, for error bodies and tests.
pub fn item_to_json(item: &Item) -> serde_json::Value {
    serde_json::to_value(item).unwrap_or(serde_json::Value::Null)
}

impl<'de> Deserialize<'de> for AttributeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = AttributeValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an AttributeValue object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AttributeValue, A::Error> {
        // The type key and value read; a key sent twice keeps its last value, as DynamoDB's parser does.
        let mut found: Option<(std::borrow::Cow<'de, str>, AttributeValue)> = None;
        let mut extra_type = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let value = match key.as_ref() {
                "S" => map.next_value::<Option<String>>()?.map(AttributeValue::S),
                "N" => match map.next_value::<Option<std::borrow::Cow<'de, str>>>()? {
                    Some(text) => Some(AttributeValue::N(parse_number(&text)?)),
                    None => None,
                },
                "B" => match map.next_value::<Option<std::borrow::Cow<'de, str>>>()? {
                    Some(text) => Some(AttributeValue::B(decode_base64(&text)?)),
                    None => None,
                },
                "BOOL" => map.next_value::<Option<bool>>()?.map(AttributeValue::Bool),
                "NULL" => match map.next_value::<Option<bool>>()? {
                    Some(true) => Some(AttributeValue::Null),
                    Some(false) => {
                        return Err(invalid(
                            "One or more parameter values were invalid: Null attribute value types must have the value of true",
                        ))
                    }
                    None => None,
                },
                "SS" => map.next_value::<Option<Vec<String>>>()?.map(AttributeValue::Ss),
                "NS" => match map.next_value::<Option<Vec<std::borrow::Cow<'de, str>>>>()? {
                    Some(texts) => Some(AttributeValue::Ns(texts.iter().map(|t| parse_number(t)).collect::<Result<_, _>>()?)),
                    None => None,
                },
                "BS" => match map.next_value::<Option<Vec<std::borrow::Cow<'de, str>>>>()? {
                    Some(texts) => Some(AttributeValue::Bs(texts.iter().map(|t| decode_base64(t)).collect::<Result<_, _>>()?)),
                    None => None,
                },
                "L" => map.next_value::<Option<Vec<AttributeValue>>>()?.map(AttributeValue::L),
                "M" => map.next_value::<Option<Item>>()?.map(AttributeValue::M),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    None
                }
            };
            if let Some(value) = value {
                match &found {
                    Some((type_key, _)) if *type_key != key => extra_type = true,
                    _ => found = Some((key, value)),
                }
            }
        }
        if extra_type {
            return Err(invalid(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
            ));
        }
        let (_, value) = found.ok_or_else(|| {
            invalid("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
        })?;
        check_set(&value)?;
        Ok(in_dynamodb_order(value))
    }
}

/// A set's members in the order DynamoDB keeps and returns them, whatever the order sent: strings
/// and binaries bytewise, numbers by value (eu-west-2, 2026-10-09, the autumn-2026 suite's
/// updateItem tests; fact sheet: `NS ["2","1.0","10"]` came back `["1","2","10"]`).
pub(crate) fn in_dynamodb_order(mut value: AttributeValue) -> AttributeValue {
    match &mut value {
        AttributeValue::Ss(set) => set.sort_unstable(),
        AttributeValue::Ns(set) => set.sort_unstable(),
        AttributeValue::Bs(set) => set.sort_unstable(),
        _ => {}
    }
    value
}

fn parse_number<E: de::Error>(text: &str) -> Result<Number, E> {
    Number::parse(text).map_err(|e| layered(&e.message, &older_number_words(text, &e.message)))
}

/// How the older layer words a refused number, which it reads as Java's `BigDecimal` does: an
/// empty one without the colon, and one whose digits and exponent pass 2^31 as a wrapped 32-bit
/// precision-minus-scale, so `1e2147483647` is an underflow there (an overflow in the current one).
fn older_number_words(text: &str, current: &str) -> String {
    if text.is_empty() {
        return "The parameter cannot be converted to a numeric value".into();
    }
    let unsigned = text.trim_start_matches(['-', '+']);
    let (mantissa, exponent) = unsigned.split_once(['e', 'E']).unwrap_or((unsigned, "0"));
    let (Ok(exponent), true) = (exponent.parse::<i32>(), mantissa.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    else {
        return current.into();
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let unscaled = format!("{whole}{fraction}");
    let precision = unscaled.trim_start_matches('0').len().max(1);
    let adjusted =
        i64::try_from(precision).unwrap_or(0) + i64::from(exponent) - i64::try_from(fraction.len()).unwrap_or(0);
    if adjusted > i64::from(i32::MAX) {
        "Number underflow. Attempting to store a number with magnitude smaller than supported range".into()
    } else {
        current.into()
    }
}

fn decode_base64<E: de::Error>(text: &str) -> Result<Vec<u8>, E> {
    BASE64.decode(text).map_err(|_| E::custom("Base64 encoded binary value is not valid"))
}

/// Sets may not be empty or hold one value twice (`1` and `1.0` are the same number).
fn check_set<E: de::Error>(value: &AttributeValue) -> Result<(), E> {
    const INVALID: &str = "One or more parameter values were invalid: ";
    let (kind, len) = match value {
        AttributeValue::Ss(set) => ("string", set.len()),
        AttributeValue::Ns(set) => ("number", set.len()),
        AttributeValue::Bs(set) => ("binary", set.len()),
        _ => return Ok(()),
    };
    if len == 0 {
        // Enveloped by every operation, the type word and the double space as DynamoDB writes them.
        return Err(invalid(&format!("1 validation error detected: {INVALID}An {kind} set  may not be empty")));
    }
    // The current layer quotes the members in its reading order and names no number; the older
    // one lists them as sent, unquoted, and says a number set's repeat bare (the autumn-2026 suite;
    // fact sheet §5 #37, dynalite's suite and dynoxide's captures had the older wording).
    let duplicate = match value {
        AttributeValue::Ss(set) => reading_order(set).map(|members| {
            let quoted: Vec<String> = members.iter().map(|m| serde_json::to_string(m).unwrap_or_default()).collect();
            (
                format!("{INVALID}Input collection [{}] contains duplicates.", quoted.join(", ")),
                format!("{INVALID}Input collection [{}] contains duplicates.", set.join(", ")),
            )
        }),
        AttributeValue::Ns(set) => reading_order(set).map(|_| {
            (
                format!("{INVALID}Input collection contains duplicates."),
                "Input collection contains duplicates".to_string(),
            )
        }),
        AttributeValue::Bs(set) => reading_order(set).map(|members| {
            let quoted: Vec<String> = members.iter().map(|m| format!("\"{}\"", BASE64.encode(m))).collect();
            let as_sent: Vec<String> = set.iter().map(|m| BASE64.encode(m)).collect();
            (
                format!("{INVALID}Input collection [{}]of type BS contains duplicates.", quoted.join(",")),
                format!("{INVALID}Input collection [{}]of type BS contains duplicates.", as_sent.join(", ")),
            )
        }),
        _ => None,
    };
    match duplicate {
        Some((current, older)) => Err(layered(&current, &older)),
        None => Ok(()),
    }
}

/// The order DynamoDB lists a set with a repeat in: the members read before the first repeat,
/// sorted, then the repeat, then the rest as sent. `None` when every member is distinct.
fn reading_order<T: Ord + Clone>(members: &[T]) -> Option<Vec<T>> {
    let mut read = std::collections::BTreeSet::new();
    for (i, member) in members.iter().enumerate() {
        if !read.insert(member) {
            let mut out: Vec<T> = read.into_iter().cloned().collect();
            out.push(member.clone());
            out.extend(members[i + 1..].iter().cloned());
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(json: &str) -> String {
        let e = serde_json::from_str::<AttributeValue>(json).unwrap_err().to_string();
        let e = e.split(" at line").next().unwrap();
        worded(e.trim_start_matches(VALIDATION_MARK).trim_start_matches(ENVELOPED_MARK), false).to_string()
    }

    #[test]
    fn round_trips_every_type() {
        for json in [
            r#"{"S":"x"}"#,
            r#"{"N":"1.5"}"#,
            r#"{"B":"AQID"}"#,
            r#"{"BOOL":false}"#,
            r#"{"NULL":true}"#,
            r#"{"SS":["a","b"]}"#,
            r#"{"NS":["1","2"]}"#,
            r#"{"BS":["AQ=="]}"#,
            r#"{"L":[{"S":"x"},{"N":"2"}]}"#,
            r#"{"M":{"a":{"M":{}}}}"#,
        ] {
            let value: AttributeValue = serde_json::from_str(json).unwrap();
            assert_eq!(serde_json::to_string(&value).unwrap(), json);
        }
    }

    #[test]
    fn normalises_numbers() {
        let value: AttributeValue = serde_json::from_str(r#"{"NS":["01.50","1e3"]}"#).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"NS":["1.5","1000"]}"#);
    }

    #[test]
    fn rejects_malformed_values_with_dynamodb_messages() {
        assert_eq!(
            error(r#"{"S":"a","N":"1"}"#),
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
        );
        let repeated: AttributeValue = serde_json::from_str(r#"{"S":"a","S":"b"}"#).unwrap();
        assert_eq!(repeated, AttributeValue::S("b".into()), "a type sent twice keeps its last value");
        assert_eq!(
            error(r#"{"S":"a","N":"1","S":"b"}"#),
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
        );
        assert_eq!(
            error("{}"),
            "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
        );
        assert_eq!(
            error(r#"{"NULL":false}"#),
            "One or more parameter values were invalid: Null attribute value types must have the value of true"
        );
        assert_eq!(
            error(r#"{"SS":[]}"#),
            "1 validation error detected: One or more parameter values were invalid: An string set  may not be empty"
        );
        assert_eq!(
            error(r#"{"NS":[]}"#),
            "1 validation error detected: One or more parameter values were invalid: An number set  may not be empty"
        );
        assert_eq!(
            error(r#"{"SS":["b","a","b","C"]}"#),
            r#"One or more parameter values were invalid: Input collection ["a", "b", "b", "C"] contains duplicates."#
        );
        assert_eq!(
            error(r#"{"NS":["1","1.0"]}"#),
            "One or more parameter values were invalid: Input collection contains duplicates."
        );
        assert_eq!(
            error(r#"{"BS":["YQ==","YQ=="]}"#),
            r#"One or more parameter values were invalid: Input collection ["YQ==","YQ=="]of type BS contains duplicates."#
        );
        assert_eq!(error(r#"{"N":"abc"}"#), "The parameter cannot be converted to a numeric value: abc");
    }

    /// The older layer's words (BatchWriteItem, Scan) for what the current layer says otherwise.
    fn older(json: &str) -> String {
        let e = serde_json::from_str::<AttributeValue>(json).unwrap_err().to_string();
        let e = e.split(" at line").next().unwrap();
        worded(e.trim_start_matches(ENVELOPED_MARK), true).to_string()
    }

    #[test]
    fn the_older_value_layer_words_numbers_and_repeats_its_own_way() {
        // The autumn-2026 suite's four shapes and three sets, sent to both layers.
        let numbers = [("abc", ": abc", ": abc"), ("", ": ", ""), ("1e126", "", ""), ("1e2147483647", "", "")];
        for (text, current_tail, older_tail) in numbers {
            let json = format!(r#"{{"N":"{text}"}}"#);
            if text.starts_with('1') {
                assert!(error(&json).starts_with("Number overflow."), "{text}: {}", error(&json));
            } else {
                assert_eq!(error(&json), format!("The parameter cannot be converted to a numeric value{current_tail}"));
                assert_eq!(older(&json), format!("The parameter cannot be converted to a numeric value{older_tail}"));
            }
        }
        assert!(older(r#"{"N":"1e126"}"#).starts_with("Number overflow."));
        assert!(older(r#"{"N":"1e2147483647"}"#).starts_with("Number underflow."), "BigDecimal's precision wraps");
        assert!(
            older(r#"{"N":"1e2147483648"}"#).starts_with("Number overflow."),
            "an exponent past an int is not wrapped"
        );
        assert_eq!(
            older(r#"{"SS":["b","a","b"]}"#),
            "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."
        );
        assert_eq!(
            older(r#"{"BS":["/w==","AA==","AA=="]}"#),
            "One or more parameter values were invalid: Input collection [/w==, AA==, AA==]of type BS contains duplicates."
        );
        assert_eq!(older(r#"{"NS":["2","1","2"]}"#), "Input collection contains duplicates");
        assert_eq!(
            error(r#"{"BS":["/w==","AA==","AA=="]}"#),
            r#"One or more parameter values were invalid: Input collection ["AA==","/w==","AA=="]of type BS contains duplicates."#
        );
    }
}
