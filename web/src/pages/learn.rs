//! Learn: guided workshops and design challenges (packs, docs/pack.md), judged in the engine's
//! worker by the same lab functions `dynalab pack check` and `dynalab check SOLUTION --pack` use — so a grade here
//! is the grade on the command line.

use crate::components::markdown::Markdown;
use crate::state::{self, Tab, Ui};
use crate::worker::protocol::GradeView;
use crate::worker::protocol::{Answer, Ask};
use dynalab_engine::Operation;
use dynalab_lab::pack::workshop::CheckResult;
use dynalab_lab::pack::{Pack, PackKind, Rule};
use leptos::prelude::*;
use serde_json::{json, Value};
use std::cell::RefCell;

/// The packs shipped with the playground (also in `packs/` beside it, for `?pack=`).
const SHIPPED: [&str; 7] = [
    include_str!("../../../packs/intro.json"),
    include_str!("../../../packs/writes.json"),
    include_str!("../../../packs/scale.json"),
    include_str!("../../../packs/vectors.json"),
    include_str!("../../../packs/cart.json"),
    include_str!("../../../packs/payments.json"),
    include_str!("../../../packs/leaderboard.json"),
];

thread_local! {
    static PACKS: RefCell<Vec<Pack>> = RefCell::new(SHIPPED.iter().filter_map(|t| Pack::parse(t).ok()).collect());
}

pub fn packs() -> Vec<Pack> {
    PACKS.with(|p| p.borrow().clone())
}

fn pack(id: &str) -> Option<Pack> {
    PACKS.with(|p| p.borrow().iter().find(|p| p.id == id).cloned())
}

/// Adds (or replaces, by id) a pack opened from a URL.
pub fn add(pack: Pack) {
    PACKS.with(|packs| {
        let mut packs = packs.borrow_mut();
        packs.retain(|p| p.id != pack.id);
        packs.push(pack);
    });
}

/// A parameter of the page's URL (`?pack=...`).
pub fn url_param(name: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok())
        .and_then(|params| params.get(name))
}

/// Whether the page is embedded (`?embed=1`): one step or one pattern, no workspace of its own.
pub fn embedded() -> bool {
    thread_local! {
        static EMBEDDED: bool = url_param("embed").is_some();
    }
    EMBEDDED.with(|e| *e)
}

/// Opens `?pack=URL` on the Learn tab, or `?workbook=URL` on the Patterns tab (relative to the
/// page, so a site under any path works), fetched and checked first.
pub fn open_from_url(ui: Ui) {
    if let Some(url) = url_param("workbook") {
        leptos::task::spawn_local(async move {
            match fetch_text(&url).await {
                Ok(text) => {
                    crate::pages::patterns::set_draft(text);
                    ui.workbook_opened.set(Some(url));
                    ui.tab.set(Tab::Patterns);
                }
                Err(e) => ui.tell(false, format!("The workbook at {url} was not opened: {e}")),
            }
        });
    }
    let Some(url) = url_param("pack") else {
        return;
    };
    leptos::task::spawn_local(async move {
        match fetch_text(&url).await.and_then(|text| Pack::parse(&text).map_err(|p| p.join("; "))) {
            Ok(pack) => {
                let id = pack.id.clone();
                add(pack);
                ui.learn_pack.set(Some(id));
                ui.tab.set(Tab::Learn);
            }
            Err(e) => ui.tell(false, format!("The pack at {url} was not opened: {e}")),
        }
    });
}

async fn fetch_text(url: &str) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| "it could not be fetched")?;
    let response: web_sys::Response = wasm_bindgen::JsCast::dyn_into(response).map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let text = wasm_bindgen_futures::JsFuture::from(response.text().map_err(|_| "no body")?)
        .await
        .map_err(|_| "unreadable body")?;
    text.as_string().ok_or_else(|| "not text".into())
}

fn progress_of(id: &str) -> dynalab_lab::workspace::PackProgress {
    state::progress_of(id)
}

