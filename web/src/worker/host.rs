//! The worker's message loop: questions are answered one at a time, in the order they came (a
//! request sent while the saved workspace is being restored runs after it); a load runs beside
//! the queue, answering when it ends, and a Cancel is heard at once.

use super::lab::{self, with_lab};
use super::protocol::{encode, Answer, Ask, Event, Facts, Form, FromWorker, HistoryChange, ToWorker};
use super::{load, save};
use dynalab_lab::pack::workshop::{judge, start as start_step};
use dynalab_lab::pack::{Pack, Rule};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

thread_local! {
    static QUEUE: RefCell<VecDeque<(u64, Ask)>> = const { RefCell::new(VecDeque::new()) };
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    /// The facts last sent, so an unchanged lab is not sent again.
    static SENT: RefCell<Option<Facts>> = const { RefCell::new(None) };
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Sends a message to the page.
pub fn post(message: &FromWorker) {
    let _ = scope().post_message(&encode(message).into());
}

/// Tells the page what the views draw from, when it changed; and schedules a save when the
/// workspace did.
pub fn send_facts() {
    let facts = lab::facts();
    let changed = SENT.with(|sent| {
        let mut sent = sent.borrow_mut();
        let changed = sent.as_ref().is_none_or(|old| !same(old, &facts));
        if changed {
            *sent = Some(facts.clone());
        }
        changed
    });
    if changed {
        post(&FromWorker::Event(Event::Facts(facts)));
    }
}

fn same(a: &Facts, b: &Facts) -> bool {
    a.tables == b.tables
        && a.progress == b.progress
        && a.studio == b.studio
        && a.advanced_ms == b.advanced_ms
        && a.loading == b.loading
        && a.epoch == b.epoch
}

/// Starts listening: the worker's entry point (from `main`, when there is no window).
pub fn start() {
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
        let Some(text) = event.data().as_string() else { return };
        match serde_json::from_str::<ToWorker>(&text) {
            Ok(ToWorker::Cancel) => load::cancel(),
            Ok(ToWorker::Ask { id, ask: super::protocol::Ask::Load(job) }) => {
                wasm_bindgen_futures::spawn_local(async move {
                    let result = load::run(job).await;
                    after_change();
                    post(&FromWorker::Answer { id, answer: Answer::Done(result) });
                });
            }
            Ok(ToWorker::Ask { id, ask }) => {
                QUEUE.with(|q| q.borrow_mut().push_back((id, ask)));
                drain();
            }
            Err(e) => post(&FromWorker::Event(Event::Notice {
                ok: false,
                text: format!("The engine's worker could not read a message: {e}"),
            })),
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as the page.
    on_message.forget();
    // DynamoDB's TTL process, every 5 seconds as `dynalab serve` runs it.
    let sweep = Closure::<dyn FnMut()>::new(|| {
        if lab::sweep() > 0 {
            after_change();
        }
    });
    let _ = scope().set_interval_with_callback_and_timeout_and_arguments_0(sweep.as_ref().unchecked_ref(), 5_000);
    sweep.forget();
    post(&FromWorker::Event(Event::Ready));
}

/// Said when the page asks for a large response the worker no longer keeps.
const GONE: &str = "This response is no longer kept (only the last three large ones are): run the request again.";

/// Answers queued questions one after another.
fn drain() {
    if DRAINING.with(|d| d.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        while let Some((id, ask)) = QUEUE.with(|q| q.borrow_mut().pop_front()) {
            let answer = answer(ask).await;
            post(&FromWorker::Answer { id, answer });
        }
        DRAINING.with(|d| d.set(false));
    });
}

/// The workspace changed: the page hears of it, and it is saved soon.
fn after_change() {
    send_facts();
    save::schedule_save();
}

fn history_replaced() {
    let all = with_lab(|lab| lab.history.clone());
    post(&FromWorker::Event(Event::History(HistoryChange::All(all))));
}

async fn answer(ask: Ask) -> Answer {
    match ask {
        Ask::Start { embedded, link, local_saved } => {
            save::set_embedded(embedded);
            let mut said = Ok(String::new());
            if let Some(link) = link {
                match save::replace_with(&link, false, true).await {
                    Ok(()) => {
                        said = Ok("Opened the shared workspace. The one you had is kept: the Restore previous button brings it back.".into());
                    }
                    Err(e) => {
                        said = Err(format!("The share link could not be opened: {e}. Your workspace is unchanged."));
                    }
                }
            }
            if !embedded {
                save::find_previous().await;
            }
            // With no link (or a link refused), the saved workspace comes back.
            if said.as_ref().map_or(true, String::is_empty) && !embedded {
                if let Err(e) = save::restore_saved(local_saved).await {
                    said = Err(e);
                }
            }
            history_replaced();
            send_facts();
            if said.as_ref().is_ok_and(|s| !s.is_empty()) {
                // The link's workspace is the one to keep from now on.
                save::save_now();
            }
            Answer::Done(said)
        }
        Ask::Run { operation, request, record } => {
            let before = with_lab(|lab| lab.engine.change_mark());
            let (outcome, added) = lab::run(&operation, &request, record);
            if let Some(entry) = added {
                post(&FromWorker::Event(Event::History(HistoryChange::Added(entry))));
                save::schedule_save();
            }
            if with_lab(|lab| lab.engine.change_mark()) != before {
                after_change();
            }
            Answer::Ran(outcome)
        }
        Ask::Items { table, index, offset, limit } => Answer::Items(items(&table, index.as_deref(), offset, limit)),
        Ask::ResultRows { result, offset, limit } => match super::results::rows(result, offset, limit) {
            Some((items, total)) => Answer::Items(super::protocol::ItemsPage {
                offset,
                total,
                items: items.into_iter().map(|i| (i, 0)).collect(),
            }),
            None => Answer::Text(Err(GONE.into())),
        },
        Ask::ResultText { result } => Answer::Text(super::results::text(result).ok_or_else(|| GONE.to_string())),
        Ask::AdvanceClock { by_ms } => {
            let removed = lab::advance_clock(by_ms);
            after_change();
            Answer::Count(removed)
        }
        Ask::Sweep => {
            let removed = lab::sweep();
            if removed > 0 {
                after_change();
            }
            Answer::Count(removed)
        }
        // Handled beside the queue (see `start`).
        Ask::Load(_) => Answer::Done(Err("A load is not queued.".into())),
        Ask::Example { id } => {
            let result = load::example(&id);
            after_change();
            Answer::Done(result)
        }
        Ask::Replace { text, form, keep_current } => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let result = save::replace_with(&text, form == Form::Json, keep_current).await;
            if result.is_ok() {
                history_replaced();
                after_change();
            }
            Answer::Done(result.map(|()| String::new()))
        }
        Ask::RestorePrevious { local } => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let result = save::restore_previous(local).await;
            if result.is_ok() {
                history_replaced();
                after_change();
            }
            Answer::Done(result.map(|()| "The previous workspace is back.".to_string()))
        }
        Ask::Export => Answer::Text(Ok(lab::capture().to_json())),
        Ask::ShareLink => Answer::Text(Ok(lab::capture().to_compact())),
        Ask::StartStep { pack, step } => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let started = Pack::parse(&pack)
                .map_err(|problems| problems.join("; "))
                .and_then(|p| start_step(&p, step, lab::clock()));
            match started {
                Ok(engine) => {
                    save::keep_as_previous().await;
                    lab::replace(engine, lab::Beside::current());
                    after_change();
                    Answer::Done(Ok(
                        "The step's tables are loaded: the workspace you had is kept, Restore previous brings it back."
                            .into(),
                    ))
                }
                Err(e) => Answer::Done(Err(format!("This step could not start: {e}"))),
            }
        }
        Ask::Judge { step } => {
            let budget =
                step.checks.iter().find_map(|c| if let Rule::MaxUnits(max) = c.rule { Some(max) } else { None });
            let (results, picture) = with_lab(|lab| {
                let results = judge(&step, lab.last_ran.as_ref(), &mut lab.engine);
                let picture = budget.and_then(|budget| {
                    lab.last_ran.as_ref().map(|r| {
                        dynalab_lab::workbook::pictures::units_against_budget(r.read_units, r.write_units, budget)
                    })
                });
                (results, picture)
            });
            Answer::Verdicts { results, picture }
        }
        Ask::SetProgress { id, progress } => {
            with_lab(|lab| lab.progress.insert(id, progress));
            after_change();
            Answer::Done(Ok(String::new()))
        }
        Ask::CheckDesign { text } => Answer::Design(super::designs::check(&text)),
        Ask::CompareDesigns { a, b } => Answer::Comparison(super::designs::compare_designs(&a, &b)),
        Ask::Grade { pack, solution } => Answer::Graded(super::designs::grade_solution(&pack, &solution)),
        Ask::SetStudio { studio } => {
            with_lab(|lab| lab.studio = studio);
            after_change();
            Answer::Design(super::studio::prove(None))
        }
        Ask::ProveStudio { alternative } => Answer::Design(super::studio::prove(alternative)),
        Ask::RestoreProvedItems => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let result = super::studio::restore_proved();
            if result.is_ok() {
                after_change();
            }
            Answer::Done(result)
        }
        Ask::ProveOnWorkspace => {
            super::studio::prove_on_workspace();
            Answer::Design(super::studio::prove(None))
        }
        Ask::CompareAlternative { index } => Answer::Comparison(super::studio::compare(index)),
        Ask::DesignDocument => Answer::Text(Ok(super::studio::document())),
        Ask::DesignWorkbook => Answer::Text(super::studio::workbook()),
        Ask::DesignExport => Answer::Files(super::studio::export()),
        Ask::OpenDesign { text } => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let result = super::studio::open(&text).await;
            if result.is_ok() {
                after_change();
            }
            Answer::Done(result)
        }
        Ask::GradeStudio => {
            let graded = with_lab(|lab| match &lab.studio.challenge {
                Some(challenge) => {
                    let graded =
                        super::designs::grade_studio(&lab.engine, &lab.studio.current, &challenge.id, &challenge.pack);
                    // The Learn tab's progress counts a grade earned here as one earned there.
                    if let Ok(grade) = &graded {
                        let progress = lab.progress.entry(challenge.id.clone()).or_default();
                        progress.best_score = Some(progress.best_score.map_or(grade.score, |b| b.max(grade.score)));
                    }
                    graded
                }
                None => Err(vec![
                    "The design solves no challenge: open one in the Learn tab and choose Solve it in the Design tab."
                        .into(),
                ]),
            });
            if graded.is_ok() {
                after_change();
            }
            Answer::Graded(graded)
        }
        Ask::GenerateItems { table } => {
            if lab::loading() {
                return Answer::Done(Err(lab::BUSY.into()));
            }
            let result = super::studio::generate(&table);
            after_change();
            Answer::Done(result)
        }
        Ask::Memory => Answer::Number(crate::wasm_memory_bytes()),
        Ask::LastSave => {
            let (written, skipped) = save::last_save();
            Answer::Text(Ok(format!("{written} {skipped}")))
        }
    }
}

fn items(table: &str, index: Option<&str>, offset: usize, limit: usize) -> super::protocol::ItemsPage {
    with_lab(|lab| {
        let (items, total) = lab.engine.items_window(table, index, offset, limit).unwrap_or_default();
        super::protocol::ItemsPage { offset, total, items: items.into_iter().map(|i| (i.item, i.size)).collect() }
    })
}
