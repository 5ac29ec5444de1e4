//! PartiQL, as DynamoDB runs it: each statement becomes the native request it stands for — a
//! SELECT with equality on the partition key a Query (sort-key conditions in the key condition,
//! the rest a filter), any other SELECT a Scan, INSERT a PutItem that must not overwrite, UPDATE an
//! UpdateItem of an existing item, DELETE a DeleteItem — so capacity, errors and semantics are the
//! native operations'. Messages: DynamoDB Local's, the only source measured (fact sheet has none).

mod keyed;
pub mod parameters;
pub mod parse;

use crate::engine::Engine;
use crate::error::{DynamoError, ErrorKind, Result};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use parse::{Call, Expr, Literal, Path, PathStep, Statement};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;

/// A statement made into a native request.
#[derive(Debug)]
pub struct Native {
    pub operation: &'static str,
    pub request: Value,
    /// For INSERT: a failed condition means the key exists.
    pub insert: bool,
    /// The primary key of the one item the statement reads or writes, when it names a whole key
    /// (batches read by it and find duplicates with it).
    pub item_key: Option<Value>,
    /// A SELECT's columns, in order, when one is a nested path: each answer item then holds the
    /// value under the path's last name (`m.x.y` → `y`, `l[0]` → `l[0]`), as DynamoDB Local
    /// answers (its PartiQL is the service's). `None` when every column is a top-level attribute.
    pub columns: Option<Vec<Path>>,
}

struct Builder<'p> {
    names: Map<String, Value>,
    values: Map<String, Value>,
    params: &'p [Value],
}

