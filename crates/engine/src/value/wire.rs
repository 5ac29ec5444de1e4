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

fn invalid<E: de::Error>(message: &str) -> E {
    E::custom(format_args!("{VALIDATION_MARK}{message}"))
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
        let mut found: Option<AttributeValue> = None;
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
                if found.is_some() {
                    extra_type = true;
                } else {
                    found = Some(value);
                }
            }
        }
        if extra_type {
            return Err(invalid(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
            ));
        }
        let value = found.ok_or_else(|| {
            invalid("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
        })?;
        check_set(&value)?;
        Ok(value)
    }
}

fn parse_number<E: de::Error>(text: &str) -> Result<Number, E> {
    Number::parse(text).map_err(|e| invalid(&e.message))
}

fn decode_base64<E: de::Error>(text: &str) -> Result<Vec<u8>, E> {
    BASE64.decode(text).map_err(|_| E::custom("Base64 encoded binary value is not valid"))
}

/// Sets may not be empty or hold one value twice (`1` and `1.0` are the same number).
fn check_set<E: de::Error>(value: &AttributeValue) -> Result<(), E> {
    let (kind, len, has_duplicates, listing) = match value {
        AttributeValue::Ss(set) => {
            let mut sorted: Vec<&String> = set.iter().collect();
            sorted.sort();
            let dup = sorted.windows(2).any(|w| w[0] == w[1]);
            ("string", set.len(), dup, Some(set.join(", ")))
        }
        AttributeValue::Ns(set) => {
            let mut sorted: Vec<&Number> = set.iter().collect();
            sorted.sort();
            ("number", set.len(), sorted.windows(2).any(|w| w[0] == w[1]), None)
        }
        AttributeValue::Bs(set) => {
            let mut sorted: Vec<&Vec<u8>> = set.iter().collect();
            sorted.sort();
            ("binary", set.len(), sorted.windows(2).any(|w| w[0] == w[1]), None)
        }
        _ => return Ok(()),
    };
    if len == 0 {
        return Err(invalid(&format!("One or more parameter values were invalid: An {kind} set  may not be empty")));
    }
    if has_duplicates {
        return Err(invalid(&match listing {
            Some(list) => format!("One or more parameter values were invalid: Input collection [{list}] contains duplicates."),
            None => "Input collection contains duplicates".to_string(),
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(json: &str) -> String {
        let e = serde_json::from_str::<AttributeValue>(json).unwrap_err().to_string();
        e.split(" at line").next().unwrap().trim_start_matches(VALIDATION_MARK).to_string()
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
        assert_eq!(error("{}"), "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
        assert_eq!(
            error(r#"{"NULL":false}"#),
            "One or more parameter values were invalid: Null attribute value types must have the value of true"
        );
        assert_eq!(error(r#"{"SS":[]}"#), "One or more parameter values were invalid: An string set  may not be empty");
        assert_eq!(error(r#"{"NS":[]}"#), "One or more parameter values were invalid: An number set  may not be empty");
        assert_eq!(
            error(r#"{"SS":["a","a"]}"#),
            "One or more parameter values were invalid: Input collection [a, a] contains duplicates."
        );
        assert_eq!(error(r#"{"NS":["1","1.0"]}"#), "Input collection contains duplicates");
        assert_eq!(error(r#"{"N":"abc"}"#), "A value provided cannot be converted into a number");
    }
}
