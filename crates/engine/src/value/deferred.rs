//! A request member whose shape is read with the request but whose values are judged later.
//!
//! DynamoDB checks a Scan's or a Query's `ExclusiveStartKey` values after the request's other
//! checks (legacy parameters beside expressions, duplicate names, the filter's conditions):
//! dynalite's suite, checked against the service, sends a bad start key beside each error it
//! tests. So a JSON type error still fails the request as it is read (a `SerializationException`,
//! as Coral's reader fails it), while a value DynamoDB would refuse is kept as its error until
//! the operation asks for it ([`Deferred::checked`]).

use super::{ENVELOPED_MARK, VALIDATION_MARK};
use crate::error::{DynamoError, Result};
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::Deserialize;

/// How an operation words a start key's refused value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartKeyWords {
    /// Query: every reason behind "The provided starting key is invalid: " but a duplicate set member.
    AllBehindTheSentence,
    /// Scan: the number and duplicate reasons bare.
    NumbersBare,
}

#[derive(Debug)]
pub struct Deferred<T> {
    read: std::result::Result<T, Refusal>,
}

/// A value's refusal as the reader made it: its text (either mark: Query and Scan say both bare).
#[derive(Debug, Clone)]
struct Refusal {
    message: String,
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Deferred<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let raw = serde_json::Value::deserialize(deserializer)?;
        match T::deserialize(raw) {
            Ok(value) => Ok(Self { read: Ok(value) }),
            Err(error) => {
                let text = error.to_string();
                let refusal = if let Some(message) = text.strip_prefix(VALIDATION_MARK) {
                    Refusal { message: message.to_string() }
                } else if let Some(message) = text.strip_prefix(ENVELOPED_MARK) {
                    // Both layers' words kept: the operation that judges it picks.
                    Refusal { message: message.to_string() }
                } else {
                    return Err(D::Error::custom(text));
                };
                Ok(Self { read: Err(refusal) })
            }
        }
    }
}

impl<T> Deferred<T> {
    /// A value read without a problem (how callers inside the engine make one).
    pub fn new(value: T) -> Self {
        Self { read: Ok(value) }
    }

    /// The value, or, the first time it is judged, the error DynamoDB gives for it: the start
    /// key's own refusal behind "The provided starting key is invalid: " — on a Scan, except for
    /// the number and duplicate messages, which it says bare (dynalite's suite records both).
    pub fn checked(self, said: StartKeyWords) -> Result<Self> {
        let Refusal { message, .. } = match self.read {
            Ok(value) => return Ok(Self { read: Ok(value) }),
            Err(refusal) => refusal,
        };
        // Query and Scan say the writes' enveloped family bare (`error::envelopes`), so both
        // kinds of refusal read the same here. Scan reads values in the older layer.
        let message = super::worded(&message, said == StartKeyWords::NumbersBare).to_string();
        // A duplicate set member is said bare by both (the autumn-2026 suite, Query's start key).
        let duplicate = message.contains("contains duplicates");
        let bare = duplicate
            || said == StartKeyWords::NumbersBare
                && ["number set", "numeric value", "significant digits", "number with magnitude"]
                    .iter()
                    .any(|m| message.contains(m));
        if bare {
            return Err(DynamoError::validation(message));
        }
        // Behind the start key's own sentence, an empty set's message loses Coral's envelope, as
        // dynalite's suite records the whole text.
        let reason = message.strip_prefix("1 validation error detected: ").unwrap_or(&message);
        Err(DynamoError::validation(format!("The provided starting key is invalid: {reason}")))
    }

    /// The value once [`Deferred::checked`] passed it (`None` for one it would refuse).
    pub fn value(&self) -> Option<&T> {
        self.read.as_ref().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Item;

    fn judged(json: &str) -> std::result::Result<Result<Deferred<Item>>, String> {
        serde_json::from_str::<Deferred<Item>>(json)
            .map(|d| d.checked(StartKeyWords::NumbersBare))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_refused_value_waits_for_its_turn_and_is_said_as_dynamodb_says_it() {
        let empty = judged(r#"{"a": {}}"#).expect("read").expect_err("refused");
        assert_eq!(
            empty.message,
            "The provided starting key is invalid: Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
        );
        let number = judged(r#"{"a": {"N": "b"}}"#).expect("read").expect_err("refused");
        assert_eq!(number.message, "The parameter cannot be converted to a numeric value: b", "numbers are said bare");
        let on_a_query = serde_json::from_str::<Deferred<Item>>(r#"{"a": {"N": "b"}}"#)
            .expect("read")
            .checked(StartKeyWords::AllBehindTheSentence)
            .expect_err("refused");
        assert_eq!(
            on_a_query.message,
            "The provided starting key is invalid: The parameter cannot be converted to a numeric value: b"
        );
        let set = judged(r#"{"a": {"SS": []}}"#).expect("read").expect_err("refused");
        assert_eq!(
            set.message,
            "The provided starting key is invalid: One or more parameter values were invalid: An string set  may not be empty"
        );
        let good = judged(r#"{"a": {"S": "x"}}"#).expect("read").expect("taken");
        assert_eq!(good.value().and_then(|i| i.get("a")), Some(&crate::value::AttributeValue::S("x".into())));
    }

    #[test]
    fn a_json_type_error_fails_the_read_at_once() {
        assert!(judged(r#"{"a": {"S": 1}}"#).is_err(), "a number where a string goes is the reader's error");
    }
}