/// Changes a pack's progress; the worker keeps it with the workspace.
fn update_progress(ui: Ui, id: &str, f: impl FnOnce(&mut dynalab_lab::workspace::PackProgress)) {
    let mut progress = state::progress_of(id);
    f(&mut progress);
    let id = id.to_string();
    leptos::task::spawn_local(async move {
        if let Err(e) = state::done(Ask::SetProgress { id, progress }).await {
            ui.tell(false, format!("Progress not kept: {e}"));
        }
    });
}

#[component]
pub fn LearnPage() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let list = move || {
        ui.version.get();
        let all = packs();
        let entry = move |p: &Pack| {
            let id = p.id.clone();
            let progress = progress_of(&id);
            let status = match p.kind {
                PackKind::Workshop => format!("{} of {} steps", progress.passed.len(), p.steps.len()),
                PackKind::Challenge => progress.best_score.map_or("not graded yet".into(), |s| format!("best {s}/100")),
            };
            let selected = id.clone();
            view! {
                <li>
                    <button class="link" aria-current=move || (ui.learn_pack.get().as_deref() == Some(selected.as_str())).to_string()
                        on:click=move |_| ui.learn_pack.set(Some(id.clone())) data-test=format!("pack-{}", p.id)>{p.title.clone()}</button>
                    <span class="muted">" — "{status}</span>
                </li>
            }
        };
        let workshops = all.iter().filter(|p| p.kind == PackKind::Workshop).map(entry).collect_view();
        let challenges = all.iter().filter(|p| p.kind == PackKind::Challenge).map(entry).collect_view();
        view! {
            <nav class="pack-list" aria-label="Workshops and challenges">
                <h2>"Workshops"</h2><ul>{workshops}</ul>
                <h2>"Design challenges"</h2><ul>{challenges}</ul>
                <p class="muted">"Formats: "<a href="docs/pack.md">"packs"</a>", "<a href="docs/workbook.md">"workbooks"</a>"."</p>
            </nav>
        }
    };
    let shown = move || {
        let Some(pack) = ui.learn_pack.get().and_then(|id| pack(&id)) else {
            return view! { <p class="muted">"Choose a workshop to be guided step by step, or a challenge to design a table and have it graded."</p> }.into_any();
        };
        match pack.kind {
            PackKind::Workshop => view! { <WorkshopView pack=pack/> }.into_any(),
            PackKind::Challenge => view! { <ChallengeView pack=pack/> }.into_any(),
        }
    };
    view! { <div class="learn">{list}<section class="pack" aria-live="polite">{shown}</section></div> }
}

