//! Tables: create one from a form (keys, billing, GSIs with multi-attribute keys, LSIs, vector
//! indexes) or from
//! pasted CreateTable JSON, see each described, delete them. DynamoDB's own error is shown next to
//! the part of the form it is about.

use crate::state::{self, Ui};
use leptos::prelude::*;
use serde_json::{json, Value};

/// Which part of the form an error concerns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    Name,
    Keys,
    Billing,
    Gsi,
    Lsi,
    Vector,
    General,
}

/// Reads DynamoDB's message for what it names.
fn field_of(message: &str) -> Field {
    let lower = message.to_ascii_lowercase();
    if lower.contains("vector") || lower.contains("searchschema") || lower.contains("dimensions") {
        Field::Vector
    } else if lower.contains("globalsecondaryindex") || lower.contains("global secondary") {
        Field::Gsi
    } else if lower.contains("localsecondaryindex") || lower.contains("local secondary") {
        Field::Lsi
    } else if lower.contains("tablename") || lower.contains("table name") || lower.contains("table already exists") {
        Field::Name
    } else if lower.contains("provisionedthroughput") || lower.contains("billingmode") || lower.contains("capacity") {
        Field::Billing
    } else if lower.contains("key") || lower.contains("attributedefinitions") || lower.contains("attribute") {
        Field::Keys
    } else {
        Field::General
    }
}

#[derive(Clone, Copy)]
struct IndexForm {
    name: RwSignal<String>,
    /// `name:TYPE` pairs, comma-separated; up to 4 for a GSI's multi-attribute key.
    hash: RwSignal<String>,
    range: RwSignal<String>,
    projection: RwSignal<String>,
    non_key: RwSignal<String>,
}

impl IndexForm {
    fn new(name: &str, hash: &str, range: &str) -> Self {
        Self {
            name: RwSignal::new(name.into()),
            hash: RwSignal::new(hash.into()),
            range: RwSignal::new(range.into()),
            projection: RwSignal::new("ALL".into()),
            non_key: RwSignal::new(String::new()),
        }
    }
}

/// A vector index as the form edits it: the list attribute it reads, its dimensions and distance,
/// and its search schema (a HASH filter every search must name, and inline filters).
#[derive(Clone, Copy)]
struct VectorIndexForm {
    name: RwSignal<String>,
    attribute: RwSignal<String>,
    dimensions: RwSignal<String>,
    distance: RwSignal<String>,
    /// `name:TYPE`, or empty for none.
    hash_filter: RwSignal<String>,
    /// `name:TYPE` pairs, comma-separated.
    inline_filters: RwSignal<String>,
    projection: RwSignal<String>,
}

impl VectorIndexForm {
    fn new(name: &str) -> Self {
        Self {
            name: RwSignal::new(name.into()),
            attribute: RwSignal::new("embedding".into()),
            dimensions: RwSignal::new("3".into()),
            distance: RwSignal::new("COSINE".into()),
            hash_filter: RwSignal::new(String::new()),
            inline_filters: RwSignal::new(String::new()),
            projection: RwSignal::new("ALL".into()),
        }
    }

    /// Its `VectorIndexes` member; the filters' attributes are defined through `define`.
    fn request(&self, define: &mut dyn FnMut(&str, &str)) -> Value {
        let mut schema = Vec::new();
        for (filters, role) in [(self.hash_filter.get(), "HASH"), (self.inline_filters.get(), "INLINE_FILTER")] {
            for (name, kind) in attributes(&filters) {
                define(&name, &kind);
                schema.push(json!({"AttributeName": name, "SearchSchemaElementType": role}));
            }
        }
        let dimensions = self.dimensions.get();
        let mut index = json!({
            "IndexName": self.name.get(),
            "VectorAttribute": {"AttributeName": self.attribute.get()},
            "Dimensions": dimensions.trim().parse::<i64>().map_or(Value::from(dimensions), Value::from),
            "DistanceFunction": self.distance.get(),
            "Projection": {"ProjectionType": self.projection.get()},
        });
        if !schema.is_empty() {
            index["SearchSchema"] = json!(schema);
        }
        index
    }
}

