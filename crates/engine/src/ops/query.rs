//! Query: one partition, a sort-key range, in order or reversed, paged.

use super::index_read::Target;
use super::read_page::{read_page, Candidate, Page, PageSpec};
use super::refuse_legacy;
use crate::capacity::{ConsumedCapacity, Report};
use crate::engine::Engine;
use crate::error::{DynamoError, Result};
use crate::expression::ast::{Condition, DocPath, Operand, Step};
use crate::expression::key_condition::analyse;
use crate::expression::legacy::{self, Kind, Rewritten};
use crate::expression::{ExprKind, ExpressionParams};
use crate::table::index::EntryPlace;
use crate::table::{ItemJson, KeyAttribute, KeySchema, StoredItem, Table};
use crate::validate::{Violations, CONDITIONAL_OPERATOR, RETURN_CONSUMED_CAPACITY, SELECT};
use crate::value::{AttributeValue, Deferred, Item, KeyValue, StartKeyWords};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Bound;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueryInput {
    pub table_name: Option<String>,
    pub index_name: Option<String>,
    pub key_condition_expression: Option<String>,
    pub filter_expression: Option<String>,
    pub projection_expression: Option<String>,
    pub expression_attribute_names: Option<HashMap<String, String>>,
    pub expression_attribute_values: Option<HashMap<String, AttributeValue>>,
    pub select: Option<String>,
    /// An Integer on the wire (32 bits): a larger number is a SerializationException, as on DynamoDB.
    pub limit: Option<i32>,
    pub consistent_read: Option<bool>,
    pub scan_index_forward: Option<bool>,
    /// Its values are judged after the legacy parameters, as DynamoDB judges them (`Deferred`).
    pub exclusive_start_key: Option<Deferred<Item>>,
    pub return_consumed_capacity: Option<String>,
    pub key_conditions: Option<serde_json::Value>,
    pub query_filter: Option<serde_json::Value>,
    pub attributes_to_get: Option<serde_json::Value>,
    pub conditional_operator: Option<String>,
}

/// The response of a Query or Scan. Its body is written by hand (`ReadOutput::body`), not by
/// serde, so that each item's JSON is written from its stored form straight into the body: through
/// a serializer it would be written into a buffer first and copied again (a 1 MB Scan page copied
/// twice).
#[derive(Debug)]
pub struct ReadOutput<'a> {
    pub items: Option<Vec<ItemJson<'a>>>,
    pub count: usize,
    pub scanned_count: usize,
    pub last_evaluated_key: Option<Item>,
    pub consumed_capacity: Option<ConsumedCapacity>,
}

impl ReadOutput<'_> {
    /// The response body: `Items`, `Count`, `ScannedCount`, `LastEvaluatedKey`,
    /// `ConsumedCapacity`, as serde would write them in that order (a test holds the two equal).
    pub fn body(&self) -> Result<String> {
        let room: usize = self.items.iter().flatten().map(ItemJson::room).sum();
        let mut out = String::with_capacity(room + 256);
        out.push('{');
        if let Some(items) = &self.items {
            out.push_str(r#""Items":["#);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                item.write_json(&mut out);
            }
            out.push_str("],");
        }
        // Writing to a String cannot fail.
        let _ = write!(out, r#""Count":{},"ScannedCount":{}"#, self.count, self.scanned_count);
        if let Some(last) = &self.last_evaluated_key {
            out.push_str(r#","LastEvaluatedKey":"#);
            out.push_str(&member_json(last)?);
        }
        if let Some(capacity) = &self.consumed_capacity {
            out.push_str(r#","ConsumedCapacity":"#);
            out.push_str(&member_json(capacity)?);
        }
        out.push('}');
        Ok(out)
    }
}

fn member_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| DynamoError::new(crate::error::ErrorKind::InternalServerError, e.to_string()))
}

/// Where a read's projection came from, for `Select`'s messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectionSource {
    AttributesToGet,
    ProjectionExpression,
}

impl ProjectionSource {
    /// The legacy list when given (it is rewritten to an expression before this is asked), else
    /// the expression.
    pub fn of(attributes_to_get: bool, projection_expression: bool) -> Option<Self> {
        match (attributes_to_get, projection_expression) {
            (true, _) => Some(Self::AttributesToGet),
            (false, true) => Some(Self::ProjectionExpression),
            (false, false) => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::AttributesToGet => "AttributesToGet",
            Self::ProjectionExpression => "ProjectionExpression",
        }
    }
}

