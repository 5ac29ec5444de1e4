//! TagResource, UntagResource and ListTagsOfResource: tags on a table, found by its ARN. The
//! messages are the real service's as dynoxide recorded them (DynamoDB Local refuses tagging).

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use crate::table::Table;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    pub key: String,
    pub value: String,
}

/// A tag as a request gives it: either part may be missing, which DynamoDB reports in Coral's
/// format before anything else about the tags.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagInput {
    pub key: Option<String>,
    pub value: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagResourceInput {
    pub resource_arn: Option<String>,
    pub tags: Option<Vec<TagInput>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagResourceInput {
    pub resource_arn: Option<String>,
    pub tag_keys: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTagsOfResourceInput {
    pub resource_arn: Option<String>,
}

/// What TagResource and UntagResource answer: an empty body, not `{}` (DynamoDB's answer).
#[derive(Debug)]
pub struct NoBody;

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListTagsOfResourceOutput {
    pub tags: Vec<Tag>,
}

/// The table name an ARN points at: `arn:aws:dynamodb:<region>:<account>:table/<name>`.
fn table_of(arn: Option<&String>) -> Result<&str> {
    let arn = arn.map_or("", String::as_str);
    if arn.is_empty() {
        return Err(DynamoError::validation("Invalid TableArn"));
    }
    let invalid = || DynamoError::validation(format!("Invalid TableArn: Invalid ResourceArn provided as input {arn}"));
    let rest = arn.strip_prefix("arn:aws:dynamodb:").ok_or_else(invalid)?;
    let mut parts = rest.splitn(3, ':');
    let (_region, _account, resource) = (parts.next(), parts.next(), parts.next().ok_or_else(invalid)?);
    let name = resource.strip_prefix("table/").ok_or_else(invalid)?;
    if name.is_empty() || name.contains('/') {
        return Err(invalid());
    }
    Ok(name)
}

/// Tags must have a key and a value (Coral's "must not be null", numbered from 1 as Coral numbers
/// list members), and each must be one DynamoDB takes (`problem`).
pub fn check_tags(tags: &[TagInput]) -> Result<Vec<Tag>> {
    let mut v = crate::validate::Violations::new();
    for (n, tag) in tags.iter().enumerate() {
        v.required(&format!("tags.{}.member.key", n + 1), tag.key.as_ref());
        v.required(&format!("tags.{}.member.value", n + 1), tag.value.as_ref());
    }
    v.finish()?;
    let tags: Vec<Tag> = tags
        .iter()
        .map(|t| Tag { key: t.key.clone().unwrap_or_default(), value: t.value.clone().unwrap_or_default() })
        .collect();
    if let Some(problem) = tags.iter().find_map(|t| problem(&t.key, &t.value)) {
        return Err(DynamoError::validation(problem));
    }
    Ok(tags)
}

/// Why DynamoDB refuses the tag `key` = `value`, in its words; `None` when it takes it. (An
/// importer uses this to leave out, and name, a design file's tags a table could not carry.)
pub fn problem(key: &str, value: &str) -> Option<String> {
    if key.is_empty() || key.chars().count() > 128 {
        return Some("One or more parameter values were invalid: Tag key must be between 1 and 128 characters".into());
    }
    if value.chars().count() > 256 {
        return Some(
            "One or more parameter values were invalid: Tag value must be between 0 and 256 characters".into(),
        );
    }
    // The tagging guide's rules; no capture of their messages exists, so these say the rule in
    // the captured messages' form (docs/fidelity.md).
    for (what, text) in [("key", key), ("value", value)] {
        if !text.chars().all(allowed_in_tag) {
            return Some(format!(
                "One or more parameter values were invalid: Tag {what} may contain only letters, numbers, white space and + - = . _ : / @"
            ));
        }
    }
    if key.get(..4).is_some_and(|prefix| prefix.eq_ignore_ascii_case("aws:")) {
        return Some(
            "One or more parameter values were invalid: Tag keys starting with aws: are reserved for use by AWS".into(),
        );
    }
    None
}

/// The characters AWS allows in tags: letters, numbers and white space of any script, and
/// `+ - = . _ : / @` (DynamoDB's tagging guide lists all but `@`, which every other AWS tag
/// pattern allows: refusing a tag the service takes would be the worse mistake).
fn allowed_in_tag(c: char) -> bool {
    c.is_alphanumeric() || c.is_whitespace() || "+-=._:/@".contains(c)
}

/// A table has at most 50 tags (the tagging guide's limit), counted after the new ones replace
/// those of the same keys.
pub fn check_tag_count(existing: &[Tag], tags: &[Tag]) -> Result<()> {
    let kept = existing.iter().filter(|t| !tags.iter().any(|n| n.key == t.key)).count();
    let mut keys: Vec<&str> = tags.iter().map(|t| t.key.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    if kept + keys.len() > MAX_TAGS {
        return Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: A table can have at most {MAX_TAGS} tags; it would have {}",
            kept + keys.len()
        )));
    }
    Ok(())
}