#[component]
fn WorkshopView(pack: Pack, #[prop(optional)] only_step: Option<String>) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let first_open = match only_step.as_ref().and_then(|id| pack.steps.iter().position(|s| &s.id == id)) {
        Some(chosen) => chosen,
        None => {
            let passed = progress_of(&pack.id).passed;
            pack.steps.iter().position(|s| !passed.contains(&s.id)).unwrap_or(0)
        }
    };
    let embedded_step = only_step.is_some();
    let index = RwSignal::new(first_open);
    // Opened before the saved progress was back: go to the first open step once it is, unless
    // the learner chose a step meanwhile.
    if !ui.ready.get_untracked() && !embedded_step {
        let (pack_id, chosen) = (pack.id.clone(), first_open);
        let steps: Vec<String> = pack.steps.iter().map(|s| s.id.clone()).collect();
        Effect::new(move |_| {
            if ui.ready.get() && index.get_untracked() == chosen {
                let passed = progress_of(&pack_id).passed;
                index.set(steps.iter().position(|s| !passed.contains(s)).unwrap_or(0));
            }
        });
    }
    let results = RwSignal::new(None::<Vec<CheckResult>>);
    // The request's units against the step's budget, when the step has one.
    let picture = RwSignal::new(None::<String>);
    let hints = RwSignal::new(0usize);
    let operation = RwSignal::new(String::new());
    let request = RwSignal::new(String::new());
    let pack = StoredValue::new(pack);
    // A parsed workshop has at least one step (`Pack::parse` refuses one without).
    let step = move || pack.with_value(|p| p.steps[index.get().min(p.steps.len().saturating_sub(1))].clone());
    let prefill = move || {
        let step = step();
        let op = step.solution.last().and_then(|c| c.operation.clone()).unwrap_or_else(|| "Query".into());
        let table = state::table_names().into_iter().next();
        operation.set(op.clone());
        request.set(crate::pages::console::template(&op, table));
        results.set(None);
        hints.set(0);
    };
    let begin = move |_| {
        let at = index.get_untracked();
        let text = pack.with_value(|p| serde_json::to_string(p).unwrap_or_default());
        let before = request.get_untracked();
        leptos::task::spawn_local(async move {
            let said = state::done(Ask::StartStep { pack: text, step: at }).await;
            if said.is_ok() {
                ui.selected_table.set(state::table_names().into_iter().next());
                // A request written (or a solution shown) meanwhile is the learner's: kept.
                if request.try_get_untracked().as_ref() == Some(&before) {
                    prefill();
                }
            }
            ui.say(&said);
        });
    };
    // Judges `step` of pack `id`: both taken before any await, so a page redrawn or left
    // meanwhile (its signals gone) still records the progress and never reads a disposed value.
    let judge_step = move |step: dynalab_lab::pack::Step, id: String| {
        leptos::task::spawn_local(async move {
            let Answer::Verdicts { results: verdicts, picture: drawn } =
                crate::client::ask(Ask::Judge { step: step.clone() }).await
            else {
                return ui.tell(false, "The step could not be judged.");
            };
            picture.try_set(drawn);
            if verdicts.iter().all(|r| r.passed) {
                let step_id = step.id.clone();
                update_progress(ui, &id, |p| {
                    if !p.passed.contains(&step_id) {
                        p.passed.push(step_id);
                    }
                });
            }
            results.try_set(Some(verdicts));
        });
    };
    let check_last = move || judge_step(step(), pack.with_value(|p| p.id.clone()));
    let run_and_check = move |_| {
        let (op, body) = (operation.get_untracked(), request.get_untracked());
        let (judged, id) = (step(), pack.with_value(|p| p.id.clone()));
        let expected: Vec<String> = judged
            .checks
            .iter()
            .filter_map(|c| if let Rule::Error(name) = &c.rule { Some(name.clone()) } else { None })
            .collect();
        leptos::task::spawn_local(async move {
            let outcome = state::run(&op, &body, true).await;
            match &outcome.response {
                // The refusal this step asks for is good news, not a red banner.
                Err(e) if expected.contains(&e.name) => {
                    ui.tell(true, format!("{}, as this step expects: {}", e.name, e.message));
                }
                Err(e) => {
                    // The step's text describes tables this workspace may not hold yet: say what to press.
                    let missing = e.name == "ResourceNotFoundException";
                    let hint = if missing {
                        " — this step's tables are not in the workspace yet: press “Load this step's tables”, then run again"
                    } else {
                        ""
                    };
                    ui.tell(false, format!("{}: {}{hint}", e.name, e.message));
                }
                Ok(_) => {}
            }
            judge_step(judged, id);
        });
    };
    let show_solution = move |_| {
        let step = step();
        if let Some(Ok((op, body))) = step.solution.last().map(|c| c.resolve(&serde_json::Map::new())) {
            operation.set(op);
            request.set(serde_json::to_string_pretty(&body).unwrap_or_default());
        }
    };
    let options = Operation::ALL.iter().map(|op| view! { <option value=op.name()>{op.name()}</option> }).collect_view();
    let steps_nav = move || {
        ui.version.get();
        let passed = progress_of(&pack.with_value(|p| p.id.clone())).passed;
        pack.with_value(|p| {
            p.steps
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let done = passed.contains(&s.id);
                    view! {
                        <li>
                            <button class="link" aria-current=move || (index.get() == i).to_string()
                                on:click=move |_| { index.set(i); results.set(None); hints.set(0); }>
                                {format!("{}. {}{}", i + 1, s.title, if done { " ✓" } else { "" })}
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <h2>{pack.with_value(|p| p.title.clone())}</h2>
        {(!embedded_step).then(|| view! { <ol class="steps" data-test="steps">{steps_nav}</ol> })}
        {move || {
            let s = step();
            let total_hints = s.hints.len();
            let hints_shown: Vec<String> = s.hints.iter().take(hints.get()).cloned().collect();
            let all_hints_shown = move || hints.get() >= total_hints;
            view! {
                <article class="step" data-test="step">
                    <h3>{s.title.clone()}</h3>
                    <Markdown text=s.text.clone()/>
                    <p><button on:click=begin data-test="start-step">"Load this step's tables"</button></p>
                    <h4>"Your task"</h4>
                    <Markdown text=s.task.clone()/>
                    <div class="row">
                        <label>"Operation "
                            <select prop:value=move || operation.get() on:change=move |ev| operation.set(event_target_value(&ev)) data-test="step-operation">
                                {options.clone()}
                            </select>
                        </label>
                    </div>
                    <label class="block">"Request (DynamoDB JSON)"
                        <textarea rows="10" spellcheck="false" prop:value=move || request.get()
                            on:input=move |ev| request.set(event_target_value(&ev)) data-test="step-request"></textarea>
                    </label>
                    <div class="row">
                        <button class="primary" on:click=run_and_check data-test="run-and-check">"Run and check"</button>
                        <button on:click=move |_| check_last() data-test="check-last">"Check my last console request"</button>
                        <button on:click=move |_| hints.update(|h| *h = (*h + 1).min(total_hints)) disabled=all_hints_shown>
                            {move || format!("Hint ({} of {total_hints})", hints.get())}</button>
                        <button on:click=show_solution data-test="show-solution">"Show the solution"</button>
                    </div>
                    <ul class="hints">{hints_shown.into_iter().map(|h| view! { <li><Markdown text=h/></li> }).collect_view()}</ul>
                </article>
            }
        }}
        {move || results.get().map(|checks| {
            let all = checks.iter().all(|r| r.passed);
            let (steps, at) = (pack.with_value(|p| p.steps.len()), index.get_untracked());
            let next = (all && !embedded_step && at + 1 < steps).then(|| view! {
                <button class="primary" data-test="next-step"
                    on:click=move |_| { index.set(at + 1); results.set(None); hints.set(0); }>"Next step"</button>
            });
            view! {
                <section class=if all { "checks ok" } else { "checks bad" } data-test="checks">
                    <h4>{if all { "Every check passes: step done." } else { "Not yet:" }}</h4>
                    // The progress is kept by the worker, which answers after the checks show.
                    {move || {
                        ui.version.get();
                        let whole = all && progress_of(&pack.with_value(|p| p.id.clone())).passed.len() >= steps;
                        (whole && !embedded_step).then(|| view! {
                            <p data-test="workshop-complete"><strong>"Workshop complete: every step done."</strong></p>
                        })
                    }}
                    {next}
                    {move || picture.get().map(|svg| view! { <figure class="picture" data-test="units-picture" inner_html=svg></figure> })}
                    <ul>{checks.into_iter().map(|r| view! {
                        <li data-test=format!("check-{}", r.id) data-passed=r.passed.to_string()>
                            {if r.passed { "✓ " } else { "✗ " }}<strong>{r.id.clone()}</strong>": "{r.found.clone()}
                            {(!r.passed && !r.why.is_empty()).then(|| view! { <div class="muted">{r.why.clone()}</div> })}
                        </li>
                    }).collect_view()}</ul>
                </section>
            }
        })}
    }
}

#[component]
fn ChallengeView(pack: Pack) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let id = pack.id.clone();
    // Graded in the engine's worker, which reads the pack as JSON.
    let pack_text = StoredValue::new(serde_json::to_string(&pack).unwrap_or_default());
    let Some(challenge) = pack.challenge.clone() else {
        return view! { <p>"No challenge in this pack."</p> }.into_any();
    };
    let starter = {
        let mapping: serde_json::Map<String, Value> =
            challenge.entities.keys().map(|e| (e.clone(), json!([{"table": "", "item": {}}]))).collect();
        let patterns: serde_json::Map<String, Value> =
            challenge.patterns.iter().map(|p| (p.id.clone(), json!([{"operation": "Query", "request": {}}]))).collect();
        serde_json::to_string_pretty(&json!({"format": "dynalab-solution/1", "challenge": id, "tables": [], "mapping": mapping, "patterns": patterns}))
            .unwrap_or_default()
    };
    let text = RwSignal::new(progress_of(&id).solution.unwrap_or(starter));
    // The challenge in the studio: its patterns become the design's inventory; graded there.
    let solve_in_studio = {
        let challenge = challenge.clone();
        let id = id.clone();
        move |_| {
            let mut studio = crate::client::with_facts(|f| f.studio.clone());
            let replacing = !studio.current.inventory.is_empty();
            if replacing
                && !web_sys::window()
                    .and_then(|w| w.confirm_with_message("The Design tab's design is replaced by this challenge's patterns (its alternatives are kept). Go on?").ok())
                    .unwrap_or(false)
            {
                return;
            }
            studio.current = dynalab_lab::design::Design {
                name: format!("Challenge: {id}"),
                inventory: challenge
                    .patterns
                    .iter()
                    .map(|p| dynalab_lab::design::InventoryRow {
                        id: p.id.clone(),
                        pattern: p.description.clone(),
                        kind: p.kind,
                        key_inputs: p
                            .tests
                            .first()
                            .map(|t| t.parameters.keys().cloned().collect::<Vec<_>>().join(", "))
                            .unwrap_or_default(),
                        sort_filter: String::new(),
                        peak_rps: Some(p.peak_rps),
                        avg_rps: None,
                        consistency: Some(p.consistency),
                    })
                    .collect(),
                ..dynalab_lab::design::Design::default()
            };
            studio.challenge =
                Some(dynalab_lab::workspace::StudioChallenge { id: id.clone(), pack: pack_text.get_value() });
            leptos::task::spawn_local(async move {
                let _ = crate::client::ask(Ask::SetStudio { studio }).await;
                ui.tab.set(crate::state::Tab::Design);
                ui.tell(true, "The challenge's patterns are the Design tab's inventory: create its tables in the Tables tab, map each entity's records in a layout, choose each call, then Grade.");
            });
        }
    };
    let graded = RwSignal::new(None::<Result<GradeView, Vec<String>>>);
    let challenge = StoredValue::new(challenge);
    let pack_id = StoredValue::new(id);
    let run_grade = move |_| {
        let solution_text = text.get_untracked();
        let ask = Ask::Grade { pack: pack_text.get_value(), solution: solution_text.clone() };
        leptos::task::spawn_local(async move {
            let result = match crate::client::ask(ask).await {
                Answer::Graded(result) => result,
                other => Err(vec![format!("The engine's worker answered {other:?}")]),
            };
            let score = result.as_ref().ok().map(|g| g.score);
            update_progress(ui, &pack_id.get_value(), |p| {
                p.solution = Some(solution_text);
                if let Some(score) = score {
                    p.best_score = Some(p.best_score.map_or(score, |b| b.max(score)));
                }
            });
            graded.try_set(Some(result));
        });
    };
    let export = move |_| {
        let name = format!("{}-solution.json", pack_id.get_value());
        if !crate::storage::download(&name, "application/json", &text.get_untracked()) {
            ui.tell(false, "The browser refused the download.");
        }
    };
    let naive = move |_| {
        if let Some(first) = challenge.with_value(|c| c.naive.first().map(|n| n.solution.clone())) {
            text.set(serde_json::to_string_pretty(&first).unwrap_or_default());
        }
    };
    let entities = challenge.with_value(|c| {
        c.entities
            .iter()
            .map(|(name, entity)| {
                let records = serde_json::to_string_pretty(&entity.records).unwrap_or_default();
                view! { <details><summary>{format!("{name} ({} records, named by {})", entity.records.len(), entity.id)}</summary><pre>{records}</pre></details> }
            })
            .collect_view()
    });
    let patterns = challenge.with_value(|c| {
        c.patterns
            .iter()
            .map(|p| {
                let tests: Vec<String> = p
                    .tests
                    .iter()
                    .map(|t| {
                        let answer = t.error.clone().map_or_else(
                            || {
                                format!(
                                    "[{}]{}",
                                    t.expect.clone().unwrap_or_default().join(", "),
                                    if t.ordered { " in order" } else { "" }
                                )
                            },
                            |e| format!("fails with {e}"),
                        );
                        format!("{} → {answer}", Value::Object(t.parameters.clone()))
                    })
                    .collect();
                view! {
                    <tr>
                        <td>{p.id.clone()}</td><td>{p.description.clone()}</td>
                        <td>{format!("{:?}, {} req/s, {:?}", p.kind, p.peak_rps, p.consistency).to_lowercase()}</td>
                        <td>{p.max_units.map_or("—".into(), |m| m.to_string())}</td>
                        <td>{tests.join("; ")}</td>
                    </tr>
                }
            })
            .collect_view()
    });
    view! {
        <h2>{pack.title.clone()}</h2>
        <Markdown text=challenge.with_value(|c| c.brief.clone())/>
        <h3>"Sample records"</h3>
        {entities}
        <h3>"Access patterns"</h3>
        <div class="table-scroll"><table>
            <thead><tr><th>"id"</th><th>"pattern"</th><th>"kind, peak rate, consistency"</th><th>"unit budget"</th><th>"inputs → expected answer"</th></tr></thead>
            <tbody>{patterns}</tbody>
        </table></div>
        <h3>"Your solution"</h3>
        <p class="muted">"Tables (CreateTable requests), a mapping from each entity's records to items (templates like "<code>"USER#{userId}"</code>"), and one request per pattern ("<code>"{{name}}"</code>" is each input). See "<a href="docs/pack.md">"the format"</a>"."</p>
        <label class="block">"Solution (dynalab-solution/1)"
            <textarea rows="18" spellcheck="false" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev)) data-test="solution"></textarea>
        </label>
        <div class="row">
            <button class="primary" on:click=run_grade data-test="grade">"Grade"</button>
            <button on:click=export data-test="export-solution">"Export solution"</button>
            <button on:click=naive data-test="naive">"Start from a naive attempt"</button>
            <button on:click=solve_in_studio data-test="solve-in-studio" title="Tables from the Tables form, the mapping as entity layouts and each call chosen with controls">"Solve it in the Design tab"</button>
        </div>
        <p class="muted">{format!("The same grade on the command line: dynalab check {}-solution.json --pack packs/{}.json", pack.id, pack.id)}</p>
        {move || graded.get().map(|result| view! { <GradeResult result/> })}
    }
    .into_any()
}