impl Builder<'_> {
    fn name(&mut self, name: &str) -> String {
        if let Some((placeholder, _)) = self.names.iter().find(|(_, n)| n.as_str() == Some(name)) {
            return placeholder.clone();
        }
        let placeholder = format!("#p{}", self.names.len());
        self.names.insert(placeholder.clone(), Value::String(name.to_string()));
        placeholder
    }

    fn path(&mut self, path: &Path) -> String {
        let mut out = String::new();
        for step in path {
            match step {
                PathStep::Name(n) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&self.name(n));
                }
                PathStep::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }

    fn placeholder(&mut self, value: Value) -> String {
        let placeholder = format!(":p{}", self.values.len());
        self.values.insert(placeholder.clone(), value);
        placeholder
    }

    /// The DynamoDB JSON of a literal or parameter.
    fn value(&self, expr: &Expr) -> Result<Value> {
        self.value_at(expr, "root")
    }

    /// The same, `path` naming where it is inside the value DynamoDB checks (`root`, `root.x`,
    /// `root[1]`): a number out of DynamoDB's range is refused naming it (2026 evidence).
    fn value_at(&self, expr: &Expr, path: &str) -> Result<Value> {
        match expr {
            Expr::Param(i) => Ok(self.params.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Literal(literal) => self.literal(literal, path),
            // A function where a value must be (an INSERT's item): DynamoDB names it as a type.
            Expr::Call(call) => Err(DynamoError::validation(format!(
                "Unsupported data type: {} under key root at {}",
                call.name, call.at
            ))),
            _ => Err(DynamoError::validation("Unsupported operand: only literals and parameters can be values here")),
        }
    }

    /// An INSERT's item: each attribute's value is a `root` of its own.
    fn item(&self, expr: &Expr) -> Result<Value> {
        match expr {
            Expr::Literal(Literal::Map(members)) => {
                let mut map = Map::new();
                for (k, v) in members {
                    map.insert(k.clone(), self.value(v)?);
                }
                Ok(json!({"M": map}))
            }
            other => self.value(other),
        }
    }

    fn literal(&self, literal: &Literal, path: &str) -> Result<Value> {
        Ok(match literal {
            Literal::Text(s) => json!({"S": s}),
            Literal::Number(n) => {
                crate::value::Number::parse(n)
                    .map_err(|e| DynamoError::validation(format!("{} under {path}", e.message)))?;
                json!({"N": n})
            }
            Literal::Bool(b) => json!({"BOOL": b}),
            Literal::Null => json!({"NULL": true}),
            Literal::List(items) => json!({"L": items
                .iter()
                .enumerate()
                .map(|(n, i)| self.value_at(i, &format!("{path}[{n}]")))
                .collect::<Result<Vec<_>>>()?}),
            Literal::Map(members) => {
                let mut map = Map::new();
                for (k, v) in members {
                    map.insert(k.clone(), self.value_at(v, &format!("{path}.{k}"))?);
                }
                json!({"M": map})
            }
            Literal::Set(items) if items.is_empty() => {
                return Err(DynamoError::validation("Empty bags are not supported"))
            }
            Literal::Set(items) => {
                let values = items.iter().map(|i| self.value_at(i, path)).collect::<Result<Vec<_>>>()?;
                let kind = values.first().and_then(|v| v.as_object()?.keys().next().cloned()).unwrap_or_default();
                let members: Vec<Value> = values.iter().filter_map(|v| v.get(&kind).cloned()).collect();
                let written: Vec<&str> = members.iter().filter_map(Value::as_str).collect();
                if written.iter().enumerate().any(|(i, m)| written[..i].contains(m)) {
                    // As the set was written, members bare (measured in 2026).
                    return Err(DynamoError::validation(format!(
                        "One or more parameter values were invalid: Input collection [{}] contains duplicates.",
                        written.join(", ")
                    )));
                }
                match kind.as_str() {
                    "S" | "N" | "B" if members.len() == values.len() => json!({format!("{kind}S"): members}),
                    _ => {
                        return Err(DynamoError::validation(
                            "A set must hold strings, numbers or binaries, all of one type",
                        ))
                    }
                }
            }
        })
    }

    /// An operand in expression syntax.
    fn operand(&mut self, expr: &Expr) -> Result<String> {
        match expr {
            Expr::Path(path) => Ok(self.path(path)),
            Expr::Arith(op, l, r) => Ok(format!("{} {op} {}", self.operand(l)?, self.operand(r)?)),
            Expr::Call(call) if call.name == "size" => match call.args.as_slice() {
                [path] => Ok(format!("size({})", self.operand(path)?)),
                _ => Err(DynamoError::validation("size() takes one path")),
            },
            Expr::Call(call) => {
                Err(DynamoError::validation(format!("Unrecognized function: {} at {}", call.name, call.at)))
            }
            other => {
                let value = self.value(other)?;
                Ok(self.placeholder(value))
            }
        }
    }

    /// A condition in expression syntax.
    fn condition(&mut self, expr: &Expr) -> Result<String> {
        Ok(match expr {
            Expr::And(l, r) => format!("({}) AND ({})", self.condition(l)?, self.condition(r)?),
            Expr::Or(l, r) => format!("({}) OR ({})", self.condition(l)?, self.condition(r)?),
            Expr::Not(inner) => format!("NOT ({})", self.condition(inner)?),
            Expr::Compare(op, l, r) => match (truth(l), truth(r), l.as_ref(), r.as_ref()) {
                // A test compared with a boolean literal is the test or its negation.
                (true, false, _, Expr::Literal(Literal::Bool(b)))
                | (false, true, Expr::Literal(Literal::Bool(b)), _) => {
                    let test = if truth(l) { l } else { r };
                    let holds = match *op {
                        "=" => *b,
                        "<>" => !*b,
                        other => {
                            return Err(DynamoError::validation(format!(
                                "Incorrect operand type for operator or function; operator or function: {other}, operand type: BOOL"
                            )))
                        }
                    };
                    let condition = self.condition(test)?;
                    if holds {
                        condition
                    } else {
                        format!("NOT ({condition})")
                    }
                }
                _ => format!("{} {op} {}", self.operand(l)?, self.operand(r)?),
            },
            Expr::IsType(v, code, negated) => {
                let type_code = self.placeholder(json!({"S": code}));
                let test = format!("attribute_type({}, {type_code})", self.operand(v)?);
                if *negated {
                    format!("NOT ({test})")
                } else {
                    test
                }
            }
            Expr::Between(v, lo, hi) => {
                format!("{} BETWEEN {} AND {}", self.operand(v)?, self.operand(lo)?, self.operand(hi)?)
            }
            Expr::In(v, items) => {
                let items = items.iter().map(|i| self.operand(i)).collect::<Result<Vec<_>>>()?;
                format!("{} IN ({})", self.operand(v)?, items.join(", "))
            }
            Expr::Missing(v, negated) => {
                format!("{}({})", if *negated { "attribute_exists" } else { "attribute_not_exists" }, self.operand(v)?)
            }
            Expr::Call(call) => {
                if !WHERE_FUNCTIONS.contains(&call.name.as_str()) {
                    return Err(DynamoError::validation(format!(
                        "Unrecognized function: {} at {}",
                        call.name, call.at
                    )));
                }
                if call.name.starts_with("attribute_") && call.name.ends_with("exists") && call.args.len() != 1 {
                    return Err(DynamoError::validation(format!(
                        "Incorrect number of operands for operator or function; operator or function: {}, number of operands: {}",
                        call.name,
                        call.args.len()
                    )));
                }
                let args = call.args.iter().map(|a| self.operand(a)).collect::<Result<Vec<_>>>()?;
                format!("{}({})", call.name, args.join(", "))
            }
            _ => return Err(DynamoError::validation("Unsupported condition in the WHERE clause")),
        })
    }
}