/// Checks shared by Query and Scan on `Select` and the projection: any Select but
/// SPECIFIC_ATTRIBUTES refuses a projection, before ALL_PROJECTED_ATTRIBUTES asks for an index
/// (AWS's answers, from a suite verified against it; AttributesToGet is worded as DynamoDB Local
/// words it for ALL_ATTRIBUTES).
pub fn check_select(select: Option<&str>, projection: Option<ProjectionSource>, has_index: bool) -> Result<()> {
    let refused = |wanted: &str, source: ProjectionSource| {
        DynamoError::select_rule(format!("Cannot specify the {} when choosing to get {wanted}", source.name()))
    };
    match (select, projection) {
        (Some("COUNT"), Some(source)) => Err(refused("only the Count", source)),
        (Some(wanted @ ("ALL_ATTRIBUTES" | "ALL_PROJECTED_ATTRIBUTES")), Some(source)) => Err(refused(wanted, source)),
        (Some("SPECIFIC_ATTRIBUTES"), None) => Err(DynamoError::select_rule(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        )),
        (Some("ALL_PROJECTED_ATTRIBUTES"), None) if !has_index => {
            Err(DynamoError::select_rule("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"))
        }
        _ => Ok(()),
    }
}

/// An `ExclusiveStartKey` must be exactly a key of the table. Real DynamoDB's wording: a wrong
/// count, name or type is "The provided starting key is invalid" with nothing after it, on a
/// Query and a Scan alike (the 2026 conformance evidence; docs/fidelity.md); other refusals of
/// a key value keep their reason after it.
pub fn start_key(schema: &KeySchema, start: Option<&Item>) -> Result<Option<(KeyValue, Option<KeyValue>)>> {
    const INVALID: &str = "The provided starting key is invalid";
    let Some(start) = start else { return Ok(None) };
    let expected = 1 + usize::from(schema.range.is_some());
    if start.len() != expected {
        return Err(DynamoError::validation(INVALID));
    }
    schema.key_of_request(start).map(Some).map_err(|e| {
        if !e.message.ends_with("does not match the schema") {
            DynamoError::validation(format!("{INVALID}: {}", e.message))
        } else {
            DynamoError::validation(INVALID)
        }
    })
}

/// A filter may not name a key attribute of what a Query reads.
fn check_filter_keys(filter: &Condition, key_names: &[&str]) -> Result<()> {
    let mut named = Vec::new();
    collect_paths(filter, &mut named);
    match named.iter().find(|name| key_names.contains(&name.as_str())) {
        Some(name) => Err(DynamoError::validation(format!(
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: {name}"
        ))),
        None => Ok(()),
    }
}

fn collect_paths(condition: &Condition, out: &mut Vec<String>) {
    let operand = |o: &Operand, out: &mut Vec<String>| {
        let mut o = o;
        while let Operand::Size(inner) = o {
            o = inner;
        }
        if let Operand::Path(path) = o {
            if let Some(Step::Attr(name)) = path.first() {
                out.push(name.clone());
            }
        }
    };
    match condition {
        Condition::And(a, b) | Condition::Or(a, b) => {
            collect_paths(a, out);
            collect_paths(b, out);
        }
        Condition::Not(a) => collect_paths(a, out),
        Condition::Exists(p) | Condition::NotExists(p) => operand(&Operand::Path(p.clone()), out),
        Condition::Compare(_, a, b)
        | Condition::AttributeType(a, b)
        | Condition::BeginsWith(a, b)
        | Condition::Contains(a, b) => {
            operand(a, out);
            operand(b, out);
        }
        Condition::Between(a, b, c) => {
            for o in [a, b, c] {
                operand(o, out);
            }
        }
        Condition::In(a, list) => {
            operand(a, out);
            for o in list {
                operand(o, out);
            }
        }
    }
}

/// The placeholder-map checks of a request with maps but no `KeyConditionExpression`.
fn check_maps_without_key_condition(input: &QueryInput) -> Result<()> {
    ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        // In the order Local names them: "FilterExpression and KeyConditionExpression are null".
        expressions: vec![
            (ExprKind::Filter, input.filter_expression.as_deref()),
            (ExprKind::KeyCondition, None),
            (ExprKind::Projection, input.projection_expression.as_deref()),
        ],
    }
    .check_maps()
}

