//! Design: the workspace's design studio. The workspace's tables, indexes and items are the
//! design's; beside them the access-pattern inventory, edited as a table, each pattern's call chosen
//! with controls (operation, table or index, key condition from its key schema, order, limit,
//! filter, conditions; a transaction as a list of actions), and an entity layout per table that
//! generates its items. Every edit is kept with the workspace and proved in the engine's worker on
//! a copy of the workspace, so the verdicts follow the edit and the workspace never changes. The
//! method's steps show as a checklist; the design is written and opened as the method's Markdown;
//! an alternative is duplicated, changed and compared side by side.

use crate::client;
use crate::state::{self, Ui};
use crate::worker::protocol::{Answer, Ask, ComparisonView, DesignView, Load, PatternView};
use dynalab_lab::design::calls::{self, shorthand_value, Action, KeyPart};
use dynalab_lab::design::markdown;
use dynalab_lab::design::template::Template;
use dynalab_lab::design::{CallRow, Design, Entity, InventoryRow, KeyAttribute, TableDesign};
use dynalab_lab::workbook::{Consistency, PatternKind};
use dynalab_lab::workspace::Studio;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Operations a pattern's call may be, as the Operation control offers them.
const OPERATIONS: [&str; 9] = [
    "GetItem",
    "Query",
    "Scan",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "TransactWriteItems",
    "BatchGetItem",
    "SearchVectors",
];
const SORT_OPERATORS: [&str; 8] = ["", "=", "begins_with", "<", "<=", ">", ">=", "between"];

/// The studio's state: the design as edited, and its last proof.
#[derive(Clone, Copy)]
struct Ctx {
    studio: RwSignal<Studio>,
    proof: RwSignal<Option<Result<DesignView, Vec<String>>>>,
    comparison: RwSignal<Option<Result<ComparisonView, Vec<String>>>>,
    /// Edits since the page started: only the last one's proof is shown.
    edits: StoredValue<u64>,
    epoch: StoredValue<u64>,
    proving: RwSignal<bool>,
}

impl Ctx {
    /// Changes the design. Applied once the event that asked has returned: the change redraws the
    /// controls, and a control must not be dropped while its own handler runs.
    fn edit(self, change: impl FnOnce(&mut Design) + 'static) {
        self.edit_studio(move |s| change(&mut s.current));
    }

    fn edit_studio(self, change: impl FnOnce(&mut Studio) + 'static) {
        leptos::task::spawn_local(async move {
            if self.studio.try_update(change).is_some() {
                self.send();
            }
        });
    }

    /// Keeps the design in the workspace and proves it, once typing pauses. The design is taken
    /// now: if another tab is chosen meanwhile (this page and its signals gone), the edit is
    /// still kept; only the proof is not drawn.
    fn send(self) {
        let Some(studio) = self.studio.try_get_untracked() else { return };
        let Some(mine) = self.edits.try_update_value(|n| {
            *n += 1;
            *n
        }) else {
            return;
        };
        leptos::task::spawn_local(async move {
            crate::worker::sleep(250).await;
            // A later edit sends itself (a page gone has none).
            if self.edits.try_get_value().is_some_and(|now| now != mine) {
                return;
            }
            self.proving.try_set(true);
            let answer = client::ask(Ask::SetStudio { studio }).await;
            if self.edits.try_get_value() == Some(mine) {
                self.show(answer);
            }
        });
    }

    /// Drops the edits not yet sent: the workspace's design is being replaced.
    fn forget_pending_edits(self) {
        self.edits.try_update_value(|n| *n += 1);
    }

    /// Hands the worker the design as it is now, before asking it for anything that reads the
    /// design (an export, a generation, a comparison): a pending edit is not left behind.
    async fn flush(self) {
        let Some(studio) = self.studio.try_get_untracked() else { return };
        let Some(mine) = self.edits.try_update_value(|n| {
            *n += 1;
            *n
        }) else {
            return;
        };
        let answer = client::ask(Ask::SetStudio { studio }).await;
        if self.edits.try_get_value() == Some(mine) {
            self.show(answer);
        }
    }

    fn prove(self) {
        self.proving.try_set(true);
        leptos::task::spawn_local(async move {
            let answer = client::ask(Ask::ProveStudio { alternative: None }).await;
            self.show(answer);
        });
    }

    /// Draws a proof the worker answered, unless the page is gone (another tab chosen).
    fn show(self, answer: Answer) {
        self.proving.try_set(false);
        self.proof.try_set(Some(design_answer(answer)));
    }

    fn read<T>(self, f: impl FnOnce(&Design) -> T) -> T {
        self.studio.with(|s| f(&s.current))
    }
}

fn design_answer(answer: Answer) -> Result<DesignView, Vec<String>> {
    match answer {
        Answer::Design(design) => design,
        Answer::Done(Err(said)) => Err(vec![said]),
        other => Err(vec![format!("The engine's worker answered {other:?}")]),
    }
}

fn confirm(question: &str) -> bool {
    web_sys::window().and_then(|w| w.confirm_with_message(question).ok()).unwrap_or(false)
}

#[component]
pub fn DesignPage() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let ctx = Ctx {
        studio: RwSignal::new(client::with_facts(|f| f.studio.clone())),
        proof: RwSignal::new(None),
        comparison: RwSignal::new(None),
        edits: StoredValue::new(0),
        epoch: StoredValue::new(client::with_facts(|f| f.epoch)),
        proving: RwSignal::new(false),
    };
    // A replaced workspace (a design document opened, a link, Restore previous) brings its own design.
    Effect::new(move |_| {
        ui.version.track();
        let (epoch, studio) = client::with_facts(|f| (f.epoch, f.studio.clone()));
        if epoch != ctx.epoch.get_value() {
            ctx.epoch.set_value(epoch);
            ctx.forget_pending_edits();
            ctx.studio.set(studio);
            ctx.prove();
        }
    });
    ctx.prove();
    view! {
        <div class="design-page">
            <Header ctx/>
            <ChallengeCard ctx/>
            <Checklist ctx/>
            <InventoryTable ctx/>
            <Layouts ctx/>
            <PasteItems ctx/>
            <Alternatives ctx/>
        </div>
    }
}