/// Whether an expression is a test (true or false of an item) rather than a value.
fn truth(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => {
            matches!(
                call.name.as_str(),
                "attribute_exists" | "attribute_not_exists" | "attribute_type" | "begins_with" | "contains"
            )
        }
        Expr::Missing(..) | Expr::IsType(..) => true,
        _ => false,
    }
}

/// The functions a WHERE clause may call; any other is "Unrecognized" (`exists`, `set_add`).
const WHERE_FUNCTIONS: [&str; 6] =
    ["attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains", "size"];

enum SetFunction {
    Add,
    Delete,
}

/// `SET a = set_add(a, <<…>>)` (or `set_delete`): members added to (removed from) the set `a`
/// holds, an ADD (DELETE) clause of the native update. The first argument must be the path
/// assigned to and the second a set, in DynamoDB's words where they are not (measured in 2026).
fn set_function<'e>(path: &Path, value: &'e Expr) -> Result<Option<(SetFunction, &'e Expr)>> {
    let Expr::Call(Call { name, args, at, args_at }) = value else { return Ok(None) };
    let (function, upper) = match name.as_str() {
        "set_add" => (SetFunction::Add, "SET_ADD"),
        "set_delete" => (SetFunction::Delete, "SET_DELETE"),
        _ => return Ok(None),
    };
    let [first, members] = args.as_slice() else {
        return Err(DynamoError::validation(format!("{upper} must have exactly two arguments at {at}")));
    };
    if !matches!(first, Expr::Path(p) if p == path) {
        return Err(DynamoError::validation(format!(
            "The first argument to {upper} must equal the assignment value at {at}"
        )));
    }
    if !matches!(members, Expr::Param(_) | Expr::Literal(Literal::Set(_))) {
        // The position given is the first argument's.
        let first_at = args_at.first().copied().unwrap_or(*at);
        return Err(DynamoError::validation(format!(
            "The second argument to {upper} must be a value with type SET at {first_at}"
        )));
    }
    Ok(Some((function, members)))
}

/// The top-level AND terms of a WHERE clause.
fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::And(l, r) => {
            let mut terms = conjuncts(l);
            terms.extend(conjuncts(r));
            terms
        }
        other => vec![other],
    }
}