/// A Query with every check done that needs no table: what the server does outside its lock.
pub struct Checked {
    input: QueryInput,
    key_condition: Condition,
    filter: Option<Condition>,
    projection: Option<Vec<DocPath>>,
}

impl Checked {
    /// Whether items are filtered after they are read: such a Query may read 1 MB to return none.
    pub(crate) fn has_filter(&self) -> bool {
        self.filter.is_some()
    }
}

pub fn run(engine: &Engine, input: QueryInput) -> Result<ReadOutput<'_>> {
    run_checked(engine, check(input)?)
}

/// The checks, in DynamoDB's order, up to the first that needs the table.
pub fn check(mut input: QueryInput) -> Result<Checked> {
    // A ConditionalOperator outside its enum over two or more QueryFilter conditions is answered
    // bare and alone, before any other member error, with this odd list (eu-west-2 and us-east-1,
    // 2026-10-09).
    let joins_filters = input.query_filter.as_ref().and_then(serde_json::Value::as_object).is_some_and(|f| f.len() > 1);
    if joins_filters && input.conditional_operator.as_deref().is_some_and(|o| !CONDITIONAL_OPERATOR.contains(&o)) {
        return Err(DynamoError::validation(
            "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]",
        ));
    }
    let mut v = Violations::new();
    v.table_name("tableName", input.table_name.as_ref());
    if let Some(index) = &input.index_name {
        v.name_rules("indexName", index, 3);
    }
    v.at_least("limit", input.limit, 1);
    v.one_of("select", input.select.as_ref(), &SELECT);
    v.one_of("returnConsumedCapacity", input.return_consumed_capacity.as_ref(), &RETURN_CONSUMED_CAPACITY);
    v.one_of("conditionalOperator", input.conditional_operator.as_ref(), &CONDITIONAL_OPERATOR);
    legacy::check_operators(&mut v, "queryFilter", input.query_filter.as_ref());
    legacy::check_operators(&mut v, "keyConditions", input.key_conditions.as_ref());
    v.non_empty_list("attributesToGet", input.attributes_to_get.as_ref());
    v.finish()?;
    // `KeyConditions` may stand beside expressions, only not beside `KeyConditionExpression`
    // (DynamoDB Local, measured 2026-12-03: KeyConditions with a FilterExpression or a
    // ProjectionExpression runs; with QueryFilter, AttributesToGet or ConditionalOperator it is
    // refused).
    refuse_legacy(
        &[("KeyConditions", input.key_conditions.is_some())],
        &[("KeyConditionExpression", input.key_condition_expression.is_some())],
    )?;
    refuse_legacy(
        &[
            ("AttributesToGet", input.attributes_to_get.is_some()),
            ("QueryFilter", input.query_filter.is_some()),
            ("ConditionalOperator", input.conditional_operator.is_some()),
        ],
        &[
            ("ProjectionExpression", input.projection_expression.is_some()),
            ("FilterExpression", input.filter_expression.is_some()),
            ("KeyConditionExpression", input.key_condition_expression.is_some()),
            ("ExpressionAttributeNames", input.expression_attribute_names.is_some()),
            ("ExpressionAttributeValues", input.expression_attribute_values.is_some()),
        ],
    )?;
    let own_maps =
        Rewritten::has_maps(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    if own_maps && input.key_condition_expression.is_none() {
        // Maps without an expression are refused before the missing key condition is.
        check_maps_without_key_condition(&input)?;
    }
    // DynamoDB's order (dynalite's suite): the filter's conditions, AttributesToGet, the start
    // key's values, then the key conditions.
    // The request's own placeholders are set aside only when a legacy parameter is rewritten.
    let rewrites = input.query_filter.is_some() || input.attributes_to_get.is_some() || input.key_conditions.is_some();
    let mut legacy = if rewrites {
        Rewritten::reserving(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref())
    } else {
        Rewritten::default()
    };
    if let Some(filter) = input.query_filter.take().filter(|_| !own_maps) {
        input.filter_expression =
            legacy::conditions(&filter, input.conditional_operator.as_deref(), Kind::Filter, &mut legacy)?;
    }
    let projection_source =
        ProjectionSource::of(input.attributes_to_get.is_some(), input.projection_expression.is_some());
    if let Some(attributes) = input.attributes_to_get.take().filter(|_| !own_maps) {
        input.projection_expression = Some(legacy::projection(&attributes, &mut legacy)?);
    }
    input.exclusive_start_key =
        input.exclusive_start_key.take().map(|k| k.checked(StartKeyWords::AllBehindTheSentence)).transpose()?;
    if let Some(conditions) = input.key_conditions.take() {
        input.key_condition_expression = legacy::conditions(&conditions, None, Kind::Key, &mut legacy)?;
    }
    legacy.finish(&mut input.expression_attribute_names, &mut input.expression_attribute_values);
    let Some(key_condition_text) = input.key_condition_expression.as_deref() else {
        return Err(DynamoError::validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
        ));
    };
    check_select(input.select.as_deref(), projection_source, input.index_name.is_some())?;
    let params = ExpressionParams {
        names: input.expression_attribute_names.as_ref(),
        values: input.expression_attribute_values.as_ref(),
        expressions: vec![
            (ExprKind::KeyCondition, Some(key_condition_text)),
            (ExprKind::Filter, input.filter_expression.as_deref()),
            (ExprKind::Projection, input.projection_expression.as_deref()),
        ],
    };
    params.check_maps()?;
    let mut placeholders = params.placeholders();
    let key_condition = placeholders.condition(ExprKind::KeyCondition, key_condition_text)?;
    let filter = match &input.filter_expression {
        Some(text) => Some(placeholders.condition(ExprKind::Filter, text)?),
        None => None,
    };
    let projection = match &input.projection_expression {
        Some(text) => Some(placeholders.projection(text)?),
        None => None,
    };
    placeholders.check_unused()?;
    Ok(Checked { input, key_condition, filter, projection })
}

