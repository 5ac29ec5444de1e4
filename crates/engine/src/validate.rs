//! Coral-style request validation: declarative constraints, one generic checker, and AWS's wording
//! "1 validation error detected: Value '…' at '…' failed to satisfy constraint: …".

use crate::error::{DynamoError, Result};

/// Collects constraint violations in the order checked; `finish` reports them all at once, as Coral does.
#[derive(Default)]
pub struct Violations(Vec<String>);

const NAME_PATTERN: &str = "[a-zA-Z0-9_.-]+";
/// The most bytes of a key attribute's name, or of one projected into an index (the API model).
const MAX_KEY_ATTRIBUTE_NAME: usize = 255;

impl Violations {
    pub fn new() -> Self {
        Self::default()
    }

    fn add(&mut self, shown: &str, field: &str, constraint: &str) {
        self.0.push(format!("Value {shown} at '{field}' failed to satisfy constraint: {constraint}"));
    }

    /// Whether no violation was found so far.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A required member.
    pub fn required<T>(&mut self, field: &str, value: Option<&T>) {
        if value.is_none() {
            self.add("null", field, "Member must not be null");
        }
    }

    /// A list member (`AttributesToGet`) that must not be empty, when given.
    pub fn non_empty_list(&mut self, field: &str, value: Option<&serde_json::Value>) {
        if value.and_then(serde_json::Value::as_array).is_some_and(Vec::is_empty) {
            self.add("'[]'", field, "Member must have length greater than or equal to 1");
        }
    }

    /// A table name: 3–255 characters of `[a-zA-Z0-9_.-]`. An empty one breaks the API model's
    /// own minimum (1: a table name may be an ARN) and only that, one violation (UpdateItem,
    /// eu-west-2 and us-east-1, 2026-10-09, the autumn-2026 suite's validation ordering).
    pub fn table_name(&mut self, field: &str, name: Option<&String>) {
        let Some(name) = name else {
            return self.required::<String>(field, None);
        };
        if name.is_empty() {
            return self.add("''", field, "Member must have length greater than or equal to 1");
        }
        self.name_rules(field, name, 3);
    }

    /// Keeps only the first violation: a check that stops at its first error reports that one.
    #[must_use]
    pub fn first_only(mut self) -> Self {
        self.0.truncate(1);
        self
    }

    /// A name with DynamoDB's character rules and a minimum length.
    pub fn name_rules(&mut self, field: &str, name: &str, min: usize) {
        // Every request names a table: the quoted name is made only for a name that breaks a rule.
        let shown = || format!("'{name}'");
        // The pattern is `[a-zA-Z0-9_.-]+`: an empty name breaks it too, beside the length rule.
        if !matches_name_pattern(name) {
            self.add(&shown(), field, &format!("Member must satisfy regular expression pattern: {NAME_PATTERN}"));
        }
        let length = name.chars().count();
        if length < min {
            self.add(&shown(), field, &format!("Member must have length greater than or equal to {min}"));
        }
        if length > 255 {
            self.add(&shown(), field, "Member must have length less than or equal to 255");
        }
    }