/// `attribute = value` (either way round) on a top-level attribute: its name and the value's expression.
fn equality(term: &Expr) -> Option<(&str, &Expr)> {
    let Expr::Compare("=", left, right) = term else { return None };
    match (left.as_ref(), right.as_ref()) {
        (Expr::Path(p), v @ (Expr::Literal(_) | Expr::Param(_)))
        | (v @ (Expr::Literal(_) | Expr::Param(_)), Expr::Path(p)) => match p.as_slice() {
            [PathStep::Name(n)] => Some((n.as_str(), v)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a term can be a sort-key condition on `attribute`.
fn range_condition(term: &Expr, attribute: &str) -> bool {
    let on = |e: &Expr| matches!(e, Expr::Path(p) if p.as_slice() == [PathStep::Name(attribute.to_string())]);
    match term {
        Expr::Compare(op, l, r) => *op != "<>" && on(l) && !matches!(r.as_ref(), Expr::Path(_)),
        Expr::Between(v, _, _) => on(v),
        Expr::Call(call) => call.name == "begins_with" && call.args.first().is_some_and(on),
        _ => false,
    }
}

fn and_all(parts: &[String]) -> Option<String> {
    (!parts.is_empty()).then(|| parts.iter().map(|p| format!("({p})")).collect::<Vec<_>>().join(" AND "))
}

/// Makes `statement` the native request it stands for.
pub fn native(engine: &Engine, statement: &Statement, params: &[Value], extra: &Map<String, Value>) -> Result<Native> {
    let table_name = statement.table();
    let table = engine.table(table_name).map_err(|_| DynamoError::table_not_found())?;
    let table_key: Vec<String> = table.key_names().into_iter().map(String::from).collect();
    let mut b = Builder { names: Map::new(), values: Map::new(), params };
    let mut request = json!({"TableName": table_name});
    let finish = |b: Builder<'_>, request: &mut Value| {
        if !b.names.is_empty() {
            request["ExpressionAttributeNames"] = Value::Object(b.names);
        }
        if !b.values.is_empty() {
            request["ExpressionAttributeValues"] = Value::Object(b.values);
        }
        for (k, v) in extra {
            request[k] = v.clone();
        }
    };
    let key_of = |b: &Builder<'_>, filter: Option<&Expr>| -> Result<(Value, Vec<Expr>)> {
        let terms: Vec<&Expr> = filter.map(conjuncts).unwrap_or_default();
        let mut key = Map::new();
        let mut rest = Vec::new();
        for term in terms {
            match equality(term) {
                Some((name, value)) if table_key.iter().any(|k| k == name) && !key.contains_key(name) => {
                    key.insert(name.to_string(), b.value(value)?);
                }
                _ => rest.push(term.clone()),
            }
        }
        if key.len() != table_key.len() {
            return Err(DynamoError::validation(
                "Where clause does not contain a mandatory equality on all key attributes",
            ));
        }
        Ok((Value::Object(key), rest))
    };
    match statement {
        Statement::Select { projection, index, filter, descending, .. } => {
            let (hash, range): (Vec<crate::table::KeyAttribute>, Vec<crate::table::KeyAttribute>) = match index {
                Some(index_name) => {
                    // PartiQL names no index here; Query's own message appends it (a 2026 suite
                    // pinned against DynamoDB, docs/fidelity.md).
                    if table.vector_indexes.iter().any(|v| &v.definition.name == index_name) {
                        // A vector index is read by SearchVectors only.
                        return Err(DynamoError::validation("Scan operation not supported on this index type"));
                    }
                    let index = table
                        .index(index_name)
                        .ok_or_else(|| DynamoError::validation("The table does not have the specified index"))?;
                    if index.definition.hash.len() > 1 || index.definition.range.len() > 1 {
                        // DynamoDB's words name tables, but the refusal follows the index (2026 evidence).
                        return Err(DynamoError::validation(
                            "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys.",
                        ));
                    }
                    check_projected(&index.definition, &table_key, projection.as_deref(), filter.as_ref())?;
                    request["IndexName"] = json!(index_name);
                    (index.definition.hash.clone(), index.definition.range.clone())
                }
                None => {
                    let schema = &table.definition.key_schema;
                    (vec![schema.hash.clone()], schema.range.iter().cloned().collect())
                }
            };
            if let (Some(filter), [partition]) = (filter, hash.as_slice()) {
                keyed::check(filter, partition, range.first(), &|e| b.value(e))?;
            }
            let (hash, range): (Vec<String>, Vec<String>) =
                (hash.into_iter().map(|a| a.name).collect(), range.into_iter().map(|a| a.name).collect());
            if let Some(paths) = projection {
                let text = paths.iter().map(|p| b.path(p)).collect::<Vec<_>>().join(", ");
                request["ProjectionExpression"] = json!(text);
            }
            let terms: Vec<&Expr> = filter.as_ref().map(conjuncts).unwrap_or_default();
            let hash_terms: Vec<&Expr> = hash
                .iter()
                .filter_map(|h| terms.iter().copied().find(|t| equality(t).is_some_and(|(n, _)| n == h)))
                .collect();
            let mut item_key = None;
            let hashed = hash_terms.len() == hash.len() && !hash.is_empty();
            let mut key_terms: Vec<&Expr> = hash_terms;
            for r in &range {
                if let Some(term) = terms.iter().copied().find(|t| range_condition(t, r) && !key_terms.contains(t)) {
                    key_terms.push(term);
                } else {
                    break;
                }
            }
            // A condition on a key attribute that is no key condition (`sk <> '1'`, an OR of sort-key
            // ranges) is a filter DynamoDB's PartiQL applies, but a Query's filter may not name a
            // key: such a statement is read as a Scan, which returns the same items.
            let key_filtered = terms
                .iter()
                .filter(|t| !key_terms.contains(t))
                .any(|t| hash.iter().chain(&range).any(|k| keyed::mentions(t, k)));
            if hashed && !key_filtered {
                if index.is_none() && key_terms.len() == table_key.len() {
                    let equalities: Option<Vec<(&str, &Expr)>> = key_terms.iter().map(|t| equality(t)).collect();
                    if let Some(equalities) = equalities {
                        let key = equalities
                            .into_iter()
                            .map(|(n, v)| Ok((n.to_string(), b.value(v)?)))
                            .collect::<Result<Map<_, _>>>()?;
                        item_key = Some(Value::Object(key));
                    }
                }
                let key_text = key_terms.iter().map(|t| b.condition(t)).collect::<Result<Vec<_>>>()?;
                request["KeyConditionExpression"] = json!(key_text.join(" AND "));
                let rest = terms
                    .iter()
                    .filter(|t| !key_terms.contains(t))
                    .map(|t| b.condition(t))
                    .collect::<Result<Vec<_>>>()?;
                if let Some(filter) = and_all(&rest) {
                    request["FilterExpression"] = json!(filter);
                }
                if *descending {
                    request["ScanIndexForward"] = json!(false);
                }
                finish(b, &mut request);
                return Ok(Native {
                    operation: "Query",
                    request,
                    insert: false,
                    item_key,
                    columns: nested_columns(projection.as_ref()),
                });
            }
            if let Some(filter) = filter {
                request["FilterExpression"] = json!(b.condition(filter)?);
            }
            finish(b, &mut request);
            Ok(Native {
                operation: "Scan",
                request,
                insert: false,
                item_key,
                columns: nested_columns(projection.as_ref()),
            })
        }
        Statement::Insert { item, .. } => {
            let item = b.item(item)?;
            let Some(members) = item.get("M").and_then(Value::as_object) else {
                return Err(DynamoError::validation(
                    "Unsupported operand: INSERT takes a map of the item's attributes",
                ));
            };
            if let Some(missing) = table_key.iter().find(|k| !members.contains_key(*k)) {
                return Err(DynamoError::validation(format!(
                    "Key attribute should be present in the item: Key {missing}"
                )));
            }
            let key: Map<String, Value> =
                table_key.iter().filter_map(|k| Some((k.clone(), members.get(k)?.clone()))).collect();
            request["Item"] = Value::Object(members.clone());
            let hash = b.name(&table_key[0]);
            request["ConditionExpression"] = json!(format!("attribute_not_exists({hash})"));
            finish(b, &mut request);
            Ok(Native {
                operation: "PutItem",
                request,
                insert: true,
                item_key: Some(Value::Object(key)),
                columns: None,
            })
        }
        Statement::Update { set, remove, filter, returning, .. } => {
            let (key, rest) = key_of(&b, filter.as_ref())?;
            request["Key"] = key;
            let mut clauses = Vec::new();
            let (mut assigned, mut added, mut deleted) = (Vec::new(), Vec::new(), Vec::new());
            for (path, value) in set {
                match set_function(path, value)? {
                    Some((SetFunction::Add, members)) => {
                        added.push(format!("{} {}", b.path(path), b.operand(members)?));
                    }
                    Some((SetFunction::Delete, members)) => {
                        deleted.push(format!("{} {}", b.path(path), b.operand(members)?));
                    }
                    None => assigned.push(format!("{} = {}", b.path(path), b.operand(value)?)),
                }
            }
            for (clause, parts) in [("SET", assigned), ("ADD", added), ("DELETE", deleted)] {
                if !parts.is_empty() {
                    clauses.push(format!("{clause} {}", parts.join(", ")));
                }
            }
            if !remove.is_empty() {
                clauses.push(format!("REMOVE {}", remove.iter().map(|p| b.path(p)).collect::<Vec<_>>().join(", ")));
            }
            request["UpdateExpression"] = json!(clauses.join(" "));
            let hash = b.name(&table_key[0]);
            let mut condition = vec![format!("attribute_exists({hash})")];
            for term in &rest {
                condition.push(b.condition(term)?);
            }
            request["ConditionExpression"] = json!(and_all(&condition).unwrap_or_default());
            if let Some(returning) = returning {
                request["ReturnValues"] = json!(returning);
            }
            finish(b, &mut request);
            let item_key = request.get("Key").cloned();
            Ok(Native { operation: "UpdateItem", request, insert: false, item_key, columns: None })
        }
        Statement::Delete { filter, returning, .. } => {
            let (key, rest) = key_of(&b, filter.as_ref())?;
            request["Key"] = key;
            let rest = rest.iter().map(|t| b.condition(t)).collect::<Result<Vec<_>>>()?;
            if let Some(condition) = and_all(&rest) {
                request["ConditionExpression"] = json!(condition);
            }
            if let Some(returning) = returning {
                request["ReturnValues"] = json!(returning);
            }
            finish(b, &mut request);
            let item_key = request.get("Key").cloned();
            Ok(Native { operation: "DeleteItem", request, insert: false, item_key, columns: None })
        }
    }
}

/// A SELECT on an index may only read what the index holds: its filter's attributes on any
/// secondary index, its columns on a global one (a local one fetches the rest from the table).
fn check_projected(
    index: &crate::table::IndexDefinition,
    table_key: &[String],
    columns: Option<&[Path]>,
    filter: Option<&Expr>,
) -> Result<()> {
    use crate::table::index::Projection;
    let held = |name: &str| {
        table_key.iter().any(|k| k == name)
            || index.hash.iter().chain(&index.range).any(|a| a.name == name)
            || match &index.projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(names) => names.iter().any(|n| n == name),
            }
    };
    let missing = |names: Vec<&str>| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in names {
            if !held(name) && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
        out
    };
    let mut filter_names = Vec::new();
    if let Some(filter) = filter {
        top_level_names(filter, &mut filter_names);
    }
    let unprojected = missing(filter_names);
    if !unprojected.is_empty() {
        return Err(DynamoError::validation(format!(
            "One or more parameter values were invalid: Secondary index {} does not project one or more filter attributes: [{}]",
            index.name,
            unprojected.join(", ")
        )));
    }
    if index.kind == crate::table::IndexKind::Global {
        let column_names = columns.unwrap_or_default().iter().filter_map(|path| match path.first() {
            Some(PathStep::Name(name)) => Some(name.as_str()),
            _ => None,
        });
        let unprojected = missing(column_names.collect());
        if !unprojected.is_empty() {
            return Err(DynamoError::validation(format!(
                "One or more parameter values were invalid: Global secondary index {} does not project [{}]",
                index.name,
                unprojected.join(", ")
            )));
        }
    }
    Ok(())
}

/// The top-level attribute names an expression reads, in order.
fn top_level_names<'e>(expr: &'e Expr, out: &mut Vec<&'e str>) {
    match expr {
        Expr::Path(path) => {
            if let Some(PathStep::Name(name)) = path.first() {
                out.push(name);
            }
        }
        Expr::Literal(Literal::List(items) | Literal::Set(items)) => items.iter().for_each(|e| top_level_names(e, out)),
        Expr::Literal(Literal::Map(members)) => members.iter().for_each(|(_, e)| top_level_names(e, out)),
        Expr::Literal(_) | Expr::Param(_) => {}
        Expr::Compare(_, a, b) | Expr::Arith(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            top_level_names(a, out);
            top_level_names(b, out);
        }
        Expr::Not(a) | Expr::Missing(a, _) | Expr::IsType(a, ..) => top_level_names(a, out),
        Expr::Between(a, b, c) => [a, b, c].into_iter().for_each(|e| top_level_names(e, out)),
        Expr::In(a, items) => {
            top_level_names(a, out);
            for item in items {
                top_level_names(item, out);
            }
        }
        Expr::Call(call) => call.args.iter().for_each(|e| top_level_names(e, out)),
    }
}

