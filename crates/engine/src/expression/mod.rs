//! One expression language for all five kinds: lexer → parser → resolve (placeholders, checks)
//! → evaluate / apply. Nothing here fails on data except the update arithmetic DynamoDB also refuses.

pub mod ast;
pub mod eval;
pub mod key_condition;
pub mod legacy;
mod lexer;
mod parser;
pub mod projection;
mod recent;
pub mod reserved;
pub mod resolve;
pub mod update;

pub use ast::{Action, Condition, DocPath};
pub use resolve::{ExprKind, Placeholders};

use crate::error::{DynamoError, Result};
use crate::value::AttributeValue;
use std::collections::HashMap;

const MAX_PLACEHOLDER_BYTES: usize = 255;

/// The most bytes of `ExpressionAttributeNames` and `ExpressionAttributeValues` (names, keys and
/// values) one request, or one action of a transaction, may carry (fact sheet §4).
pub const MAX_SUBSTITUTION_BYTES: usize = 2 * 1024 * 1024;

/// The expression parameters a request carries, for the placeholder-map checks that come before parsing.
pub struct ExpressionParams<'r> {
    pub names: Option<&'r HashMap<String, String>>,
    pub values: Option<&'r HashMap<String, AttributeValue>>,
    /// Each expression parameter the operation accepts, with the text if given, in DynamoDB's order.
    pub expressions: Vec<(ExprKind, Option<&'r str>)>,
}

impl ExpressionParams<'_> {
    /// Names or values need an expression to be used in: DynamoDB checks this with the legacy
    /// parameters, before any value is judged (dynalite's suite; Local agrees).
    pub fn check_maps_have_expressions(&self) -> Result<()> {
        let any_expression = self.expressions.iter().any(|(_, text)| text.is_some());
        if self.names.is_some() && !any_expression {
            return Err(DynamoError::validation(
                "ExpressionAttributeNames can only be specified when using expressions",
            ));
        }
        let value_expressions: Vec<&(ExprKind, Option<&str>)> =
            self.expressions.iter().filter(|(kind, _)| *kind != ExprKind::Projection).collect();
        if self.values.is_some() && value_expressions.iter().all(|(_, text)| text.is_none()) {
            let names: Vec<&str> = value_expressions.iter().map(|(kind, _)| kind.parameter()).collect();
            let verb = if names.len() > 1 { "are" } else { "is" };
            let suffix =
                if names.is_empty() { String::new() } else { format!(": {} {verb} null", names.join(" and ")) };
            return Err(DynamoError::request_validation(format!(
                "ExpressionAttributeValues can only be specified when using expressions{suffix}"
            )));
        }
        Ok(())
    }

    /// DynamoDB's checks of `ExpressionAttributeNames` / `ExpressionAttributeValues` themselves.
    pub fn check_maps(&self) -> Result<()> {
        // First, so a request carrying hundreds of thousands of placeholders costs one pass.
        let names: usize = self.names.map_or(0, |n| n.iter().map(|(k, v)| k.len() + v.len()).sum());
        let values: usize = self.values.map_or(0, |v| v.iter().map(|(k, v)| k.len() + v.size()).sum());
        if names + values > MAX_SUBSTITUTION_BYTES {
            // The limit is documented; its wording is not recorded anywhere we could find (docs/fidelity.md).
            return Err(DynamoError::validation(format!(
                "ExpressionAttributeNames and ExpressionAttributeValues exceed the maximum allowed size of {MAX_SUBSTITUTION_BYTES} bytes; size: {}",
                names + values
            )));
        }
        self.check_maps_have_expressions()?;
        if let Some(names) = self.names {
            if names.is_empty() {
                return Err(DynamoError::validation("ExpressionAttributeNames must not be empty"));
            }
            for (key, value) in sorted(names) {
                check_placeholder_key("ExpressionAttributeNames", key, '#')?;
                if value.is_empty() {
                    return Err(DynamoError::validation(format!(
                        "ExpressionAttributeNames contains invalid value: Empty attribute name for key {key}"
                    )));
                }
                if value.len() > crate::value::MAX_ATTRIBUTE_NAME_BYTES {
                    // DynamoDB Local's words.
                    return Err(DynamoError::validation(format!(
                        "ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than {} bytes for key {key}",
                        crate::value::MAX_ATTRIBUTE_NAME_BYTES + 1
                    )));
                }
            }
        }
        if let Some(values) = self.values {
            if values.is_empty() {
                return Err(DynamoError::request_validation("ExpressionAttributeValues must not be empty"));
            }
            for (key, _) in sorted(values) {
                check_placeholder_key("ExpressionAttributeValues", key, ':')?;
            }
        }
        Ok(())
    }

    /// A resolver over this request's placeholder maps.
    pub fn placeholders(&self) -> Placeholders<'_> {
        Placeholders::new(self.names, self.values)
    }
}

#[allow(clippy::implicit_hasher)]
/// A read's only expression, `ProjectionExpression`, with its names: checked, parsed, and every
/// name used (GetItem, and each table of BatchGetItem and TransactGetItems).
pub fn projection_only(names: Option<&HashMap<String, String>>, text: Option<&str>) -> Result<Option<Vec<DocPath>>> {
    let params = ExpressionParams { names, values: None, expressions: vec![(ExprKind::Projection, text)] };
    params.check_maps()?;
    let mut placeholders = params.placeholders();
    let projection = text.map(|t| placeholders.projection(t)).transpose()?;
    placeholders.check_unused()?;
    Ok(projection)
}

fn sorted<V>(map: &HashMap<String, V>) -> Vec<(&String, &V)> {
    let mut entries: Vec<(&String, &V)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn check_placeholder_key(map: &str, key: &str, sigil: char) -> Result<()> {
    let well_formed =
        key.len() > 1 && key.starts_with(sigil) && key[1..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !well_formed {
        return Err(DynamoError::request_validation(format!(
            "{map} contains invalid key: Syntax error; key: \"{key}\""
        )));
    }
    if key.len() > MAX_PLACEHOLDER_BYTES {
        return Err(DynamoError::request_validation(format!(
            "{map} contains invalid key: The expression attribute map contains a key that is too long; size of key: {}",
            key.len()
        )));
    }
    Ok(())
}