const MAX_TAGS: usize = 50;

/// Adds or replaces tags by key.
pub fn apply(table: &mut Table, tags: Vec<Tag>) {
    for tag in tags {
        table.tags.retain(|t| t.key != tag.key);
        table.tags.push(tag);
    }
}

pub fn tag_resource(engine: &mut Engine, input: TagResourceInput) -> Result<NoBody> {
    let name = table_of(input.resource_arn.as_ref())?.to_string();
    let tags = input.tags.unwrap_or_default();
    if tags.is_empty() {
        return Err(DynamoError::validation("Atleast one Tag needs to be provided as Input."));
    }
    let tags = check_tags(&tags)?;
    let arn = input.resource_arn.unwrap_or_default();
    let table = engine.tables.get_mut(&name).map(std::sync::Arc::make_mut).ok_or_else(|| {
        DynamoError::new(
            ErrorKind::ResourceNotFound,
            format!("Requested resource not found: ResourcArn: {arn} not found"),
        )
    })?;
    check_tag_count(&table.tags, &tags)?;
    table.changes += 1;
    apply(table, tags);
    Ok(NoBody)
}

pub fn untag_resource(engine: &mut Engine, input: UntagResourceInput) -> Result<NoBody> {
    let name = table_of(input.resource_arn.as_ref())?.to_string();
    let keys = input.tag_keys.unwrap_or_default();
    if keys.is_empty() {
        return Err(DynamoError::validation("Atleast one Tag Key needs to be provided as Input."));
    }
    let table = engine
        .tables
        .get_mut(&name)
        .map(std::sync::Arc::make_mut)
        .ok_or_else(|| DynamoError::new(ErrorKind::ResourceNotFound, "Requested resource not found"))?;
    table.changes += 1;
    table.tags.retain(|t| !keys.contains(&t.key));
    Ok(NoBody)
}

pub fn list_tags_of_resource(engine: &mut Engine, input: &ListTagsOfResourceInput) -> Result<ListTagsOfResourceOutput> {
    let name = table_of(input.resource_arn.as_ref())?;
    let arn = input.resource_arn.as_deref().unwrap_or_default();
    let table = engine.tables.get(name).ok_or_else(|| {
        DynamoError::new(
            ErrorKind::AccessDenied,
            format!("User: arn:aws:iam::{}:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: {arn}", crate::ACCOUNT_ID),
        )
    })?;
    Ok(ListTagsOfResourceOutput { tags: table.tags.clone() })
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn a_tag_without_its_key_or_value_is_refused_in_coral_s_words() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        engine
            .execute_value(
                "CreateTable",
                &json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
                    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}),
            )
            .expect("table");
        let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/things";
        let error = engine
            .execute_value(
                "TagResource",
                &json!({"ResourceArn": arn, "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b"}]}),
            )
            .expect_err("no value");
        assert_eq!(
            error.message,
            "1 validation error detected: Value null at 'tags.2.member.value' failed to satisfy constraint: Member must not be null"
        );
        let tagged =
            engine.execute_value("TagResource", &json!({"ResourceArn": arn, "Tags": [{"Key": "a", "Value": ""}]}));
        assert_eq!(tagged.expect("an empty value is a value"), json!({}), "the empty body reads as an empty object");
    }
}