/// Parses `text`, checks the parameter count, and makes the native request.
pub fn prepare(engine: &Engine, text: &str, params: Option<&Vec<Value>>, extra: &Map<String, Value>) -> Result<Native> {
    let (statement, count) = parse::parse(text)?;
    prepare_parsed(engine, &statement, count, params, extra)
}

/// [`prepare`] for a statement already parsed (with `count` parameters).
pub fn prepare_parsed(
    engine: &Engine,
    statement: &Statement,
    count: usize,
    params: Option<&Vec<Value>>,
    extra: &Map<String, Value>,
) -> Result<Native> {
    let params = params.map_or(&[][..], Vec::as_slice);
    if count != params.len() {
        return Err(DynamoError::validation("Number of parameters in request and statement don't match."));
    }
    parameters::check(params)?;
    native(engine, statement, params, extra)
}

/// Whether a SELECT reads exactly one item by its whole key and nothing else: what batches and
/// transactions may read (a further condition in the WHERE is refused there, 2026 evidence).
pub fn names_one_item_only(native: &Native) -> bool {
    native.item_key.is_some() && native.request.get("FilterExpression").is_none()
}

/// Runs a native request; an INSERT over an existing key is DynamoDB's DuplicateItemException.
pub fn run(engine: &mut Engine, native: &Native) -> Result<Value> {
    let mut response = execute(engine, native).map_err(|e| {
        if native.insert && e.kind == ErrorKind::ConditionalCheckFailed {
            DynamoError::new(ErrorKind::DuplicateItem, "Duplicate primary key exists in table")
        } else {
            in_partiql_words(e)
        }
    })?;
    if let (Some(columns), Some(Value::Array(items))) = (&native.columns, response.get_mut("Items")) {
        for item in items {
            *item = as_columns(item, columns);
        }
    }
    Ok(response)
}