#[component]
fn Header(ctx: Ctx) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let pasted = RwSignal::new(String::new());
    let open = move |text: String| {
        if !state::table_names().is_empty()
            && !confirm("Opening a design replaces the workspace's tables, items and design (the current workspace is kept: Restore previous brings it back). Open it?")
        {
            return;
        }
        // An edit still waiting to be sent (a field left by clicking here commits one) belongs to
        // the design being replaced: it must not land on the one being opened.
        ctx.forget_pending_edits();
        leptos::task::spawn_local(async move {
            ui.say(&state::done(Ask::OpenDesign { text }).await);
        });
    };
    let on_file = move |ev: leptos::ev::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        leptos::task::spawn_local(async move {
            match crate::storage::read_file(file).await {
                Ok(text) => open(text),
                Err(e) => ui.tell(false, e),
            }
        });
    };
    // The design as the worker writes it (pending edits first), downloaded under the design's name.
    let download = move |ask: fn() -> Ask, extension: &'static str, kind: &'static str| {
        leptos::task::spawn_local(async move {
            ctx.flush().await;
            match state::done(ask()).await {
                Ok(text) => {
                    let name = ctx.read(|d| if d.name.is_empty() { "design".to_string() } else { d.name.clone() });
                    crate::storage::download(&format!("{}{extension}", file_name(&name)), kind, &text);
                }
                Err(e) => ui.tell(false, e),
            }
        });
    };
    let export = move |_| download(|| Ask::DesignDocument, ".md", "text/markdown");
    let export_workbook = move |_| download(|| Ask::DesignWorkbook, ".workbook.json", "application/json");
    // CloudFormation, Serverless, Terraform, CDK and the access code in one zip, as `dynalab export` writes them.
    let export_infrastructure = move |_| {
        leptos::task::spawn_local(async move {
            ctx.flush().await;
            match client::ask(Ask::DesignExport).await {
                Answer::Files(Ok(files)) => {
                    let name = ctx.read(|d| if d.name.is_empty() { "design".to_string() } else { d.name.clone() });
                    let folder = format!("{}-export", file_name(&name));
                    let zip = dynalab_lab::export::zip(&folder, &files);
                    crate::storage::download_bytes(&format!("{folder}.zip"), "application/zip", &zip);
                }
                Answer::Files(Err(e)) => ui.tell(false, e),
                other => ui.tell(false, format!("The engine's worker answered {other:?}")),
            }
        });
    };
    view! {
        <section class="card" aria-label="Design">
            <h2>"Design"</h2>
            <p class="muted">"The workspace's tables and items are the design; its access patterns, the call each one makes and the entities of each table live beside them, saved with the workspace. Every change is proved at once on a copy of the workspace (the workspace itself never changes)."</p>
            <div class="row">
                <label>"Name "
                    <input type="text" data-test="design-name" prop:value=move || ctx.read(|d| d.name.clone())
                        on:change=move |ev| { let name = event_target_value(&ev); ctx.edit(|d| d.name = name); }/>
                </label>
                <button on:click=export data-test="export-design">"Export as Markdown"</button>
                <button on:click=export_workbook data-test="export-workbook">"Export as a workbook"</button>
                <button on:click=export_infrastructure data-test="export-infrastructure" title="cloudformation.yaml, serverless.yml, main.tf, a CDK stack, the access code in TypeScript and Python with tests that run it, and a README, in one zip">"Export as infrastructure and code (.zip)"</button>
                <label class="button">"Open a design…"
                    <input type="file" class="hidden-file" accept=".md,.markdown,.txt,.json,.yaml,.yml,.tf,text/markdown,text/plain,application/json" on:change=on_file/>
                </label>
                {move || ctx.proving.get().then(|| view! { <span class="muted" role="status">"Proving…"</span> })}
            </div>
            <details>
                <summary>"Paste a design (a design note in the method's tables, the AWS MCP server's dynamodb_data_model.md, a workbook, a CloudFormation, SAM or Serverless template, Terraform, a OneTable schema: any design dynalab check reads)"</summary>
                <textarea class="code" rows="8" spellcheck="false" aria-label="Design document" data-test="design-document"
                    prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                <button on:click=move |_| open(pasted.get_untracked()) data-test="open-design-document">"Open it as the workspace"</button>
            </details>
            {move || ctx.proof.get().map(|proof| match proof {
                Ok(view) => view! {
                    <p data-test="studio-verdict" class=format!("verdict {}", view.verdict.replace(' ', "-"))>
                        <strong>{format!("Design verdict: {}", view.verdict.to_uppercase())}</strong>
                        " — " {view.cost_headline.clone()}
                    </p>
                    // A challenge is graded on its own records; this verdict is of the workspace's
                    // items and rates, and can differ: said, so a FAIL above a 100/100 is not a puzzle.
                    {ctx.studio.with_untracked(|s| s.challenge.is_some()).then(|| view! {
                        <p class="muted" data-test="verdict-vs-grade">"This verdict proves the design on the workspace's own items and rates. The challenge below is graded on the challenge's records and test inputs: it can pass while this fails (no items generated yet, rates not given)."</p>
                    })}
                    {view.items_changed.then(|| view! {
                        <p class="items-changed" role="status" data-test="items-changed">
                            "The workspace's items changed since this proof (a request run in the console, an item edited): these verdicts are of the items the proof ran on. "
                            <button data-test="restore-proved-items" on:click=move |_| {
                                leptos::task::spawn_local(async move { ui.say(&state::done(Ask::RestoreProvedItems).await); });
                            }>"Put those items back"</button>
                            " "
                            <button data-test="prove-on-workspace" on:click=move |_| {
                                ctx.proving.set(true);
                                leptos::task::spawn_local(async move {
                                    ctx.show(client::ask(Ask::ProveOnWorkspace).await);
                                });
                            }>"Prove on the items as they are now"</button>
                        </p>
                    })}
                    {(!view.notes.is_empty()).then(|| view! {
                        <ul class="muted" data-test="studio-notes">{view.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
                    })}
                    // Read without tracking: a new proof redraws this (clearing the cells re-proves),
                    // and the verdict block must not also redraw on every edit of the design.
                    {ctx.studio.with_untracked(|s| !s.current.unread.is_empty()).then(|| view! {
                        <p class="muted">"The patterns these cells touch stay not proven until you say the cells are fixed in the forms below. "
                            <button data-test="clear-unread" on:click=move |_| ctx.edit(|d| d.unread.clear())>"They are fixed: prove them"</button>
                        </p>
                    })}
                }.into_any(),
                Err(problems) if problems.len() == 1 && problems[0] == crate::worker::protocol::NOTHING_YET => view! {
                    <p class="muted" data-test="studio-empty">{problems[0].clone()}</p>
                }.into_any(),
                Err(problems) => view! {
                    <div class="field-error" role="alert" data-test="studio-error">
                        <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                    </div>
                }.into_any(),
            })}
        </section>
    }
}

fn file_name(name: &str) -> String {
    let slug: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let slug = slug.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-");
    if slug.is_empty() {
        "design".into()
    } else {
        slug
    }
}

/// A challenge solved here: graded as a `dynalab-solution/1` made from the design.
#[component]
fn ChallengeCard(ctx: Ctx) -> impl IntoView {
    let graded = RwSignal::new(None::<Result<crate::worker::protocol::GradeView, Vec<String>>>);
    let challenge = move || ctx.studio.with(|s| s.challenge.as_ref().map(|c| c.id.clone()));
    let grade = move |_| {
        graded.set(None);
        leptos::task::spawn_local(async move {
            ctx.flush().await;
            graded.try_set(Some(match client::ask(Ask::GradeStudio).await {
                Answer::Graded(result) => result,
                other => Err(vec![format!("The engine's worker answered {other:?}")]),
            }));
        });
    };
    move || {
        challenge().map(|id| view! {
            <section class="card" aria-label="Challenge" data-test="studio-challenge">
                <h3>{format!("Challenge: {id}")}</h3>
                <p class="muted">"Graded as the Learn tab grades a solution: the tables are the workspace's; an entity of a layout named like one of the challenge's maps its records (every attribute of a record kept); each pattern's call keeps its placeholders, such as <customerId>, for the test inputs."</p>
                <div class="row">
                    <button class="primary" on:click=grade data-test="grade-studio">"Grade this design"</button>
                    <button on:click=move |_| { graded.set(None); ctx.edit_studio(|s| s.challenge = None); }>"Stop solving it here"</button>
                </div>
                {move || graded.get().map(|result| view! { <crate::pages::learn::GradeResult result/> })}
            </section>
        })
    }
}

/// The method's steps, each with what still fails.
#[component]
fn Checklist(ctx: Ctx) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let items = move || {
        ui.version.track();
        let design = ctx.studio.with(|s| s.current.clone());
        let proof = ctx.proof.get().and_then(Result::ok);
        checklist(&design, proof.as_ref())
    };
    view! {
        <section class="card" aria-label="The method's steps">
            <h3>"The method's steps"</h3>
            <ul class="checklist" data-test="checklist">
                {move || items().into_iter().map(|(done, step, what)| view! {
                    <li class=if done { "done" } else { "open" } data-test="checklist-step">
                        <span aria-hidden="true">{if done { "✓ " } else { "✗ " }}</span>
                        <strong>{step}</strong>
                        {(!what.is_empty()).then(|| view! { <span class="muted">{format!(": {what}")}</span> })}
                    </li>
                }).collect_view()}
            </ul>
        </section>
    }
}

/// (done, step, what still fails).
fn checklist(design: &Design, proof: Option<&DesignView>) -> Vec<(bool, &'static str, String)> {
    let mut steps = Vec::new();
    let incomplete: Vec<String> = design
        .inventory
        .iter()
        .filter(|r| r.peak_rps.is_none() || r.consistency.is_none())
        .map(|r| r.id.clone())
        .collect();
    steps.push((
        !design.inventory.is_empty() && incomplete.is_empty(),
        "Access-pattern inventory, with rates and consistency",
        if design.inventory.is_empty() {
            "no pattern yet".into()
        } else if incomplete.is_empty() {
            String::new()
        } else {
            format!("no rate or consistency for {}", incomplete.join(", "))
        },
    ));
    let patterns: Vec<&PatternView> = proof.map(|p| p.patterns.iter().collect()).unwrap_or_default();
    let not_one: Vec<String> =
        patterns.iter().filter(|p| p.operation.is_empty() || p.operation.contains('+')).map(|p| p.id.clone()).collect();
    steps.push((
        proof.is_some() && !patterns.is_empty() && not_one.is_empty(),
        "Every pattern one GetItem, Query or transaction",
        if not_one.is_empty() { String::new() } else { format!("{} make no call or several", not_one.join(", ")) },
    ));
    let scans: Vec<String> = patterns
        .iter()
        .filter(|p| {
            p.reasons.iter().any(|r| r.starts_with("Scan in a request path") || r.starts_with("client-side join"))
        })
        .map(|p| p.id.clone())
        .collect();
    steps.push((
        proof.is_some() && scans.is_empty(),
        "No Scan or client-side join",
        if scans.is_empty() { String::new() } else { format!("{} scan or join", scans.join(", ")) },
    ));
    let mut unused = Vec::new();
    for name in state::table_names() {
        let Some(facts) = state::table(&name) else { continue };
        for index in facts.indexes {
            let used = design
                .table(&name)
                .is_some_and(|t| t.calls.iter().any(|c| c.index.as_deref() == Some(index.name.as_str())));
            if !used {
                unused.push(format!("{} on {name}", index.name));
            }
        }
    }
    steps.push((
        unused.is_empty(),
        "Indexes only where the base table cannot serve",
        if unused.is_empty() { String::new() } else { format!("{} serve no pattern", unused.join(", ")) },
    ));
    let unguarded: Vec<String> = design
        .inventory
        .iter()
        .filter(|r| r.kind == PatternKind::Write)
        .filter(|r| {
            call_of(design, &r.id).is_none_or(|(_, c)| {
                !(c.operation.starts_with("Transact") || c.key_condition.to_ascii_lowercase().contains(" if "))
            })
        })
        .map(|r| r.id.clone())
        .collect();
    steps.push((
        unguarded.is_empty(),
        "Write paths with their conditions and transactions",
        if unguarded.is_empty() {
            String::new()
        } else {
            format!("{} write without a condition or transaction", unguarded.join(", "))
        },
    ));
    let hot: Vec<String> = patterns
        .iter()
        .filter(|p| {
            p.reasons.iter().any(|r| r.contains("partition key") || r.contains("fan-out") || r.contains("1 MB page"))
        })
        .map(|p| p.id.clone())
        .chain(
            proof
                .map(|p| p.capacity.iter().filter(|c| !c.starts_with("pass")).cloned().collect::<Vec<_>>())
                .unwrap_or_default(),
        )
        .collect();
    steps.push((
        proof.is_some() && hot.is_empty(),
        "Hot keys, item size and fan-out",
        if hot.is_empty() { String::new() } else { hot.join("; ") },
    ));
    let failing: Vec<String> = patterns.iter().filter(|p| p.class == "fail").map(|p| p.id.clone()).collect();
    steps.push((
        proof.is_some() && !patterns.is_empty() && failing.is_empty(),
        "Proved: every pattern run",
        if failing.is_empty() { String::new() } else { format!("{} fail", failing.join(", ")) },
    ));
    steps
}