/// `a:S, b:N` → `[("a","S"), ("b","N")]`.
fn attributes(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| match part.split_once(':') {
            Some((name, kind)) => (name.trim().to_string(), kind.trim().to_ascii_uppercase()),
            None => (part.to_string(), "S".to_string()),
        })
        .collect()
}

#[derive(Clone, Copy)]
struct TableForm {
    name: RwSignal<String>,
    hash: RwSignal<String>,
    hash_type: RwSignal<String>,
    range: RwSignal<String>,
    range_type: RwSignal<String>,
    billing: RwSignal<String>,
    read: RwSignal<String>,
    write: RwSignal<String>,
    gsis: RwSignal<Vec<IndexForm>>,
    lsis: RwSignal<Vec<IndexForm>>,
    vector_indexes: RwSignal<Vec<VectorIndexForm>>,
}

impl TableForm {
    /// What the form's own fields get wrong, said at the index it is about before DynamoDB's
    /// message (which names `attributeDefinitions.6`, a place the form does not show) could be.
    fn check(&self) -> Result<(), (Field, String)> {
        let indexes = self.gsis.get().into_iter().map(|g| (Field::Gsi, "global", g));
        let indexes = indexes.chain(self.lsis.get().into_iter().map(|l| (Field::Lsi, "local", l)));
        for (field, kind, index) in indexes {
            let name = index.name.get();
            for (part, text) in [("partition key", index.hash.get()), ("sort key", index.range.get())] {
                if field == Field::Lsi && part == "partition key" {
                    continue;
                }
                for (attribute, kind_of) in attributes(&text) {
                    if !matches!(kind_of.as_str(), "S" | "N" | "B") {
                        return Err((
                            field,
                            format!("The {kind} secondary index `{name}`: its {part} `{attribute}:{kind_of}` has no such type; an attribute is S (string), N (number) or B (binary), as in {attribute}:S."),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn request(&self) -> Value {
        let mut definitions: Vec<(String, String)> = Vec::new();
        let mut define = |name: &str, kind: &str| {
            if !name.is_empty() && !definitions.iter().any(|(n, _)| n == name) {
                definitions.push((name.to_string(), kind.to_string()));
            }
        };
        let hash = self.hash.get();
        let range = self.range.get();
        define(&hash, &self.hash_type.get());
        define(&range, &self.range_type.get());
        let key_schema = |hash: &[(String, String)], range: &[(String, String)]| -> Value {
            hash.iter()
                .map(|(n, _)| json!({"AttributeName": n, "KeyType": "HASH"}))
                .chain(range.iter().map(|(n, _)| json!({"AttributeName": n, "KeyType": "RANGE"})))
                .collect()
        };
        let index = |form: &IndexForm, hash: Vec<(String, String)>, define: &mut dyn FnMut(&str, &str)| -> Value {
            let range = attributes(&form.range.get());
            for (n, t) in hash.iter().chain(range.iter()) {
                define(n, t);
            }
            let mut projection = json!({"ProjectionType": form.projection.get()});
            if form.projection.get() == "INCLUDE" {
                projection["NonKeyAttributes"] =
                    json!(attributes(&form.non_key.get()).into_iter().map(|(n, _)| n).collect::<Vec<_>>());
            }
            json!({"IndexName": form.name.get(), "KeySchema": key_schema(&hash, &range), "Projection": projection})
        };
        let gsis: Vec<Value> =
            self.gsis.get().iter().map(|g| index(g, attributes(&g.hash.get()), &mut define)).collect();
        let lsis: Vec<Value> =
            self.lsis.get().iter().map(|l| index(l, vec![(hash.clone(), self.hash_type.get())], &mut define)).collect();
        let table_range: Vec<(String, String)> =
            if range.is_empty() { Vec::new() } else { vec![(range.clone(), self.range_type.get())] };
        let mut request = json!({
            "TableName": self.name.get(),
            "AttributeDefinitions": [],
            "KeySchema": key_schema(&[(hash.clone(), String::new())], &table_range),
            "BillingMode": self.billing.get(),
        });
        if self.billing.get() == "PROVISIONED" {
            let number =
                |s: RwSignal<String>| s.get().trim().parse::<i64>().map(Value::from).unwrap_or(Value::from(s.get()));
            request["ProvisionedThroughput"] =
                json!({"ReadCapacityUnits": number(self.read), "WriteCapacityUnits": number(self.write)});
        }
        if !gsis.is_empty() {
            let mut gsis = gsis;
            if self.billing.get() == "PROVISIONED" {
                for gsi in &mut gsis {
                    gsi["ProvisionedThroughput"] = request["ProvisionedThroughput"].clone();
                }
            }
            request["GlobalSecondaryIndexes"] = json!(gsis);
        }
        if !lsis.is_empty() {
            request["LocalSecondaryIndexes"] = json!(lsis);
        }
        let vector_indexes: Vec<Value> = self.vector_indexes.get().iter().map(|v| v.request(&mut define)).collect();
        if !vector_indexes.is_empty() {
            request["VectorIndexes"] = json!(vector_indexes);
        }
        request["AttributeDefinitions"] =
            definitions.iter().map(|(n, t)| json!({"AttributeName": n, "AttributeType": t})).collect();
        request
    }
}

#[component]
pub fn TablesPage() -> impl IntoView {
    view! {
        <div class="tables-page">
            <CreateTableForm/>
            <PasteCreateTable/>
            <TableList/>
        </div>
    }
}

#[component]
fn CreateTableForm() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let form = TableForm {
        name: RwSignal::new(String::new()),
        hash: RwSignal::new("pk".into()),
        hash_type: RwSignal::new("S".into()),
        range: RwSignal::new("sk".into()),
        range_type: RwSignal::new("S".into()),
        billing: RwSignal::new("PAY_PER_REQUEST".into()),
        read: RwSignal::new("5".into()),
        write: RwSignal::new("5".into()),
        gsis: RwSignal::new(Vec::new()),
        lsis: RwSignal::new(Vec::new()),
        vector_indexes: RwSignal::new(Vec::new()),
    };
    let error = RwSignal::new(None::<(Field, String)>);
    let error_at = move |field: Field| {
        move || {
            error.get().filter(|(f, _)| *f == field).map(|(_, message)| {
                view! { <p class="field-error" role="alert" data-test="field-error">{message}</p> }
            })
        }
    };
    let create = move |_| {
        if let Err(problem) = form.check() {
            error.set(Some(problem));
            return;
        }
        let request = form.request();
        leptos::task::spawn_local(async move {
            let outcome = state::run("CreateTable", &request.to_string(), true).await;
            match outcome.response {
                Ok(_) => {
                    error.set(None);
                    let name = form.name.get_untracked();
                    ui.selected_table.set(Some(name.clone()));
                    ui.tell(true, format!("Table `{name}` created."));
                }
                Err(e) => error.set(Some((field_of(&e.message), format!("{}: {}", e.name, e.message)))),
            }
        });
    };
    let type_select = |signal: RwSignal<String>, label: &'static str| {
        view! {
            <select aria-label=label prop:value=move || signal.get() on:change=move |ev| signal.set(event_target_value(&ev))>
                <option value="S">"S (string)"</option>
                <option value="N">"N (number)"</option>
                <option value="B">"B (binary)"</option>
            </select>
        }
    };
    let text_input = |signal: RwSignal<String>, label: &'static str, test: &'static str| {
        view! {
            <input aria-label=label data-test=test prop:value=move || signal.get()
                on:input=move |ev| signal.set(event_target_value(&ev))/>
        }
    };
    let index_rows = move |list: RwSignal<Vec<IndexForm>>, global: bool| {
        move || {
            list.get()
                .into_iter()
                .enumerate()
                .map(|(i, ix)| {
                    view! {
                        <fieldset class="index">
                            <legend>{if global { format!("GSI {}", i + 1) } else { format!("LSI {}", i + 1) }}</legend>
                            <label>"Name "{text_input(ix.name, "Index name", "index-name")}</label>
                            {global.then(|| view! {
                                <label>"Partition key "{text_input(ix.hash, "Index partition key (name:TYPE, up to 4)", "index-hash")}</label>
                            })}
                            <label>"Sort key "{text_input(ix.range, "Index sort key (name:TYPE, up to 4)", "index-range")}</label>
                            <label>"Projection "
                                <select prop:value=move || ix.projection.get() on:change=move |ev| ix.projection.set(event_target_value(&ev))>
                                    <option value="ALL">"ALL"</option>
                                    <option value="KEYS_ONLY">"KEYS_ONLY"</option>
                                    <option value="INCLUDE">"INCLUDE"</option>
                                </select>
                            </label>
                            {move || (ix.projection.get() == "INCLUDE").then(|| view! {
                                <label>"Attributes "{text_input(ix.non_key, "Projected attributes, comma-separated", "index-include")}</label>
                            })}
                            <button class="link" on:click=move |_| list.update(|l| { l.remove(i); })>"Remove"</button>
                        </fieldset>
                    }
                })
                .collect_view()
        }
    };
    let vector_rows = move |list: RwSignal<Vec<VectorIndexForm>>| {
        move || {
            list.get()
                .into_iter()
                .enumerate()
                .map(|(i, ix)| {
                    view! {
                        <fieldset class="index" data-test="vector-index">
                            <legend>{format!("Vector index {}", i + 1)}</legend>
                            <label>"Name "{text_input(ix.name, "Vector index name", "vector-name")}</label>
                            <label>"Vector attribute "{text_input(ix.attribute, "Vector attribute (a list of numbers)", "vector-attribute")}</label>
                            <label>"Dimensions "{text_input(ix.dimensions, "Dimensions (1 to 4096)", "vector-dimensions")}</label>
                            <label>"Distance "
                                <select data-test="vector-distance" prop:value=move || ix.distance.get() on:change=move |ev| ix.distance.set(event_target_value(&ev))>
                                    <option value="COSINE">"COSINE"</option>
                                    <option value="EUCLIDEAN">"EUCLIDEAN"</option>
                                    <option value="DOT_PRODUCT">"DOT_PRODUCT"</option>
                                </select>
                            </label>
                            <label>"HASH filter "{text_input(ix.hash_filter, "HASH filter attribute (name:TYPE, optional)", "vector-hash")}</label>
                            <label>"Inline filters "{text_input(ix.inline_filters, "Inline filter attributes (name:TYPE, comma-separated)", "vector-inline")}</label>
                            <label>"Projection "
                                <select prop:value=move || ix.projection.get() on:change=move |ev| ix.projection.set(event_target_value(&ev))>
                                    <option value="ALL">"ALL"</option>
                                    <option value="KEYS_ONLY">"KEYS_ONLY"</option>
                                </select>
                            </label>
                            <button class="link" on:click=move |_| list.update(|l| { l.remove(i); })>"Remove"</button>
                        </fieldset>
                    }
                })
                .collect_view()
        }
    };
    view! {
        <section class="card" aria-labelledby="create-heading">
            <h2 id="create-heading">"Create a table"</h2>
            <div class="form-grid">
                <label>"Table name "{text_input(form.name, "Table name", "table-name")}</label>
                {error_at(Field::Name)}
                <label>"Partition key "{text_input(form.hash, "Partition key name", "hash-name")}{type_select(form.hash_type, "Partition key type")}</label>
                <label>"Sort key (optional) "{text_input(form.range, "Sort key name", "range-name")}{type_select(form.range_type, "Sort key type")}</label>
                {error_at(Field::Keys)}
                <label>"Billing "
                    <select data-test="billing" prop:value=move || form.billing.get() on:change=move |ev| form.billing.set(event_target_value(&ev))>
                        <option value="PAY_PER_REQUEST">"On demand (PAY_PER_REQUEST)"</option>
                        <option value="PROVISIONED">"Provisioned"</option>
                    </select>
                </label>
                {move || (form.billing.get() == "PROVISIONED").then(|| view! {
                    <label>"RCU "{text_input(form.read, "Read capacity units", "rcu")}" WCU "{text_input(form.write, "Write capacity units", "wcu")}</label>
                })}
                {error_at(Field::Billing)}
            </div>
            <h3>"Global secondary indexes"</h3>
            <p class="muted">"Keys as name:TYPE; several comma-separated names make a multi-attribute key (up to 4 + 4)."</p>
            {index_rows(form.gsis, true)}
            <button on:click=move |_| form.gsis.update(|l| l.push(IndexForm::new(&format!("gsi{}", l.len() + 1), "gsi_pk:S", "")))
                data-test="add-gsi">"+ GSI"</button>
            {error_at(Field::Gsi)}
            <h3>"Local secondary indexes"</h3>
            {index_rows(form.lsis, false)}
            <button on:click=move |_| form.lsis.update(|l| l.push(IndexForm::new(&format!("lsi{}", l.len() + 1), "", "lsi_sk:S")))>"+ LSI"</button>
            {error_at(Field::Lsi)}
            // Folded until asked for: most tables have none, and the Create button stays near the
            // fields above it on a phone.
            <details class="vector-indexes" prop:open=move || !form.vector_indexes.get().is_empty()>
                <summary><h3>"Vector indexes (semantic search)"</h3></summary>
                <p class="muted">"SearchVectors over a list of numbers: an on-demand table, at most 5. A HASH filter is an attribute every search must name, as a partition key for vectors; inline filters narrow a search by equality."</p>
                {vector_rows(form.vector_indexes)}
                <button on:click=move |_| form.vector_indexes.update(|l| l.push(VectorIndexForm::new(&format!("vectors{}", l.len() + 1))))
                    data-test="add-vector-index">"+ Vector index"</button>
            </details>
            {error_at(Field::Vector)}
            <details>
                <summary>"The CreateTable request"</summary>
                <pre>{move || serde_json::to_string_pretty(&form.request()).unwrap_or_default()}</pre>
            </details>
            {error_at(Field::General)}
            <button class="primary" on:click=create data-test="create-table">"Create table"</button>
        </section>
    }
}

#[component]
fn PasteCreateTable() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let create = move |_| {
        let request = text.get_untracked();
        leptos::task::spawn_local(async move {
            let outcome = state::run("CreateTable", &request, true).await;
            match outcome.response {
                Ok(body) => {
                    error.set(None);
                    let name = body["TableDescription"]["TableName"].as_str().unwrap_or_default().to_string();
                    ui.selected_table.set(Some(name.clone()));
                    ui.tell(true, format!("Table `{name}` created."));
                }
                Err(e) => error.set(Some(format!("{}: {}", e.name, e.message))),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"…or paste CreateTable JSON"</h2>
            <textarea class="code" rows="6" spellcheck="false" aria-label="CreateTable JSON" data-test="paste-create"
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            {move || error.get().map(|e| view! { <p class="field-error" role="alert">{e}</p> })}
            <button on:click=create>"Create from JSON"</button>
        </section>
    }
}

#[component]
fn TableList() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let confirming = RwSignal::new(None::<String>);
    move || {
        ui.version.track();
        let tables = state::table_names();
        if tables.is_empty() {
            return view! { <p class="muted">"No tables yet."</p> }.into_any();
        }
        tables
            .into_iter()
            .map(|name| {
                let description = state::table(&name).map(|t| t.description).unwrap_or_default();
                let (n1, n2, n3) = (name.clone(), name.clone(), name.clone());
                view! {
                    <section class="card" data-test="table-card">
                        <h2>{name.clone()}</h2>
                        <details>
                            <summary>"DescribeTable"</summary>
                            <pre>{description}</pre>
                        </details>
                        {move || if confirming.get().as_deref() == Some(n1.as_str()) {
                            let (a, b) = (n2.clone(), n3.clone());
                            view! {
                                <span>"Delete it and all its items? "</span>
                                <button class="danger" on:click=move |_| {
                                    let a = a.clone();
                                    confirming.set(None);
                                    leptos::task::spawn_local(async move {
                                        let outcome = state::run("DeleteTable", &json!({"TableName": a}).to_string(), true).await;
                                        match outcome.response {
                                            Ok(_) => ui.tell(true, format!("Table `{a}` deleted.")),
                                            Err(e) => ui.tell(false, format!("{}: {}", e.name, e.message)),
                                        }
                                    });
                                }>"Delete"</button>
                                <button on:click=move |_| { let _ = &b; confirming.set(None) }>"Keep"</button>
                            }.into_any()
                        } else {
                            let a = n2.clone();
                            view! { <button on:click=move |_| confirming.set(Some(a.clone()))>"Delete table…"</button> }.into_any()
                        }}
                    </section>
                }
            })
            .collect_view()
            .into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn errors_land_next_to_the_field_they_name() {
        assert_eq!(
            field_of("1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint"),
            Field::Name
        );
        assert_eq!(field_of("One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [x], AttributeDefinitions: [pk]"), Field::Keys);
        assert_eq!(field_of("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: g when BillingMode is PAY_PER_REQUEST"), Field::Billing);
        assert_eq!(field_of("GlobalSecondaryIndex count exceeds the per-table limit"), Field::Gsi);
    }

    #[wasm_bindgen_test]
    fn a_mistyped_index_attribute_is_said_at_its_index() {
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            let form = TableForm {
                name: RwSignal::new("t1".into()),
                hash: RwSignal::new("pk".into()),
                hash_type: RwSignal::new("S".into()),
                range: RwSignal::new(String::new()),
                range_type: RwSignal::new("S".into()),
                billing: RwSignal::new("PAY_PER_REQUEST".into()),
                read: RwSignal::new("5".into()),
                write: RwSignal::new("5".into()),
                gsis: RwSignal::new(vec![IndexForm::new("GSI1", "g1:S", "g2:X")]),
                lsis: RwSignal::new(Vec::new()),
                vector_indexes: RwSignal::new(Vec::new()),
            };
            let (field, message) = form.check().expect_err("X is no type");
            assert_eq!(field, Field::Gsi);
            assert!(
                message.starts_with("The global secondary index `GSI1`: its sort key `g2:X` has no such type"),
                "{message}"
            );
            form.gsis.set(vec![IndexForm::new("GSI1", "g1:S", "g2:n")]);
            assert_eq!(form.check(), Ok(()));
        });
    }

    #[wasm_bindgen_test]
    fn a_vector_index_becomes_vector_indexes_with_its_filters_defined() {
        let owner = leptos::prelude::Owner::new();
        owner.with(|| {
            let vectors = VectorIndexForm::new("by_meaning");
            vectors.dimensions.set("8".into());
            vectors.hash_filter.set("tenant:S".into());
            vectors.inline_filters.set("category:S, year:N".into());
            let form = TableForm {
                name: RwSignal::new("articles".into()),
                hash: RwSignal::new("pk".into()),
                hash_type: RwSignal::new("S".into()),
                range: RwSignal::new(String::new()),
                range_type: RwSignal::new("S".into()),
                billing: RwSignal::new("PAY_PER_REQUEST".into()),
                read: RwSignal::new("5".into()),
                write: RwSignal::new("5".into()),
                gsis: RwSignal::new(Vec::new()),
                lsis: RwSignal::new(Vec::new()),
                vector_indexes: RwSignal::new(vec![vectors]),
            };
            let request = form.request();
            assert_eq!(
                request["VectorIndexes"],
                json!([{"IndexName": "by_meaning", "VectorAttribute": {"AttributeName": "embedding"}, "Dimensions": 8,
                    "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "ALL"},
                    "SearchSchema": [{"AttributeName": "tenant", "SearchSchemaElementType": "HASH"},
                        {"AttributeName": "category", "SearchSchemaElementType": "INLINE_FILTER"},
                        {"AttributeName": "year", "SearchSchemaElementType": "INLINE_FILTER"}]}])
            );
            let defined: Vec<&str> = request["AttributeDefinitions"]
                .as_array()
                .expect("definitions")
                .iter()
                .filter_map(|d| d["AttributeName"].as_str())
                .collect();
            assert_eq!(defined, ["pk", "tenant", "category", "year"]);
            let refused =
                "One or more parameter values were invalid: Number of dimensions must be between 1 and 4096 inclusive.";
            assert_eq!(field_of(refused), Field::Vector);
        });
    }

    #[wasm_bindgen_test]
    fn index_keys_read_as_name_type_pairs() {
        assert_eq!(
            attributes(" a:S, b:n ,c"),
            [("a".into(), "S".into()), ("b".into(), "N".into()), ("c".into(), "S".into())]
        );
        assert!(attributes(" , ").is_empty());
    }
}