/// Runs the native request; an UPDATE is sized as the finished item, not as UpdateItem's statement.
fn execute(engine: &mut Engine, native: &Native) -> Result<Value> {
    if native.operation != "UpdateItem" {
        return engine.execute_value(native.operation, &native.request);
    }
    let mut request =
        crate::request::Request::parse(crate::operation::Operation::UpdateItem, &native.request.to_string())?;
    request.size_update_as_finished_item();
    let body = engine.apply(request).response?;
    if body.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(&body).map_err(|e| DynamoError::new(ErrorKind::InternalServerError, e.to_string()))
}

/// An error of the native request a statement became, as PartiQL says it (pinned against
/// DynamoDB in a 2026 suite): the statement has no FilterExpression or ConditionExpression to
/// name (`Incorrect operand type …` alone), and a strong read of a GSI has its own sentence.
fn in_partiql_words(mut error: DynamoError) -> DynamoError {
    const NATIVE: [&str; 3] =
        ["Invalid FilterExpression: ", "Invalid ConditionExpression: ", "Invalid KeyConditionExpression: "];
    if let Some(rest) = NATIVE.iter().find_map(|prefix| error.message.strip_prefix(prefix)) {
        error.message = rest.to_string();
    }
    if error.message == "Consistent reads are not supported on global secondary indexes" {
        error.message = "Strongly consistent read is not supported on Global Secondary Indexes".into();
    }
    error
}