pub fn run_checked(engine: &Engine, checked: Checked) -> Result<ReadOutput<'_>> {
    let Checked { input, key_condition, filter, projection } = checked;
    let table_name = input.table_name.unwrap_or_default();
    let table = engine.table(&table_name)?;
    let consistent = input.consistent_read.unwrap_or(false);
    let target =
        Target::new(table, input.index_name.as_deref(), input.select.as_deref(), projection.as_deref(), consistent)?;
    let spec = PageSpec {
        limit: input.limit.map(|l| l as usize),
        filter: filter.as_ref(),
        projection: projection.as_deref(),
        count_only: input.select.as_deref() == Some("COUNT"),
        consistent,
        last_key_names: target.last_key_names(),
    };
    let forward = input.scan_index_forward.unwrap_or(true);
    let (page, partition) = match target.index {
        None => query_table(
            table,
            &key_condition,
            filter.as_ref(),
            input.exclusive_start_key.as_ref().and_then(Deferred::value),
            forward,
            &spec,
        )?,
        Some(index) => {
            let definition = &index.definition;
            let keys = analyse(&key_condition, &definition.hash, &definition.range)?;
            if let Some(filter) = &filter {
                let names: Vec<&str> = definition.key_attributes().map(|a| a.name.as_str()).collect();
                check_filter_keys(filter, &names)?;
            }
            let start = target.index_start(input.exclusive_start_key.as_ref().and_then(Deferred::value))?;
            if let Some(start) = &start {
                if start.hash != keys.partition {
                    return Err(DynamoError::validation(OUTSIDE_QUERY));
                }
                if !keys.range_matches(&start.range) {
                    return Err(DynamoError::validation(NOT_IN_RANGE));
                }
            }
            let page = match index.collection(&keys.partition) {
                None => read_page(std::iter::empty(), &spec),
                Some(collection) => {
                    // The key condition as one range of positions, narrowed to after the start
                    // key (which the check above put inside it).
                    let (lower, upper) = keys.position_bounds();
                    let (mut lower, mut upper) = (entry_bound(lower, true), entry_bound(upper, false));
                    if let Some(start) = &start {
                        if forward {
                            lower = start.after();
                        } else {
                            upper = start.after();
                        }
                    }
                    let matching = collection.range(&lower, &upper);
                    let candidate = |entry| target.candidate(entry);
                    if forward {
                        read_page(matching.map(candidate), &spec)
                    } else {
                        read_page(matching.rev().map(candidate), &spec)
                    }
                }
            };
            (page, keys.partition)
        }
    };
    let consumed_capacity = target
        .consumption(&page, &partition, consistent)
        .report(Report::parse(input.return_consumed_capacity.as_deref()), &table_name);
    Ok(ReadOutput {
        items: (!spec.count_only).then_some(page.items),
        count: page.count,
        scanned_count: page.scanned_count,
        last_evaluated_key: page.last_evaluated_key,
        consumed_capacity,
    })
}