/// The table and call of pattern `id`.
fn call_of(design: &Design, id: &str) -> Option<(String, CallRow)> {
    design.tables.iter().find_map(|t| t.calls.iter().find(|c| c.id == id).map(|c| (t.name.clone(), c.clone())))
}

/// The design's entry for `table`, made when it has none (keys as the workspace has them).
fn table_entry<'a>(design: &'a mut Design, table: &str) -> &'a mut TableDesign {
    debug_assert!(!table.is_empty(), "a table entry needs the table's name");
    if let Some(at) = design.tables.iter().position(|t| t.name == table) {
        return &mut design.tables[at];
    }
    let facts = state::table(table);
    design.tables.push(TableDesign {
        name: table.to_string(),
        settings: String::new(),
        partition_key: KeyAttribute::text(facts.as_ref().map_or("PK", |f| f.partition_key.as_str())),
        sort_key: facts.as_ref().and_then(|f| f.sort_key.as_deref()).map(KeyAttribute::text),
        indexes: Vec::new(),
        entities: Vec::new(),
        calls: Vec::new(),
        items: Vec::new(),
        vector_indexes: Vec::new(),
    });
    let last = design.tables.len() - 1;
    &mut design.tables[last]
}

/// Puts pattern `id`'s call on `table` (or removes it with `None`).
fn set_call(design: &mut Design, id: &str, table: &str, call: Option<CallRow>) {
    for t in &mut design.tables {
        t.calls.retain(|c| c.id != id);
    }
    if let Some(call) = call {
        table_entry(design, table).calls.push(call);
    }
}

/// Changes pattern `id`'s call through its parsed actions, written back in the shorthand.
fn edit_actions(ctx: Ctx, id: String, change: impl FnOnce(&mut Vec<Action>, &Target) + 'static) {
    ctx.edit(move |design| {
        let Some((table, mut call)) = call_of(design, &id) else { return };
        let target = Target::of(&table, call.index.as_deref());
        let mut actions = calls::parse(&call.operation, &call.key_condition).unwrap_or_default();
        if actions.is_empty() {
            actions.push(Action::default());
        }
        change(&mut actions, &target);
        call.key_condition = calls::compose(&actions);
        set_call(design, &id, &table, Some(call));
    });
}

/// The keys a call's key condition names: its table's, or its index's.
#[derive(Clone, Debug, Default, PartialEq)]
struct Target {
    partition: String,
    sort: Option<String>,
}

impl Target {
    fn of(table: &str, index: Option<&str>) -> Self {
        let Some(facts) = state::table(table) else { return Self::default() };
        match index.and_then(|name| facts.indexes.iter().find(|i| i.name == name)) {
            Some(index) => Self {
                partition: index.partition_key.first().cloned().unwrap_or_default(),
                sort: index.sort_key.first().cloned(),
            },
            None => Self { partition: facts.partition_key.clone(), sort: facts.sort_key.clone() },
        }
    }
}

/// Example values for a call's empty fields, from the design's own layout (its templates and
/// attributes), so a library design is never shown an orders example.
#[derive(Clone, Default)]
struct Hints {
    partition: String,
    sort: String,
    filter: String,
    projection: String,
    update: String,
    condition: String,
}

impl Hints {
    fn of(design: &Design, call_id: &str, target: &Target) -> Self {
        let entities = call_of(design, call_id)
            .and_then(|(table, _)| design.table(&table).map(|t| t.entities.clone()))
            .unwrap_or_default();
        let template = |attribute: &str| {
            entities.iter().find_map(|e| e.keys.iter().find(|(a, _, _)| a == attribute).map(|(_, t, _)| t.to_string()))
        };
        // A sort key's constant prefix (`LOAN#`), the usual begins_with.
        let sort = target.sort.as_deref().and_then(|s| {
            entities
                .iter()
                .filter_map(|e| e.keys.iter().find(|(a, _, _)| a == s).map(|(_, t, _)| t.to_string()))
                .map(|t| t.split('<').next().unwrap_or_default().to_string())
                .find(|prefix| !prefix.is_empty())
        });
        let attributes: Vec<&str> =
            entities.iter().flat_map(|e| e.attributes.iter().map(|a| a.name.as_str())).collect();
        let first = attributes.first().copied().unwrap_or("attribute");
        Self {
            partition: template(&target.partition).unwrap_or_else(|| format!("<{}>", target.partition)),
            sort: sort.unwrap_or_default(),
            filter: format!("{first} = :{first}"),
            projection: format!("(all) {}", attributes.iter().take(2).copied().collect::<Vec<_>>().join(" ")),
            update: format!("SET {first} = :{first}"),
            condition: format!("attribute_not_exists({})", target.partition),
        }
    }
}

fn part_value<'a>(action: &'a Action, attribute: &str) -> Option<&'a KeyPart> {
    action.key.iter().find(|p| p.attribute() == attribute)
}

/// Sets (or, with empty text, removes) the key part on `attribute`.
fn set_part(action: &mut Action, attribute: &str, operator: &str, values: (&str, &str)) {
    action.key.retain(|p| p.attribute() != attribute);
    if operator.is_empty() || values.0.trim().is_empty() {
        return;
    }
    let template = |text: &str| Template::parse_shorthand(text).unwrap_or(Template { parts: Vec::new() });
    let attribute = attribute.to_string();
    let part = match operator {
        "begins_with" => KeyPart::BeginsWith { attribute, value: template(values.0) },
        "between" => KeyPart::Between { attribute, low: template(values.0), high: template(values.1) },
        op => {
            let op: &'static str = match op {
                "<" => "<",
                "<=" => "<=",
                ">" => ">",
                ">=" => ">=",
                _ => "=",
            };
            KeyPart::Compare { attribute, op, value: template(values.0) }
        }
    };
    action.key.push(part);
}

/// (operator, first value, second value) of the part on `attribute`.
fn part_text(action: &Action, attribute: &str) -> (String, String, String) {
    match part_value(action, attribute) {
        Some(KeyPart::Compare { op, value, .. }) => ((*op).to_string(), shorthand_value(value), String::new()),
        Some(KeyPart::BeginsWith { value, .. }) => ("begins_with".into(), shorthand_value(value), String::new()),
        Some(KeyPart::Between { low, high, .. }) => ("between".into(), shorthand_value(low), shorthand_value(high)),
        None => (String::new(), String::new(), String::new()),
    }
}

fn option_of(action: &Action, name: &str) -> String {
    action.options.iter().find(|(o, _)| o == name).map(|(_, v)| v.clone()).unwrap_or_default()
}

fn set_option(action: &mut Action, name: &str, value: &str) {
    action.options.retain(|(o, _)| o != name);
    if !value.trim().is_empty() {
        action.options.push((name.to_string(), value.trim().to_string()));
    }
}