/// The projection's paths when one of them reaches below a top-level attribute.
fn nested_columns(projection: Option<&Vec<Path>>) -> Option<Vec<Path>> {
    projection.filter(|paths| paths.iter().any(|p| p.len() > 1)).cloned()
}

/// An item projected as DynamoDB nests it, re-keyed by column: each path's value under its name.
fn as_columns(item: &Value, columns: &[Path]) -> Value {
    let mut row = Map::new();
    for path in columns {
        if let Some(value) = value_at(item, path) {
            row.insert(column_name(path), value.clone());
        }
    }
    Value::Object(row)
}

fn value_at<'v>(item: &'v Value, path: &[PathStep]) -> Option<&'v Value> {
    let mut steps = path.iter();
    let Some(PathStep::Name(first)) = steps.next() else { return None };
    let mut value = item.get(first)?;
    for step in steps {
        value = match step {
            PathStep::Name(name) => value.get("M")?.get(name)?,
            PathStep::Index(i) => value.get("L")?.get(usize::try_from(*i).ok()?)?,
        };
    }
    Some(value)
}

/// The last name of a path with the indexes after it: `m.x.y` → `y`, `m.l[0]` → `l[0]`.
fn column_name(path: &[PathStep]) -> String {
    let last_name = path.iter().rposition(|s| matches!(s, PathStep::Name(_))).unwrap_or(0);
    path[last_name..]
        .iter()
        .map(|step| match step {
            PathStep::Name(name) => name.clone(),
            PathStep::Index(i) => format!("[{i}]"),
        })
        .collect()
}