/// A start key of another item collection than the query's: the service's words (dynalite's
/// suite, checked against it); DynamoDB Local says `NOT_IN_RANGE` for this too.
const OUTSIDE_QUERY: &str = "The provided starting key is outside query boundaries based on provided conditions";
/// A start key whose sort key the key condition excludes.
const NOT_IN_RANGE: &str = "The provided starting key does not match the range key predicate";

/// A Query on the table itself: one item collection, a sort-key range, in either direction.
fn query_table<'t>(
    table: &'t Table,
    key_condition: &Condition,
    filter: Option<&Condition>,
    exclusive_start_key: Option<&Item>,
    forward: bool,
    spec: &PageSpec<'_>,
) -> Result<(Page<'t>, Vec<KeyValue>)> {
    let schema = &table.definition.key_schema;
    let range: Vec<KeyAttribute> = schema.range.iter().cloned().collect();
    let keys = analyse(key_condition, std::slice::from_ref(&schema.hash), &range)?;
    if let Some(filter) = filter {
        let names = table.key_names();
        check_filter_keys(filter, &names)?;
    }
    let partition =
        keys.partition.first().cloned().ok_or_else(|| DynamoError::validation("Query key condition not supported"))?;
    let sort_condition = keys.sort.first();
    let start = start_key(schema, exclusive_start_key)?;
    let (mut lower, mut upper) = match sort_condition {
        Some(sort) => sort.bounds(),
        None => (Bound::Unbounded, Bound::Unbounded),
    };
    if let Some((start_partition, sort)) = start {
        if start_partition != partition {
            return Err(DynamoError::validation(OUTSIDE_QUERY));
        }
        if !sort_condition.is_none_or(|s| sort.as_ref().is_some_and(|k| s.matches(k))) {
            return Err(DynamoError::validation(NOT_IN_RANGE));
        }
        if forward {
            lower = Bound::Excluded(sort);
        } else {
            upper = Bound::Excluded(sort);
        }
    }
    // On a table without a sort key, a start key excludes the partition's only item.
    let past_only_item = matches!(lower, Bound::Excluded(None)) || matches!(upper, Bound::Excluded(None));
    if past_only_item || range_is_empty(&lower, &upper) {
        return Ok((read_page(std::iter::empty(), spec), vec![partition]));
    }
    let in_range = table.storage.sort_range(&partition, sort_bound(&lower), sort_bound(&upper));
    let candidate = |entry: &'t StoredItem| Candidate { entry, fetched: None };
    // Every sort condition, begins_with included, is an exact range, so each page reads only matches.
    let page =
        if forward { read_page(in_range.map(candidate), spec) } else { read_page(in_range.rev().map(candidate), spec) };
    Ok((page, vec![partition]))
}

fn sort_bound(bound: &Bound<Option<KeyValue>>) -> Bound<&KeyValue> {
    match bound {
        Bound::Included(Some(k)) => Bound::Included(k),
        Bound::Excluded(Some(k)) => Bound::Excluded(k),
        _ => Bound::Unbounded,
    }
}

/// A bound on entry positions (bytes, as `position_bounds` gives them) as a place in an index
/// partition. A bound's bytes are never a proper extension of an entry's RANGE bytes, so an entry
/// is after the bytes exactly when its RANGE bytes are the bytes or after them: an inclusive lower
/// or exclusive upper bound is the place before those RANGE bytes (and so is its opposite kind).
fn entry_bound(bound: Bound<Vec<u8>>, lower: bool) -> Bound<EntryPlace> {
    match (bound, lower) {
        (Bound::Included(bytes) | Bound::Excluded(bytes), true) => Bound::Included(EntryPlace::before(bytes)),
        (Bound::Included(bytes) | Bound::Excluded(bytes), false) => Bound::Excluded(EntryPlace::before(bytes)),
        (Bound::Unbounded, _) => Bound::Unbounded,
    }
}