#[component]
fn InventoryTable(ctx: Ctx) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let pasted = RwSignal::new(String::new());
    let count = Memo::new(move |_| ctx.read(|d| d.inventory.len()));
    let count = move || count.get();
    let add = move |_| {
        ctx.edit(|d| {
            let id = next_id(d);
            d.inventory.push(InventoryRow {
                id,
                pattern: String::new(),
                kind: PatternKind::Read,
                key_inputs: String::new(),
                sort_filter: String::new(),
                peak_rps: None,
                avg_rps: None,
                consistency: None,
            });
        });
    };
    let add_pasted = move |_| match markdown::paste_inventory(&pasted.get_untracked()) {
        Ok(rows) => {
            let added = rows.len();
            ctx.edit(|d| {
                for mut row in rows {
                    if d.inventory.iter().any(|r| r.id == row.id) {
                        row.id = next_id(d);
                    }
                    d.inventory.push(row);
                }
            });
            pasted.set(String::new());
            ui.tell(true, format!("{added} pattern(s) added to the inventory."));
        }
        Err(e) => ui.tell(false, e),
    };
    view! {
        <section class="card" aria-label="Access patterns">
            <h3>"Access patterns"</h3>
            <div class="grid-wrap">
                <table class="inventory" data-test="inventory">
                    <thead><tr>
                        <th>"#"</th><th>"Pattern"</th><th>"Type"</th><th>"Key inputs"</th><th>"Sort/filter"</th>
                        <th>"Peak/s"</th><th>"Avg/s"</th><th>"Consistency"</th><th>"Call"</th><th>"Verdict"</th><th></th>
                    </tr></thead>
                    <tbody>
                        <For each=move || 0..count() key=|i| *i children=move |i| view! { <PatternRow ctx i/> }/>
                    </tbody>
                </table>
            </div>
            {move || (count() == 0).then(|| view! { <p class="muted">"No access pattern yet: add one, or paste rows from the method's inventory or a spreadsheet."</p> })}
            <button on:click=add data-test="add-pattern">"Add a pattern"</button>
            <details>
                <summary>"Paste rows (a Markdown table, or cells copied from a spreadsheet)"</summary>
                <p class="muted">"Columns: #, Pattern, Type, Key inputs, Sort/filter, Rate (peak/s), Consistency — a header row may name them in another order."</p>
                <textarea class="code" rows="5" spellcheck="false" aria-label="Inventory rows" data-test="paste-inventory"
                    prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                <button on:click=add_pasted data-test="add-pasted-rows">"Add these rows"</button>
            </details>
        </section>
    }
}

fn next_id(design: &Design) -> String {
    let highest = design.inventory.iter().filter_map(|r| r.id.parse::<u64>().ok()).max().unwrap_or(0);
    (highest + 1).to_string()
}

#[component]
fn PatternRow(ctx: Ctx, i: usize) -> impl IntoView {
    let row = move || ctx.read(|d| d.inventory.get(i).cloned());
    let field = move |read: fn(&InventoryRow) -> String| move || row().map(|r| read(&r)).unwrap_or_default();
    let set = move |change: Box<dyn FnOnce(&mut InventoryRow)>| {
        ctx.edit(move |d| {
            if let Some(r) = d.inventory.get_mut(i) {
                change(r);
            }
        });
    };
    let text_cell = move |label: &'static str,
                          read: fn(&InventoryRow) -> String,
                          write: fn(&mut InventoryRow, String)| {
        view! {
            <td class="wide-cell" data-label=label><input type="text" aria-label=label data-test=format!("pattern-{}", label.to_ascii_lowercase().replace([' ', '/'], "-"))
                prop:value=field(read)
                on:change=move |ev| { let value = event_target_value(&ev); set(Box::new(move |r| write(r, value))); }/></td>
        }
    };
    let rate_cell = move |label: &'static str,
                          read: fn(&InventoryRow) -> Option<f64>,
                          write: fn(&mut InventoryRow, Option<f64>)| {
        view! {
            <td class="narrow-cell" data-label=label><input type="text" inputmode="decimal" class="narrow" aria-label=label
                data-test=format!("pattern-{}", label.to_ascii_lowercase().replace([' ', '/'], "-"))
                prop:value=move || row().and_then(|r| read(&r)).map(|v| v.to_string()).unwrap_or_default()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    let value = markdown::rate(&text);
                    if value.is_none() && !text.trim().is_empty() {
                        expect_context::<Ui>().tell(false, format!("`{text}` is not a number of requests per second"));
                    }
                    set(Box::new(move |r| write(r, value)));
                }/></td>
        }
    };
    let id = move || row().map(|r| r.id).unwrap_or_default();
    let verdict = move || {
        let id = id();
        ctx.proof.get().and_then(Result::ok).and_then(|p| p.patterns.into_iter().find(|q| q.id == id))
    };
    let console = move || {
        let id = id();
        ctx.proof.get().and_then(Result::ok).and_then(|p| p.console.into_iter().find(|(c, _, _)| *c == id))
    };
    view! {
        <tr data-test="inventory-row">
            <td class="narrow-cell" data-label="#"><input type="text" class="narrow" aria-label="#" prop:value=field(|r| r.id.clone())
                on:change=move |ev| {
                    let new_id = event_target_value(&ev);
                    ctx.edit(move |d| {
                        let Some(old) = d.inventory.get(i).map(|r| r.id.clone()) else { return };
                        if new_id.trim().is_empty() || d.inventory.iter().any(|r| r.id == new_id) { return; }
                        for t in &mut d.tables { for c in &mut t.calls { if c.id == old { c.id = new_id.clone(); } } }
                        d.inventory[i].id = new_id;
                    });
                }/></td>
            {text_cell("Pattern", |r| r.pattern.clone(), |r, v| r.pattern = v)}
            <td class="narrow-cell" data-label="Type"><select aria-label="Type" data-test="pattern-type"
                on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |r| r.kind = if v == "write" { PatternKind::Write } else { PatternKind::Read })); }>
                <option value="read" selected=move || row().is_some_and(|r| r.kind == PatternKind::Read)>"read"</option>
                <option value="write" selected=move || row().is_some_and(|r| r.kind == PatternKind::Write)>"write"</option>
            </select></td>
            {text_cell("Key inputs", |r| r.key_inputs.clone(), |r, v| r.key_inputs = v)}
            {text_cell("Sort/filter", |r| r.sort_filter.clone(), |r, v| r.sort_filter = v)}
            {rate_cell("Peak", |r| r.peak_rps, |r, v| r.peak_rps = v)}
            {rate_cell("Average", |r| r.avg_rps, |r, v| r.avg_rps = v)}
            <td class="narrow-cell" data-label="Consistency"><select aria-label="Consistency" data-test="pattern-consistency"
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    set(Box::new(move |r| r.consistency = match v.as_str() {
                        "eventual" => Some(Consistency::Eventual),
                        "strong" => Some(Consistency::Strong),
                        "atomic" => Some(Consistency::Transactional),
                        _ => None,
                    }));
                }>
                <option value="" selected=move || row().is_some_and(|r| r.consistency.is_none())>"—"</option>
                <option value="eventual" selected=move || row().is_some_and(|r| r.consistency == Some(Consistency::Eventual))>"eventual"</option>
                <option value="strong" selected=move || row().is_some_and(|r| r.consistency == Some(Consistency::Strong))>"strong"</option>
                <option value="atomic" selected=move || row().is_some_and(|r| r.consistency == Some(Consistency::Transactional))>"atomic"</option>
            </select></td>
            <td class="call-cell" data-label="Call"><CallEditor ctx i/></td>
            <td class="verdict-cell" data-test="pattern-verdict">{move || verdict().map(|p| view! {
                <span class=format!("verdict-badge {}", p.class)>{p.verdict.clone()}</span>
                <span class="muted">{format!(" {} · {} item(s) · {} · {} · {}/month", if p.operation.is_empty() { "no call" } else { p.operation.as_str() }, p.items, p.units, p.at_peak, p.money)}</span>
                <div class="reason">{p.reasons.first().cloned().unwrap_or_default()}</div>
                {(!p.busiest.is_empty()).then(|| view! { <div class="reason" data-test="pattern-busiest">{p.busiest.clone()}</div> })}
            })}</td>
            <td class="actions-cell">
                {move || console().map(|(_, operation, body)| view! {
                    <button class="link" data-test="pattern-console" title="The call as proved, with the fixture's values: run it on the workspace"
                        on:click=move |_| {
                            let ui = expect_context::<Ui>();
                            ui.console_request.set(Some((operation.clone(), body.clone())));
                            ui.tab.set(crate::state::Tab::Console);
                        }>"Open in the console"</button>
                })}
                <button class="link" aria-label="Remove this pattern" on:click=move |_| {
                ctx.edit(move |d| {
                    if i < d.inventory.len() {
                        let id = d.inventory.remove(i).id;
                        for t in &mut d.tables { t.calls.retain(|c| c.id != id); }
                    }
                });
            }>"Remove"</button></td>
        </tr>
    }
}