/// A challenge's grade: the score, each pattern's verdict, call, units, answers and points, and why.
#[component]
pub fn GradeResult(result: Result<GradeView, Vec<String>>) -> impl IntoView {
    match result {
        Err(problems) => view! {
            <section class="checks bad" data-test="grade-result"><h4>"The solution does not run:"</h4>
                <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul></section>
        }
        .into_any(),
        Ok(grade) => {
            let pass = grade.passed;
            let rows = grade
                .patterns
                .iter()
                .map(|p| {
                    view! {
                        <tr data-test=format!("grade-{}", p.id) data-verdict=p.verdict.clone()>
                            <td data-label="pattern">{p.id.clone()}</td><td data-label="verdict">{p.verdict.clone()}</td>
                            <td data-label="call" class="nowrap">{p.operation.clone()}</td>
                            <td data-label="units">{p.units.to_string()}</td><td data-label="answers">{p.answers.clone()}</td>
                            <td data-label="points">{p.points.clone()}</td><td data-label="why" class="why">{p.reasons.clone()}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <section class=if pass { "checks ok" } else { "checks bad" } data-test="grade-result">
                    <h4 data-test="score">{format!("{} — {}/100", if pass { "Passed" } else { "Not yet" }, grade.score)}</h4>
                    {(!grade.notes.is_empty()).then(|| view! { <ul class="muted">{grade.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul> })}
                    <div class="table-scroll"><table class="verdicts grade">
                        <thead><tr><th>"pattern"</th><th>"verdict"</th><th>"call"</th><th>"units"</th><th>"answers"</th><th>"points"</th><th>"why"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table></div>
                    <crate::components::pictures::Pictures drawn=grade.pictures.clone()/>
                </section>
            }.into_any()
        }
    }
}

/// The page when embedded (`?embed=1&pack=URL&step=ID`, or `?embed=1&workbook=URL&pattern=ID`):
/// one step or one pattern, compact, with a link to open it in the full playground.
#[component]
pub fn Embed() -> impl IntoView {
    let ui = expect_context::<Ui>();
    let full = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|href| href.replace("embed=1&", "").replace("&embed=1", "").replace("?embed=1", "?"))
        .unwrap_or_default();
    let step = url_param("step");
    let pattern = url_param("pattern");
    // Not on `ui.version`: a run inside the step must not rebuild the step (and lose its checks).
    let body = move || {
        if let Some(id) = pattern.clone() {
            return view! { <EmbeddedPattern id=id/> }.into_any();
        }
        match ui.learn_pack.get().and_then(|id| pack(&id)) {
            Some(pack) if pack.kind == PackKind::Workshop => {
                view! { <WorkshopView pack=pack only_step=step.clone().unwrap_or_default()/> }.into_any()
            }
            Some(pack) => view! { <ChallengeView pack=pack/> }.into_any(),
            // Nothing named to show, or what was named could not be opened: say so, never wait.
            None if url_param("pack").is_none() => view! {
                <p class="notice bad" role="status" data-test="embed-empty">
                    "Nothing to show here: an embedded Dynalab needs "<code>"?embed=1&pack=URL"</code>" (with "
                    <code>"&step=ID"</code>") or "<code>"?embed=1&workbook=URL&pattern=ID"</code>"."
                </p>
            }
            .into_any(),
            None => match ui.notice.get() {
                Some((false, refused)) => {
                    view! { <p class="notice bad" role="status" data-test="embed-empty">{refused}</p> }.into_any()
                }
                _ => view! { <p class="muted">"Loading…"</p> }.into_any(),
            },
        }
    };
    view! {
        <div class="embed" data-test="embed">
            <p class="embed-bar"><strong>"Dynalab"</strong>" · "<a href=full target="_blank" rel="noopener" data-test="open-full">"Open in Dynalab"</a></p>
            <section class="pack">{body}</section>
        </div>
    }
}

/// One pattern of the workbook `?workbook=URL`: its request, and its verdict, units and cost when run.
#[component]
fn EmbeddedPattern(id: String) -> impl IntoView {
    let ui = expect_context::<Ui>();
    let result = RwSignal::new(None::<Result<crate::worker::protocol::PatternView, String>>);
    let id = StoredValue::new(id);
    let run = move |_| {
        let text = crate::pages::patterns::draft();
        leptos::task::spawn_local(async move {
            let outcome = match crate::client::ask(Ask::CheckDesign { text }).await {
                Answer::Design(Ok(design)) => design
                    .patterns
                    .into_iter()
                    .find(|p| p.id == id.get_value())
                    .ok_or_else(|| "no such pattern".to_string()),
                Answer::Design(Err(problems)) => Err(problems.join("; ")),
                other => Err(format!("The engine's worker answered {other:?}")),
            };
            result.set(Some(outcome));
        });
    };
    view! {
        {move || {
            ui.workbook_opened.get();
            let text = crate::pages::patterns::draft();
            let workbook = dynalab_lab::workbook::Workbook::read(&text).ok();
            let found = workbook.as_ref().and_then(|w| w.patterns.iter().find(|p| p.id == id.get_value()).cloned());
            match found {
                None => view! { <p class="muted">"Loading the pattern…"</p> }.into_any(),
                Some(p) => {
                    let requests = serde_json::to_string_pretty(&p.requests).unwrap_or_default();
                    view! {
                        <h2>{format!("{} — {}", p.id, p.description)}</h2>
                        <pre>{requests}</pre>
                    }.into_any()
                }
            }
        }}
        <button class="primary" on:click=run data-test="run-pattern">"Run it"</button>
        {move || result.get().map(|r| match r {
            Err(e) => view! { <p class="status bad">{e}</p> }.into_any(),
            Ok(p) => view! {
                <p data-test="pattern-verdict">{format!("{}: {} — {} RCU, {} WCU per request; ${:.2} a month at {} requests/s", p.verdict, p.operation, p.read_units, p.write_units, p.monthly_at_peak, p.peak_rps)}</p>
                <ul>{p.reasons.into_iter().map(|r| view! { <li>{r}</li> }).collect_view()}</ul>
            }.into_any(),
        })}
    }
}
