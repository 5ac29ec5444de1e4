//! Items the way DynamoDB stores them: item collections by partition key, items in sort-key
//! order with their sizes; one view per index showing exactly which items it holds and what it
//! projects. Items are added, edited and deleted as DynamoDB JSON or plain JSON.

use crate::components::item_list::{ItemList, Source};
use crate::state::{self, Ui};
use dynalab_lab::plain_json;
use leptos::prelude::*;
use serde_json::{json, Value};

#[component]
pub fn ItemsPage() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let view_of = RwSignal::new(None::<String>);
    let editor = RwSignal::new(String::new());
    let plain = RwSignal::new(true);
    let problem = RwSignal::new(None::<String>);

    let table_select = move || {
        ui.version.track();
        let tables = state::table_names();
        let options = tables.iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view();
        view! {
            <label>"Table "
                <select data-test="items-table" prop:value=move || ui.selected_table.get().unwrap_or_default()
                    on:change=move |ev| { ui.selected_table.set(Some(event_target_value(&ev))); view_of.set(None); }>
                    {options}
                </select>
            </label>
        }
    };
    let index_select = move || {
        ui.version.track();
        let table = ui.selected_table.get()?;
        let shape = state::table(&table)?;
        // Global indexes first, as DescribeTable lists them.
        let mut indexes: Vec<_> = shape.indexes.iter().collect();
        indexes.sort_by_key(|i| !i.global);
        let names: Vec<String> = indexes.into_iter().map(|i| i.name.clone()).collect();
        let options =
            names.iter().map(|n| view! { <option value=n.clone()>{format!("index {n}")}</option> }).collect_view();
        Some(view! {
            <label>"View "
                <select data-test="items-view" prop:value=move || view_of.get().unwrap_or_default()
                    on:change=move |ev| { let v = event_target_value(&ev); view_of.set((!v.is_empty()).then_some(v)); }>
                    <option value="">"the table"</option>
                    {options}
                </select>
            </label>
        })
    };
    let save = move |_| {
        let Some(table) = ui.selected_table.get_untracked() else {
            return problem.set(Some(
                "There is no table to write to yet: create one on the Tables tab (or load an example) first.".into(),
            ));
        };
        let item = match plain_json::item_from_text(&editor.get_untracked()) {
            Ok(item) => item,
            Err(e) => return problem.set(Some(e)),
        };
        leptos::task::spawn_local(async move {
            let outcome = state::run("PutItem", &json!({"TableName": table, "Item": item}).to_string(), true).await;
            match outcome.response {
                Ok(_) => {
                    problem.try_set(None);
                    ui.tell(true, "Item saved.");
                }
                Err(e) => {
                    problem.try_set(Some(format!("{}: {}", e.name, e.message)));
                }
            }
        });
    };
    let delete = move |_| {
        let Some(table) = ui.selected_table.get_untracked() else {
            return problem.set(Some(
                "There is no table to write to yet: create one on the Tables tab (or load an example) first.".into(),
            ));
        };
        let item = match plain_json::item_from_text(&editor.get_untracked()) {
            Ok(item) => item,
            Err(e) => return problem.set(Some(e)),
        };
        let key = state::key_of(&table, &item);
        leptos::task::spawn_local(async move {
            let outcome = state::run("DeleteItem", &json!({"TableName": table, "Key": key}).to_string(), true).await;
            match outcome.response {
                Ok(_) => {
                    problem.try_set(None);
                    editor.try_set(String::new());
                    ui.tell(true, "Item deleted.");
                }
                Err(e) => problem.set(Some(format!("{}: {}", e.name, e.message))),
            }
        });
    };
    let edit = Callback::new(move |item: Value| {
        match plain_json::to_plain(&item) {
            Ok(text) if plain.get_untracked() => editor.set(text),
            _ => {
                plain.set(false);
                editor.set(serde_json::to_string_pretty(&item).unwrap_or_default());
            }
        }
        problem.set(None);
    });

    view! {
        <div class="items-page">
            <div class="row">{table_select}{index_select}</div>
            <section class="card editor-card">
                <h2>"Add or edit an item"</h2>
                <div class="view-switch" role="group" aria-label="Item as">
                    <button aria-pressed=move || plain.get().to_string() on:click=move |_| {
                        match plain_json::item_from_text(&editor.get_untracked()).and_then(|i| plain_json::to_plain(&i)) {
                            Ok(text) => { editor.set(text); plain.set(true); problem.set(None); }
                            Err(e) if !editor.get_untracked().trim().is_empty() => problem.set(Some(e)),
                            Err(_) => plain.set(true),
                        }
                    }>"Plain JSON"</button>
                    <button aria-pressed=move || (!plain.get()).to_string() on:click=move |_| {
                        if let Ok(item) = plain_json::item_from_text(&editor.get_untracked()) {
                            editor.set(serde_json::to_string_pretty(&item).unwrap_or_default());
                        }
                        plain.set(false);
                    }>"DynamoDB JSON"</button>
                </div>
                <textarea class="code" rows="8" spellcheck="false" aria-label="Item" data-test="item-editor"
                    placeholder="{\"pk\": \"USER#1\", \"sk\": \"PROFILE\", \"age\": 42}"
                    prop:value=move || editor.get() on:input=move |ev| editor.set(event_target_value(&ev))></textarea>
                <p class="muted">"Plain JSON: strings, exact numbers, booleans, null, lists and maps. Sets and binary need DynamoDB JSON."</p>
                {move || problem.get().map(|p| view! { <p class="field-error" role="alert" data-test="item-error">{p}</p> })}
                <div class="row">
                    <button class="primary" on:click=save data-test="save-item">"Save (PutItem)"</button>
                    <button on:click=delete>"Delete (DeleteItem)"</button>
                </div>
            </section>
            {move || {
                ui.version.track();
                let table = ui.selected_table.get()?;
                Some(view! { <Collections table index=view_of.get() on_edit=edit/> })
            }}
        </div>
    }
}

#[component]
fn Collections(table: String, index: Option<String>, #[prop(into)] on_edit: Callback<Value>) -> impl IntoView {
    let Some(facts) = state::table(&table) else {
        return view! { <p data-test="items-summary">"No such table."</p> }.into_any();
    };
    let keys = facts.key_names(index.as_deref());
    let (summary, total) = match index.as_deref().and_then(|name| facts.indexes.iter().find(|i| i.name == name)) {
        Some(i) => (
            format!(
                "Index {}: {} of the table's {} items ({} bytes){}",
                i.name,
                i.items,
                facts.items,
                i.bytes,
                if i.items < facts.items { " — sparse: items without its key attributes are not in it" } else { "" }
            ),
            i.items,
        ),
        None => {
            (format!("{} items, {} bytes, by item collection in storage order", facts.items, facts.bytes), facts.items)
        }
    };
    let editable = index.is_none();
    view! {
        <p data-test="items-summary">{summary}</p>
        {(total > 0).then(|| view! {
            <ItemList source=Source::Table { table, index } total keys on_edit=editable.then_some(on_edit)/>
        })}
    }
    .into_any()
}