/// A pattern's call, chosen with controls.
#[component]
fn CallEditor(ctx: Ctx, i: usize) -> impl IntoView {
    let id = move || ctx.read(|d| d.inventory.get(i).map(|r| r.id.clone()).unwrap_or_default());
    let call = move || {
        let id = id();
        ctx.read(|d| call_of(d, &id))
    };
    // The controls are drawn again only when what they are changes (the operation, the table, the
    // index), not on every edit: the control being used keeps the keyboard focus.
    let operation = Memo::new(move |_| call().map(|(_, c)| c.operation).unwrap_or_default());
    let operation = move || operation.get();
    let table = Memo::new(move |_| call().map(|(t, _)| t).unwrap_or_default());
    let table = move || table.get();
    let index = Memo::new(move |_| call().and_then(|(_, c)| c.index));
    let set_operation = move |ev: leptos::ev::Event| {
        let op = event_target_value(&ev);
        let id = id();
        ctx.edit(move |d| {
            if op.is_empty() {
                set_call(d, &id, "", None);
                return;
            }
            let (table, mut call) = call_of(d, &id).unwrap_or_else(|| {
                let table = state::table_names().into_iter().next().unwrap_or_default();
                (
                    table,
                    CallRow {
                        id: id.clone(),
                        pattern: String::new(),
                        operation: String::new(),
                        key_condition: String::new(),
                        index: None,
                    },
                )
            });
            let was_many = call.operation.starts_with("Transact") || call.operation == "BatchGetItem";
            let many = op.starts_with("Transact") || op == "BatchGetItem";
            if was_many != many {
                call.key_condition = String::new();
            }
            if many || matches!(op.as_str(), "GetItem" | "PutItem" | "UpdateItem" | "DeleteItem") {
                call.index = None;
            }
            // A vector search names a vector index, and filters by its search schema only.
            if op == "SearchVectors" && call.operation != op {
                let vectors = state::table(&table).map(|t| t.vector_indexes).unwrap_or_default();
                call.index = vectors.first().map(|(name, _, _)| name.clone());
                call.key_condition = "TopK=10".into();
            } else if call.operation == "SearchVectors" && op != "SearchVectors" {
                call.index = None;
                call.key_condition = String::new();
            }
            // A Scan takes no key condition: what it reads is the whole table, filtered.
            if op == "Scan" {
                if let Ok(mut actions) = calls::parse(&call.operation, &call.key_condition) {
                    for action in &mut actions {
                        action.key.clear();
                    }
                    call.key_condition = calls::compose(&actions);
                }
            }
            if op == "TransactWriteItems" && call.key_condition.is_empty() {
                let target = Target::of(&table, None);
                let mut action = Action { kind: Some("Put".into()), ..Action::default() };
                set_part(&mut action, &target.partition, "=", ("<id>", ""));
                call.key_condition = calls::compose(&[action]);
            }
            call.operation = op;
            set_call(d, &id, &table, Some(call));
        });
    };
    let set_table = move |ev: leptos::ev::Event| {
        let new_table = event_target_value(&ev);
        let id = id();
        ctx.edit(move |d| {
            if let Some((_, mut call)) = call_of(d, &id) {
                call.index = None;
                set_call(d, &id, &new_table, Some(call));
            }
        });
    };
    let set_index = move |ev: leptos::ev::Event| {
        let index = event_target_value(&ev);
        let id = id();
        ctx.edit(move |d| {
            if let Some((table, mut call)) = call_of(d, &id) {
                let old = Target::of(&table, call.index.as_deref());
                call.index = (!index.is_empty()).then_some(index);
                let new = Target::of(&table, call.index.as_deref());
                // The key condition follows the new target's key names.
                if let Ok(mut actions) = calls::parse(&call.operation, &call.key_condition) {
                    for action in &mut actions {
                        action
                            .key
                            .retain(|p| p.attribute() != old.partition && Some(p.attribute()) != old.sort.as_deref());
                    }
                    call.key_condition = calls::compose(&actions);
                }
                let _ = new;
                set_call(d, &id, &table, Some(call));
            }
        });
    };
    let indexes = move || {
        let facts = state::table(&table());
        if operation() == "SearchVectors" {
            return facts.map(|t| t.vector_indexes.into_iter().map(|(name, _, _)| name).collect()).unwrap_or_default();
        }
        facts.map(|t| t.indexes.into_iter().map(|i| i.name).collect::<Vec<_>>()).unwrap_or_default()
    };
    view! {
        <div class="call-editor" data-test="call-editor">
            <select aria-label="Operation" data-test="call-operation" on:change=set_operation>
                <option value="" selected=move || operation().is_empty()>"— no call"</option>
                {OPERATIONS.iter().map(|op| view! { <option value=*op selected=move || operation() == *op>{*op}</option> }).collect_view()}
            </select>
            {move || (!operation().is_empty()).then(|| view! {
                <select aria-label="Table" data-test="call-table" on:change=set_table>
                    {state::table_names().into_iter().map(|name| {
                        let selected = name == table();
                        view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                    }).collect_view()}
                </select>
                {matches!(operation().as_str(), "Query" | "Scan" | "SearchVectors").then(|| view! {
                    <select aria-label="Index" data-test="call-index" on:change=set_index>
                        <option value="" selected=move || index.get().is_none()
                            disabled=move || operation() == "SearchVectors">"the table"</option>
                        {indexes().into_iter().map(|name| {
                            let selected = index.get_untracked().as_deref() == Some(name.as_str());
                            view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                        }).collect_view()}
                    </select>
                })}
            })}
            {move || {
                let op = operation();
                let _ = (table(), index.get());
                if op.is_empty() {
                    return ().into_any();
                }
                let id = ctx.studio.with_untracked(|s| s.current.inventory.get(i).map(|r| r.id.clone()).unwrap_or_default());
                if op.starts_with("Transact") || op == "BatchGetItem" {
                    view! { <ActionList ctx id/> }.into_any()
                } else if op == "SearchVectors" {
                    view! { <SearchControls ctx id/> }.into_any()
                } else {
                    view! { <SingleAction ctx id/> }.into_any()
                }
            }}
            {move || (!operation().is_empty()).then(|| view! {
                <details class="shorthand">
                    <summary>"As the design note writes it"</summary>
                    <input type="text" aria-label="Key condition (shorthand)" data-test="call-shorthand"
                        prop:value=move || call().map(|(_, c)| c.key_condition).unwrap_or_default()
                        on:change=move |ev| {
                            let text = event_target_value(&ev);
                            let id = id();
                            ctx.edit(move |d| if let Some((table, mut call)) = call_of(d, &id) { call.key_condition = text; set_call(d, &id, &table, Some(call)); });
                        }/>
                </details>
            })}
        </div>
    }
}

/// A vector search's controls: the equalities its index's search schema allows (the HASH one
/// required) and TopK, written as the design note's shorthand (`tenant=<tenantId>, TopK=5`). The
/// proof searches for the vector of the first item that answers them.
#[component]
fn SearchControls(ctx: Ctx, id: String) -> impl IntoView {
    let id = StoredValue::new(id);
    let call = move || ctx.read(|d| call_of(d, &id.try_get_value().unwrap_or_default()));
    let schema = move || {
        let (table, call) = call()?;
        let facts = state::table(&table)?;
        let index = call.index?;
        let filters = facts.vector_filters.into_iter().filter(|(i, _, _)| *i == index);
        Some(filters.map(|(_, name, hash)| (name, hash)).collect::<Vec<_>>())
    };
    let set = move |text: String| {
        let id = id.get_value();
        ctx.edit(move |d| {
            if let Some((table, mut call)) = call_of(d, &id) {
                call.key_condition = text;
                set_call(d, &id, &table, Some(call));
            }
        });
    };
    view! {
        <div class="search-controls" data-test="search-controls">
            <p class="muted">{move || match schema() {
                None => "Choose the table's vector index.".to_string(),
                Some(filters) if filters.is_empty() => "This index has no search schema: the search compares every vector.".to_string(),
                Some(filters) => format!(
                    "Filters by equality on its search schema: {}. The proof searches for the vector of the first item that answers them.",
                    filters.iter().map(|(name, hash)| if *hash { format!("{name} (HASH, required)") } else { name.clone() }).collect::<Vec<_>>().join(", ")
                ),
            }}</p>
            <label>"Filters and TopK "
                <input type="text" data-test="search-shorthand" aria-label="Vector search filters and TopK"
                    placeholder="tenant=<tenantId>, TopK=5"
                    prop:value=move || call().map(|(_, c)| c.key_condition).unwrap_or_default()
                    on:change=move |ev| set(event_target_value(&ev))/>
            </label>
        </div>
    }
}