/// A SELECT's NextToken: its LastEvaluatedKey, opaque to the caller.
pub fn next_token(last_key: &Value) -> String {
    STANDARD.encode(last_key.to_string())
}

pub fn start_key(token: &str) -> Result<Value> {
    STANDARD
        .decode(token)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| DynamoError::validation("Invalid NextToken"))
}

#[cfg(test)]
mod tests {
    use crate::{Engine, FixedClock};
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn a_function_with_the_wrong_arguments_is_refused_not_a_crash() {
        let mut engine = Engine::new(Arc::new(FixedClock::at(0)));
        let create = json!({"TableName": "things", "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]});
        engine.execute_value("CreateTable", &create).expect("table");
        engine
            .execute_value(
                "PutItem",
                &json!({"TableName": "things", "Item": {"pk": {"S": "a"}, "l": {"L": [{"N": "1"}, {"N": "2"}]}}}),
            )
            .expect("put");
        let error = engine
            .execute_value("ExecuteStatement", &json!({"Statement": "SELECT * FROM things WHERE size() > 1"}))
            .expect_err("no path");
        assert_eq!(error.message, "size() takes one path");
        let found = engine
            .execute_value("ExecuteStatement", &json!({"Statement": "SELECT pk FROM things WHERE size(l) > 1"}))
            .expect("size");
        assert_eq!(found["Items"], json!([{"pk": {"S": "a"}}]));
    }
}