    /// The table names keying a batch's `requestItems`: Coral judges a map's keys together, so a
    /// map with any name breaking a rule is one violation, which lists every rule a name keeps and
    /// shows the whole map as the operation echoes it (`echo`, made only then).
    pub fn table_name_keys<'n>(
        &mut self,
        field: &str,
        names: impl IntoIterator<Item = &'n str>,
        echo: impl FnOnce() -> String,
    ) {
        let breaks = |name: &str| !(3..=255).contains(&name.chars().count()) || !matches_name_pattern(name);
        if names.into_iter().any(breaks) {
            self.add(
                &format!("'{}'", echo()),
                field,
                &format!("Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: {NAME_PATTERN}]"),
            );
        }
    }

    /// A key attribute's name in a schema or an attribute definition: 1 to 255 bytes.
    pub fn key_attribute_name(&mut self, field: &str, name: Option<&String>) {
        if let Some(name) = name {
            self.length(field, &format!("'{name}'"), name.len(), 1, MAX_KEY_ATTRIBUTE_NAME);
        }
    }

    /// A list of attribute names projected into an index: each 1 to 255 bytes.
    pub fn projected_names(&mut self, field: &str, names: Option<&Vec<String>>) {
        let Some(names) = names else { return };
        if names.iter().any(|n| n.is_empty() || n.len() > MAX_KEY_ATTRIBUTE_NAME) {
            self.add(
                &format!("'[{}]'", names.join(", ")),
                field,
                &format!("Member must satisfy constraint: [Member must have length less than or equal to {MAX_KEY_ATTRIBUTE_NAME}, Member must have length greater than or equal to 1]"),
            );
        }
    }

    /// A string from a fixed set.
    pub fn one_of(&mut self, field: &str, value: Option<&String>, allowed: &[&str]) {
        if let Some(v) = value {
            if !allowed.contains(&v.as_str()) {
                self.add(
                    &format!("'{v}'"),
                    field,
                    &format!("Member must satisfy enum value set: [{}]", allowed.join(", ")),
                );
            }
        }
    }

    /// An integer with a lower bound.
    pub fn at_least(&mut self, field: &str, value: Option<impl Into<i64>>, min: i64) {
        if let Some(v) = value.map(Into::into).filter(|v| *v < min) {
            self.add(&format!("'{v}'"), field, &format!("Member must have value greater than or equal to {min}"));
        }
    }

    /// An integer with an upper bound.
    pub fn at_most(&mut self, field: &str, value: Option<impl Into<i64>>, max: i64) {
        if let Some(v) = value.map(Into::into).filter(|v| *v > max) {
            self.add(&format!("'{v}'"), field, &format!("Member must have value less than or equal to {max}"));
        }
    }

    /// A list or string length with bounds.
    pub fn length(&mut self, field: &str, shown: &str, len: usize, min: usize, max: usize) {
        if len < min {
            self.add(shown, field, &format!("Member must have length greater than or equal to {min}"));
        }
        if len > max {
            self.add(shown, field, &format!("Member must have length less than or equal to {max}"));
        }
    }

    /// `Err` with every violation, or `Ok` if there were none.
    pub fn finish(self) -> Result<()> {
        match self.0.len() {
            0 => Ok(()),
            n => {
                let noun = if n == 1 { "error" } else { "errors" };
                Err(DynamoError::validation(format!("{n} validation {noun} detected: {}", self.0.join("; "))))
            }
        }
    }
}

/// `ReturnConsumedCapacity`'s values, in AWS's order.
pub const RETURN_CONSUMED_CAPACITY: [&str; 3] = ["INDEXES", "TOTAL", "NONE"];
/// `ReturnValues`' values, in AWS's order.
pub const RETURN_VALUES: [&str; 5] = ["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"];
/// `ReturnValues`' values as the older, aggregating layer lists them (UpdateItem without a Key,
/// 2026-10-09).
pub const RETURN_VALUES_AGGREGATED: [&str; 5] = ["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"];
/// `ConditionalOperator`'s values.
pub const CONDITIONAL_OPERATOR: [&str; 2] = ["OR", "AND"];
/// `ReturnValuesOnConditionCheckFailure`'s values.
pub const RETURN_VALUES_ON_FAILURE: [&str; 2] = ["ALL_OLD", "NONE"];
/// `ReturnItemCollectionMetrics`' values.
pub const RETURN_ITEM_COLLECTION_METRICS: [&str; 2] = ["SIZE", "NONE"];
/// `Select`'s values, in the order DynamoDB lists them in its enum message (2026 suites).
pub const SELECT: [&str; 4] = ["SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"];

/// Whether `name` matches `NAME_PATTERN`, `[a-zA-Z0-9_.-]+` (an empty name does not).
fn matches_name_pattern(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A map as Java's `Map.toString` prints it in Coral's messages: `{key=value, …}`.
pub fn java_map_echo<'k>(entries: impl Iterator<Item = (&'k str, String)>) -> String {
    let shown: Vec<String> = entries.map(|(key, value)| format!("{key}={value}")).collect();
    format!("{{{}}}", shown.join(", "))
}

/// A request object as Java prints one without its own `toString`:
/// `com.amazonaws.dynamodb.v20120810.WriteRequest@1a2b3c4d`. Java shows an identity hash there; a
/// hash of where the object sits (its table and position) stands in for it, so the text is stable.
pub fn java_object(class: &str, table: &str, position: usize) -> String {
    let hash = table
        .bytes()
        .chain(position.to_le_bytes())
        .fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    format!("com.amazonaws.dynamodb.v20120810.{class}@{hash:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_violations_as_aws_does() {
        let mut v = Violations::new();
        v.table_name("tableName", Some(&"a!".to_string()));
        assert_eq!(
            v.finish().unwrap_err().message,
            "2 validation errors detected: Value 'a!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"
        );
        let mut v = Violations::new();
        v.table_name("tableName", Some(&String::new()));
        assert_eq!(
            v.finish().unwrap_err().message,
            "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
        );
        let mut v = Violations::new();
        v.table_name("tableName", Some(&"a!".to_string()));
        v.at_least("limit", Some(0), 1);
        assert!(v.first_only().finish().unwrap_err().message.starts_with("1 validation error detected: Value 'a!'"));
        let mut v = Violations::new();
        v.required::<String>("tableName", None);
        assert_eq!(
            v.finish().unwrap_err().message,
            "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"
        );
    }
}