/// The controls of one call: its key condition on the target's keys, and what its operation takes.
/// Drawn once per operation and target; the values follow the design.
#[component]
fn SingleAction(ctx: Ctx, id: String) -> impl IntoView {
    let id = StoredValue::new(id);
    let state_of = move || {
        ctx.read(|d| {
            let (table, call) = call_of(d, &id.try_get_value().unwrap_or_default())?;
            let target = Target::of(&table, call.index.as_deref());
            let action = calls::parse(&call.operation, &call.key_condition)
                .ok()
                .and_then(|a| a.into_iter().next())
                .unwrap_or_default();
            Some((call.operation, target, action))
        })
    };
    let shape = Memo::new(move |_| state_of().map(|(operation, target, _)| (operation, target)));
    let action = Memo::new(move |_| state_of().map(|(_, _, action)| action).unwrap_or_default());
    let change = move |f: Box<dyn FnOnce(&mut Action, &Target)>| {
        edit_actions(ctx, id.try_get_value().unwrap_or_default(), move |actions, target| f(&mut actions[0], target));
    };
    move || {
        let Some((operation, target)) = shape.get() else { return ().into_any() };
        let hints = ctx.studio.with_untracked(|s| Hints::of(&s.current, &id.get_value(), &target));
        let query = operation == "Query";
        let scan = operation == "Scan";
        let write = matches!(operation.as_str(), "PutItem" | "UpdateItem" | "DeleteItem");
        let partition_name = target.partition.clone();
        let partition = move || part_text(&action.get(), &partition_name).1;
        let sort_name = target.sort.clone();
        view! {
            <div class="call-controls">
                {(!scan).then(|| view! {
                    <label>{format!("{} = ", target.partition)}
                        <input type="text" data-test="call-partition" placeholder=hints.partition.clone() prop:value=partition
                            on:change=move |ev| { let v = event_target_value(&ev); change(Box::new(move |a, t| set_part(a, &t.partition.clone(), "=", (&v, "")))); }/>
                    </label>
                })}
                {sort_name.filter(|_| !scan).map(|sort| {
                    let fixed = !query; // a GetItem or a write names the whole key
                    let sort_text = { let sort = sort.clone(); move || part_text(&action.get(), &sort) };
                    let sort_op = { let text = sort_text.clone(); move || text().0 };
                    let sort_a = { let text = sort_text.clone(); move || text().1 };
                    let sort_b = { let text = sort_text.clone(); move || text().2 };
                    let sort_for_op = sort.clone();
                    let sort_for_a = sort.clone();
                    let sort_for_b = sort.clone();
                    view! {
                        <label>{sort.clone()}" "
                            {if fixed {
                                view! { <span>"="</span> }.into_any()
                            } else {
                                let sort_op = sort_op.clone();
                                view! {
                                    <select aria-label="Sort key condition" data-test="call-sort-operator"
                                        on:change=move |ev| {
                                            let op = event_target_value(&ev);
                                            let sort = sort_for_op.clone();
                                            change(Box::new(move |a, _| {
                                                let (_, first, second) = part_text(a, &sort);
                                                let first = if first.is_empty() { "<value>".to_string() } else { first };
                                                set_part(a, &sort, &op, (&first, &second));
                                            }));
                                        }>
                                        {SORT_OPERATORS.iter().map(|op| {
                                            let sort_op = sort_op.clone();
                                            view! { <option value=*op selected=move || sort_op() == *op>{if op.is_empty() { "(any)" } else { op }}</option> }
                                        }).collect_view()}
                                    </select>
                                }.into_any()
                            }}
                            <input type="text" data-test="call-sort" placeholder=hints.sort.clone() prop:value=sort_a
                                on:change=move |ev| {
                                    let v = event_target_value(&ev);
                                    let sort = sort_for_a.clone();
                                    change(Box::new(move |act, _| {
                                        let (op, _, second) = part_text(act, &sort);
                                        let op = if fixed { "=".to_string() } else if op.is_empty() { "begins_with".to_string() } else { op };
                                        set_part(act, &sort, &op, (&v, &second));
                                    }));
                                }/>
                            {move || (sort_op() == "between").then(|| {
                                let sort = sort_for_b.clone();
                                let sort_b = sort_b.clone();
                                view! {
                                    " and "
                                    <input type="text" data-test="call-sort-to" prop:value=sort_b
                                        on:change=move |ev| {
                                            let v = event_target_value(&ev);
                                            let sort = sort.clone();
                                            change(Box::new(move |act, _| { let (_, first, _) = part_text(act, &sort); set_part(act, &sort, "between", (&first, &v)); }));
                                        }/>
                                }
                            })}
                        </label>
                    }
                })}
                {query.then(|| view! {
                    <label>"Order "
                        <select data-test="call-order" on:change=move |ev| {
                            let v = event_target_value(&ev);
                            change(Box::new(move |a, _| set_option(a, "ScanIndexForward", if v == "desc" { "false" } else { "" })));
                        }>
                            <option value="asc" selected=move || option_of(&action.get(), "ScanIndexForward") != "false">"ascending"</option>
                            <option value="desc" selected=move || option_of(&action.get(), "ScanIndexForward") == "false">"descending (newest first)"</option>
                        </select>
                    </label>
                })}
                {(query || scan).then(|| view! {
                    <label>"Limit "
                        <input type="text" class="narrow" inputmode="numeric" data-test="call-limit" prop:value=move || option_of(&action.get(), "Limit")
                            on:change=move |ev| { let v = event_target_value(&ev); change(Box::new(move |a, _| set_option(a, "Limit", &v))); }/>
                    </label>
                    <label>"Filter "
                        <input type="text" data-test="call-filter" placeholder=hints.filter.clone() prop:value=move || option_of(&action.get(), "Filter")
                            on:change=move |ev| { let v = event_target_value(&ev); change(Box::new(move |a, _| set_option(a, "Filter", &v))); }/>
                    </label>
                })}
                {(query || scan || operation == "GetItem").then(|| view! {
                    <label>"Only attributes "
                        <input type="text" data-test="call-projection" placeholder=hints.projection.clone() prop:value=move || option_of(&action.get(), "Projection")
                            on:change=move |ev| {
                                // Names separated by spaces, as the shorthand writes them.
                                let v = event_target_value(&ev).replace(',', " ").split_whitespace().collect::<Vec<_>>().join(" ");
                                change(Box::new(move |a, _| set_option(a, "Projection", &v)));
                            }/>
                    </label>
                })}
                {(operation == "UpdateItem").then(|| view! {
                    <label>"Change "
                        <input type="text" data-test="call-update" placeholder=hints.update.clone() prop:value=move || action.get().update.unwrap_or_default()
                            on:change=move |ev| { let v = event_target_value(&ev); change(Box::new(move |a, _| a.update = (!v.trim().is_empty()).then_some(v))); }/>
                    </label>
                })}
                {write.then(|| view! {
                    <label>"Only if "
                        <input type="text" data-test="call-condition" placeholder=hints.condition.clone() prop:value=move || action.get().condition.unwrap_or_default()
                            on:change=move |ev| { let v = event_target_value(&ev); change(Box::new(move |a, _| a.condition = (!v.trim().is_empty()).then_some(v))); }/>
                    </label>
                })}
            </div>
        }
        .into_any()
    }
}

