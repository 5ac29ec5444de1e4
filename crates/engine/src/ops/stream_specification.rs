//! `StreamSpecification` on CreateTable and UpdateTable. Messages are DynamoDB Local's (the only
//! source measured); an unknown view type gets Coral's enum message, which Local does not check.

use crate::error::{DynamoError, Result};
use crate::stream::{Stream, ViewType};
use crate::table::Table;
use crate::validate::Violations;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct StreamSpecificationInput {
    pub stream_enabled: Option<bool>,
    pub stream_view_type: Option<String>,
}

/// Coral's shape checks.
pub fn check_shape(v: &mut Violations, field: &str, spec: Option<&StreamSpecificationInput>) {
    if let Some(spec) = spec {
        v.required(&format!("{field}.streamEnabled"), spec.stream_enabled.as_ref());
        v.one_of(
            &format!("{field}.streamViewType"),
            spec.stream_view_type.as_ref(),
            &["NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"],
        );
    }
}

/// The view type of a stream to enable, `None` to disable.
pub fn wanted(spec: &StreamSpecificationInput) -> Result<Option<ViewType>> {
    match (spec.stream_enabled.unwrap_or(false), spec.stream_view_type.as_deref()) {
        (true, None | Some("")) => Err(DynamoError::validation(
            "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams.",
        )),
        (true, Some(view)) => Ok(ViewType::parse(view)),
        (false, Some(_)) => Err(DynamoError::validation(
            "Invalid StreamViewType: Stream StreamEnabled was false but a StreamViewType was present.",
        )),
        (false, None) => Ok(None),
    }
}

/// Applies an UpdateTable stream change.
pub fn update(table: &mut Table, spec: &StreamSpecificationInput, now_millis: u64) -> Result<()> {
    let enabled = table.streams.last().is_some_and(|s| s.enabled);
    match (wanted(spec)?, enabled) {
        (Some(_), true) => Err(DynamoError::validation("Table already has an enabled stream")),
        (None, false) => Err(DynamoError::validation("Table has no stream to disable")),
        (Some(view), false) => {
            table.streams.push(Stream::new(&table.definition.name, view, now_millis));
            Ok(())
        }
        (None, true) => {
            if let Some(stream) = table.streams.last_mut() {
                stream.enabled = false;
            }
            Ok(())
        }
    }
}