/// `BTreeMap::range` panics on an inverted or empty-excluded range; such a range reads nothing.
pub(crate) fn range_is_empty<T: Ord>(lower: &Bound<T>, upper: &Bound<T>) -> bool {
    match (lower, upper) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Excluded(b)) | (Bound::Excluded(a), Bound::Included(b)) => {
            a >= b
        }
        _ => false,
    }
}

#[cfg(test)]
mod select_tests {
    use super::{check_select, ProjectionSource};

    /// AWS's answers for Scan (a suite verified against it), the same rules on Query.
    #[test]
    fn select_refuses_a_projection_unless_it_asks_for_specific_attributes() {
        use ProjectionSource::{AttributesToGet, ProjectionExpression};
        let cases = [
            (
                Some("ALL_ATTRIBUTES"),
                Some(ProjectionExpression),
                false,
                Some("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES"),
            ),
            (
                Some("ALL_PROJECTED_ATTRIBUTES"),
                None,
                false,
                Some("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"),
            ),
            (
                Some("COUNT"),
                Some(ProjectionExpression),
                false,
                Some("Cannot specify the ProjectionExpression when choosing to get only the Count"),
            ),
            // Both rules broken: the projection one is reported.
            (
                Some("ALL_PROJECTED_ATTRIBUTES"),
                Some(ProjectionExpression),
                false,
                Some("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES"),
            ),
            (
                Some("ALL_PROJECTED_ATTRIBUTES"),
                Some(AttributesToGet),
                true,
                Some("Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES"),
            ),
            (
                Some("COUNT"),
                Some(AttributesToGet),
                false,
                Some("Cannot specify the AttributesToGet when choosing to get only the Count"),
            ),
            (
                Some("SPECIFIC_ATTRIBUTES"),
                None,
                false,
                Some(
                    "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
                ),
            ),
            (Some("SPECIFIC_ATTRIBUTES"), Some(AttributesToGet), false, None),
            (Some("ALL_PROJECTED_ATTRIBUTES"), None, true, None),
            (None, Some(ProjectionExpression), false, None),
        ];
        for (select, projection, index, expected) in cases {
            let got = check_select(select, projection, index).err().map(|e| e.message);
            assert_eq!(got.as_deref(), expected, "{select:?} {projection:?} index {index}");
        }
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;
    use crate::capacity::{Consumption, Units};
    use crate::table::StoredItem;

    /// What serde wrote for `ReadOutput` before its body was written by hand.
    #[derive(Serialize)]
    #[serde(rename_all = "PascalCase")]
    struct AsSerdeWrites<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        items: Option<&'a Vec<ItemJson<'a>>>,
        count: usize,
        scanned_count: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        last_evaluated_key: Option<&'a Item>,
        #[serde(skip_serializing_if = "Option::is_none")]
        consumed_capacity: Option<&'a ConsumedCapacity>,
    }

    fn serde_body(output: &ReadOutput<'_>) -> String {
        serde_json::to_string(&AsSerdeWrites {
            items: output.items.as_ref(),
            count: output.count,
            scanned_count: output.scanned_count,
            last_evaluated_key: output.last_evaluated_key.as_ref(),
            consumed_capacity: output.consumed_capacity.as_ref(),
        })
        .expect("json")
    }

    #[test]
    fn the_body_is_what_serde_writes_for_every_member_present_or_absent() {
        let item = Item::from([
            ("pk".to_string(), AttributeValue::S("a \"quoted\" key".into())),
            ("n".to_string(), AttributeValue::N(crate::value::Number::parse("-1.50").expect("n"))),
            ("list".to_string(), AttributeValue::L(vec![AttributeValue::Null, AttributeValue::Bool(false)])),
        ]);
        let stored = StoredItem::new(&item, &["pk"]);
        let capacity = Consumption::table_only(Units(3)).report(crate::capacity::Report::Total, "people");
        for (items, last, capacity) in [
            (
                Some(vec![stored.to_json(), ItemJson::Item(item.clone()), stored.clone().into_json()]),
                Some(item.clone()),
                capacity.clone(),
            ),
            (Some(Vec::new()), None, None),
            (None, Some(item.clone()), None),
            (None, None, capacity.clone()),
        ] {
            let output =
                ReadOutput { items, count: 3, scanned_count: 7, last_evaluated_key: last, consumed_capacity: capacity };
            assert_eq!(output.body().expect("body"), serde_body(&output));
        }
    }
}