/// A transaction's (or batch's) actions, each with its key, change and condition. Drawn again
/// only when an action is added or removed; the values follow the design.
#[component]
fn ActionList(ctx: Ctx, id: String) -> impl IntoView {
    let id = StoredValue::new(id);
    let state_of = move || {
        ctx.read(|d| {
            let (table, call) = call_of(d, &id.try_get_value().unwrap_or_default())?;
            let target = Target::of(&table, None);
            let actions = calls::parse(&call.operation, &call.key_condition).unwrap_or_default();
            Some((call.operation, target, actions))
        })
    };
    let shape = Memo::new(move |_| state_of().map(|(operation, target, actions)| (operation, target, actions.len())));
    let actions = Memo::new(move |_| state_of().map(|(_, _, actions)| actions).unwrap_or_default());
    let change = move |at: usize, f: Box<dyn FnOnce(&mut Action, &Target)>| {
        edit_actions(ctx, id.try_get_value().unwrap_or_default(), move |actions, target| {
            if let Some(action) = actions.get_mut(at) {
                f(action, target);
            }
        });
    };
    move || {
        let Some((operation, target, count)) = shape.get() else { return ().into_any() };
        let hints = ctx.studio.with_untracked(|s| Hints::of(&s.current, &id.get_value(), &target));
        let writes = operation == "TransactWriteItems";
        let kinds: &[&str] = if writes { &["Put", "Update", "Delete", "ConditionCheck"] } else { &["Get"] };
        let rows = (0..count).map(|at| {
            let one = move || actions.get().get(at).cloned().unwrap_or_default();
            let partition_name = target.partition.clone();
            let partition = move || part_text(&one(), &partition_name).1;
            let sort = target.sort.clone();
            let hints = hints.clone();
            view! {
                <li data-test="call-action">
                    {writes.then(|| view! {
                        <select aria-label="Action" data-test="action-kind" on:change=move |ev| {
                            let v = event_target_value(&ev);
                            change(at, Box::new(move |a, _| a.kind = Some(v)));
                        }>
                            {kinds.iter().map(|k| view! { <option value=*k selected=move || one().kind.as_deref() == Some(*k)>{*k}</option> }).collect_view()}
                        </select>
                    })}
                    <label>{format!(" {} = ", target.partition)}
                        <input type="text" data-test="action-partition" placeholder=hints.partition.clone() prop:value=partition
                            on:change=move |ev| { let v = event_target_value(&ev); change(at, Box::new(move |a, t| set_part(a, &t.partition.clone(), "=", (&v, "")))); }/>
                    </label>
                    {sort.map(|sort| {
                        let shown = { let sort = sort.clone(); move || part_text(&one(), &sort).1 };
                        view! {
                            <label>{format!(" {sort} = ")}
                                <input type="text" data-test="action-sort" prop:value=shown
                                    on:change=move |ev| { let v = event_target_value(&ev); let s = sort.clone(); change(at, Box::new(move |a, _| set_part(a, &s, "=", (&v, "")))); }/>
                            </label>
                        }
                    })}
                    {writes.then(|| view! {
                        <label>" Change "
                            <input type="text" data-test="action-update" placeholder=hints.update.clone() prop:value=move || one().update.unwrap_or_default()
                                on:change=move |ev| { let v = event_target_value(&ev); change(at, Box::new(move |a, _| a.update = (!v.trim().is_empty()).then_some(v))); }/>
                        </label>
                        <label>" Only if "
                            <input type="text" data-test="action-condition" placeholder=hints.condition.clone() prop:value=move || one().condition.unwrap_or_default()
                                on:change=move |ev| { let v = event_target_value(&ev); change(at, Box::new(move |a, _| a.condition = (!v.trim().is_empty()).then_some(v))); }/>
                        </label>
                    })}
                    <button class="link" aria-label="Remove this action" on:click=move |_| {
                        edit_actions(ctx, id.try_get_value().unwrap_or_default(), move |actions, _| { if at < actions.len() && actions.len() > 1 { actions.remove(at); } });
                    }>"Remove"</button>
                </li>
            }
        }).collect_view();
        let first_kind = if writes { "Put" } else { "Get" };
        view! {
            <ol class="actions">{rows}</ol>
            <button data-test="add-action" on:click=move |_| {
                edit_actions(ctx, id.try_get_value().unwrap_or_default(), move |actions, target| {
                    let mut action = Action { kind: Some(first_kind.into()), ..Action::default() };
                    set_part(&mut action, &target.partition, "=", ("<id>", ""));
                    actions.push(action);
                });
            }>"Add an action"</button>
        }
        .into_any()
    }
}

/// Each table's entity layout: key templates, counts, sizes, attributes; items generated from it.
#[component]
fn Layouts(ctx: Ctx) -> impl IntoView {
    let ui = expect_context::<Ui>();
    move || {
        ui.version.track();
        let tables = state::table_names();
        if tables.is_empty() {
            return view! {
                <section class="card"><h3>"Entities"</h3>
                    <p class="muted">"Create the design's tables in the Tables tab (or open a design document): each table then gets its entity layout here."</p>
                </section>
            }.into_any();
        }
        tables.into_iter().map(|table| view! { <TableLayout ctx table/> }).collect_view().into_any()
    }
}

#[component]
fn TableLayout(ctx: Ctx, table: String) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let table = StoredValue::new(table);
    let columns = move || {
        let Some(facts) = state::table(&table.try_get_value().unwrap_or_default()) else { return Vec::new() };
        let mut columns = vec![facts.partition_key.clone()];
        columns.extend(facts.sort_key.clone());
        for index in &facts.indexes {
            for name in index.partition_key.iter().chain(&index.sort_key) {
                if !columns.contains(name) {
                    columns.push(name.clone());
                }
            }
        }
        columns
    };
    // Rows are made again only when their number changes, not on every edit.
    let count = Memo::new(move |_| {
        ctx.read(|d| d.table(&table.try_get_value().unwrap_or_default()).map_or(0, |t| t.entities.len()))
    });
    let count = move || count.get();
    let add = move |_| {
        ctx.edit(move |d| {
            let entry = table_entry(d, &table.try_get_value().unwrap_or_default());
            entry.entities.push(Entity {
                name: format!("Entity {}", entry.entities.len() + 1),
                keys: Vec::new(),
                attributes: Vec::new(),
                items: None,
                per_collection: None,
                size: None,
                skew: None,
                notes: String::new(),
            });
        });
    };
    let generate = move |_| {
        let name = table.try_get_value().unwrap_or_default();
        let items = state::table(&name).map_or(0, |t| t.items);
        if items > 0
            && !confirm(&format!(
                "Replace the {items} item(s) of `{name}` with items generated from its entity layout?"
            ))
        {
            return;
        }
        leptos::task::spawn_local(async move {
            ctx.flush().await;
            ui.say(&state::done(Ask::GenerateItems { table: name }).await);
            ctx.prove();
        });
    };
    view! {
        <section class="card" aria-label=move || format!("Entities of {}", table.try_get_value().unwrap_or_default())>
            <h3>{move || format!("Entities of `{}`", table.try_get_value().unwrap_or_default())}</h3>
            <p class="muted">"Key templates such as USER#<userId> or ORDER#<createdAt>#<orderId>; an attribute only some items have takes a share, such as WAREHOUSE#<warehouseId>#OPEN (30%) — what makes an index sparse. Attributes: name=example, or name (2 KB)."</p>
            <div class="grid-wrap">
                <table class="layout" data-test="layout">
                    <thead><tr>
                        <th>"Entity"</th>
                        {move || columns().into_iter().map(|c| view! { <th>{c}</th> }).collect_view()}
                        <th title="How many in production: a larger design gets a fixture of fewer item collections, and the report says by how much it scales">"Items (production)"</th><th>"Per collection"</th><th>"Size"</th>
                        <th title="The share of the entity's items in one item collection: a hot key on purpose">"Skew"</th><th>"Attributes"</th><th>"Notes"</th><th></th>
                    </tr></thead>
                    <tbody>
                        {move || (0..count()).map(|e| view! { <EntityRow ctx table=table.try_get_value().unwrap_or_default() e columns=columns()/> }).collect_view()}
                    </tbody>
                </table>
            </div>
            <button on:click=add data-test="add-entity">"Add an entity"</button>
            <button on:click=generate data-test="generate-items" disabled=move || count() == 0>"Generate items from the layout"</button>
        </section>
    }
}

#[component]
fn EntityRow(ctx: Ctx, table: String, e: usize, columns: Vec<String>) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let table = StoredValue::new(table);
    let entity = move || {
        ctx.read(|d| d.table(&table.try_get_value().unwrap_or_default()).and_then(|t| t.entities.get(e).cloned()))
    };
    let set = move |change: Box<dyn FnOnce(&mut Entity) -> Result<(), String>>| {
        // A row drawn again while its event ran has nothing left to change.
        let Some(table) = table.try_get_value() else { return };
        leptos::task::spawn_local(async move {
            let mut refused = None;
            ctx.studio.update(|s| {
                let entry = table_entry(&mut s.current, &table);
                if let Some(entity) = entry.entities.get_mut(e) {
                    if let Err(error) = change(entity) {
                        refused = Some(error);
                    }
                }
            });
            match refused {
                Some(error) => ui.tell(false, error),
                None => ctx.send(),
            }
        });
    };
    let count_cell = move |label: &'static str,
                           read: fn(&Entity) -> Option<u64>,
                           write: fn(&mut Entity, Option<u64>)| {
        view! {
            <td class="narrow-cell" data-label=label><input type="text" class="narrow" inputmode="numeric" aria-label=label
                prop:value=move || entity().and_then(|x| read(&x)).map(|n| n.to_string()).unwrap_or_default()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    set(Box::new(move |x| {
                        let value = if text.trim().is_empty() { None } else {
                            Some(text.trim().replace(',', "").parse::<u64>().ok().filter(|n| *n >= 1).ok_or_else(|| format!("`{text}` is not a whole number from 1"))?)
                        };
                        write(x, value);
                        Ok(())
                    }));
                }/></td>
        }
    };
    let cells = columns
        .into_iter()
        .map(|column| {
            let name = column.clone();
            let label = column.clone();
            view! {
                <td class="wide-cell" data-label=label><input type="text" aria-label=format!("{column} template") data-test="entity-key"
                    prop:value=move || entity().and_then(|x| x.keys.iter().find(|(n, _, _)| *n == name).map(|(_, t, s)| markdown::template_cell_text(t, *s))).unwrap_or_default()
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        let column = column.clone();
                        set(Box::new(move |x| {
                            x.keys.retain(|(n, _, _)| *n != column);
                            if !text.trim().is_empty() {
                                let (template, share) = markdown::template_cell(&text).map_err(|e| format!("{column}: {e}"))?;
                                x.keys.push((column, template, share));
                            }
                            Ok(())
                        }));
                    }/></td>
            }
        })
        .collect_view();
    view! {
        <tr data-test="entity-row">
            <td class="wide-cell" data-label="Entity"><input type="text" aria-label="Entity" data-test="entity-name" prop:value=move || entity().map(|x| x.name).unwrap_or_default()
                on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |x| { x.name = v; Ok(()) })); }/></td>
            {cells}
            {count_cell("Items", |x| x.items, |x, v| x.items = v)}
            {count_cell("Per collection", |x| x.per_collection, |x, v| x.per_collection = v)}
            <td class="narrow-cell" data-label="Size"><input type="text" class="narrow" aria-label="Size" placeholder="1 KB"
                prop:value=move || entity().and_then(|x| x.size).map(|n| format!("{n} B")).unwrap_or_default()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    set(Box::new(move |x| {
                        x.size = if text.trim().is_empty() { None } else { Some(markdown::bytes(&text).ok_or_else(|| format!("`{text}` is not a size such as 2 KB (at most 400 KB)"))?) };
                        Ok(())
                    }));
                }/></td>
            <td class="narrow-cell" data-label="Skew"><input type="text" class="narrow" aria-label="Skew" data-test="entity-skew" placeholder="—"
                prop:value=move || entity().and_then(|x| x.skew).map(|share| format!("{}%", (share * 1000.0).round() / 10.0)).unwrap_or_default()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    set(Box::new(move |x| {
                        x.skew = if text.trim().is_empty() { None } else { Some(markdown::percentage(&text).ok_or_else(|| format!("`{text}` is not a share of the items, such as 40%"))?) };
                        Ok(())
                    }));
                }/></td>
            <td class="full-cell" data-label="Attributes"><input type="text" aria-label="Attributes" data-test="entity-attributes" placeholder="email=<userId>@example.com, total=42.5"
                prop:value=move || entity().map(|x| markdown::attributes_text(&x.attributes)).unwrap_or_default()
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    set(Box::new(move |x| { x.attributes = markdown::read_attributes(&text)?; Ok(()) }));
                }/></td>
            <td class="full-cell" data-label="Notes"><input type="text" aria-label="Notes" prop:value=move || entity().map(|x| x.notes).unwrap_or_default()
                on:change=move |ev| { let v = event_target_value(&ev); set(Box::new(move |x| { x.notes = v; Ok(()) })); }/></td>
            <td class="actions-cell"><button class="link" aria-label="Remove this entity" on:click=move |_| {
                ctx.edit(move |d| { let entry = table_entry(d, &table.try_get_value().unwrap_or_default()); if e < entry.entities.len() { entry.entities.remove(e); } });
            }>"Remove"</button></td>
        </tr>
    }
}

/// Items pasted into a table: a JSON array, DynamoDB JSON, or rows from a spreadsheet (CSV with a
/// header row, or tab-separated).
#[component]
fn PasteItems(ctx: Ctx) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let text = RwSignal::new(String::new());
    let target = RwSignal::new(String::new());
    let add = move |_| {
        let table = target.get_untracked();
        let table = if table.is_empty() { state::table_names().into_iter().next() } else { Some(table) };
        let text = text.get_untracked();
        leptos::task::spawn_local(async move {
            let said = state::done(Ask::Load(Load::Fixture { text, table })).await;
            ui.say(&said);
            ctx.prove();
        });
    };
    view! {
        <section class="card" aria-label="Paste items">
            <h3>"Paste items"</h3>
            <p class="muted">"A JSON array of items (plain or DynamoDB JSON), a BatchWriteItem request, or rows copied from a spreadsheet: CSV or tab-separated, with a header row of attribute names (a number column stays text when its header says name (S))."</p>
            <label>"Into "
                <select data-test="paste-items-table" on:change=move |ev| target.set(event_target_value(&ev))>
                    {move || state::table_names().into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
                </select>
            </label>
            <textarea class="code" rows="5" spellcheck="false" aria-label="Items" data-test="paste-items"
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <button on:click=add data-test="add-items">"Add these items"</button>
        </section>
    }
}

/// Alternatives: the design duplicated, then changed and compared side by side.
#[component]
fn Alternatives(ctx: Ctx) -> impl IntoView {
    let names = move || ctx.studio.with(|s| s.alternatives.iter().map(|a| a.name.clone()).collect::<Vec<_>>());
    let duplicate = move |_| {
        ctx.edit_studio(|s| {
            let mut copy = s.current.clone();
            copy.name = format!(
                "{} (alternative {})",
                if copy.name.is_empty() { "design" } else { &copy.name },
                s.alternatives.len() + 1
            );
            s.alternatives.push(copy);
        });
    };
    let compare = move |index: usize| {
        ctx.comparison.set(None);
        leptos::task::spawn_local(async move {
            ctx.flush().await;
            let answer = client::ask(Ask::CompareAlternative { index }).await;
            ctx.comparison.try_set(Some(match answer {
                Answer::Comparison(c) => c,
                other => Err(vec![format!("The engine's worker answered {other:?}")]),
            }));
        });
    };
    view! {
        <section class="card" aria-label="Alternatives">
            <h3>"Alternatives"</h3>
            <p class="muted">"Duplicate the design, switch to the copy and change it; compare shows each pattern's call, units, cost and verdict side by side, both proved on this workspace's tables and items."</p>
            <ul data-test="alternatives">
                {move || names().into_iter().enumerate().map(|(index, name)| view! {
                    <li data-test="alternative">
                        <span>{name}</span>" "
                        <button data-test="compare-alternative" on:click=move |_| compare(index)>"Compare with the design"</button>
                        <button data-test="switch-alternative" on:click=move |_| ctx.edit_studio(move |s| {
                            if index < s.alternatives.len() { std::mem::swap(&mut s.current, &mut s.alternatives[index]); }
                        })>"Edit this one (the design becomes the alternative)"</button>
                        <button class="link" on:click=move |_| ctx.edit_studio(move |s| { if index < s.alternatives.len() { s.alternatives.remove(index); } })>"Remove"</button>
                    </li>
                }).collect_view()}
            </ul>
            <button on:click=duplicate data-test="duplicate-design">"Duplicate as an alternative"</button>
            {move || ctx.comparison.get().map(|c| match c {
                Ok(compared) => {
                    let ComparisonView { names: (a, b), rows, totals, .. } = compared;
                    view! {
                        <div data-test="studio-comparison">
                            <p data-test="studio-compare-totals"><strong>{totals}</strong></p>
                            <div class="grid-wrap"><table class="verdicts">
                                <thead><tr><th>"#"</th><th>{format!("A: {a}")}</th><th>{format!("B: {b}")}</th></tr></thead>
                                <tbody>{rows.into_iter().map(|(id, x, y)| view! { <tr data-test="studio-compare-row"><td>{id}</td><td>{x}</td><td>{y}</td></tr> }).collect_view()}</tbody>
                            </table></div>
                        </div>
                    }.into_any()
                }
                Err(problems) => view! { <div class="field-error" role="alert"><ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul></div> }.into_any(),
            })}
        </section>
    }
}

/// A console request (or history entry) added to the workspace design's inventory: its call made
/// from what it ran, its values kept as the pattern's inputs. What to tell the user.
pub async fn save_as_pattern(operation: &str, request: &str) -> Result<String, String> {
    let value: serde_json::Value =
        serde_json::from_str(request).map_err(|e| format!("The request is not JSON ({e}): nothing was saved."))?;
    let (table, mut call) = calls::from_request(operation, &value)?;
    let mut studio = client::with_facts(|f| f.studio.clone());
    let id = next_id(&studio.current);
    call.id = id.clone();
    let write = !matches!(call.operation.as_str(), "GetItem" | "Query" | "Scan" | "BatchGetItem" | "TransactGetItems");
    let consistency = if call.operation.starts_with("Transact") {
        Consistency::Transactional
    } else if value.get("ConsistentRead").and_then(serde_json::Value::as_bool) == Some(true) {
        Consistency::Strong
    } else {
        Consistency::Eventual
    };
    let index = call.index.clone();
    studio.current.inventory.push(InventoryRow {
        id: id.clone(),
        pattern: format!("{} on {}{}", call.operation, table, index.map_or(String::new(), |i| format!(" ({i})"))),
        kind: if write { PatternKind::Write } else { PatternKind::Read },
        key_inputs: String::new(),
        sort_filter: String::new(),
        peak_rps: None,
        avg_rps: None,
        consistency: Some(consistency),
    });
    set_call(&mut studio.current, &id, &table, Some(call));
    match client::ask(Ask::SetStudio { studio }).await {
        Answer::Design(_) => {
            Ok(format!("Saved as pattern {id} in the Design tab: give it a name and its peak rate there."))
        }
        other => Err(format!("The engine's worker answered {other:?}")),
    }
}
