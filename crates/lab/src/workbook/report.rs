//! The design note, in Markdown as an expert would write it, and the same content as JSON.

use super::analysis::cost::Bill;
use super::analysis::{unit, DesignResult, PatternResult, Verdict};
use super::plan::Plan;
use super::runner::PatternRun;
use crate::numbers::decimal as units;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The JSON report.
pub fn json(result: &DesignResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

/// Every pattern's calls in the shape of the DynamoDB MCP server's `dynamodb_model_validation.json`:
/// `{"validation_response": [{pattern_id, description, dynamodb_operation, command, response}]}`,
/// one entry per call, `response` the operation's answer (the AWS CLI's output) or the AWS CLI's
/// error line. ConsumedCapacity the check asked for is left out unless the request asked too.
pub fn validation(plan: &Plan, runs: &[PatternRun], result: &DesignResult) -> String {
    let mut entries = Vec::new();
    for ((pattern, planned), run) in plan.patterns().zip(runs) {
        if let Some(problem) = &run.problem {
            entries.push(json!({"pattern_id": pattern.id, "description": pattern.description, "response": problem}));
        }
        for ((call, original), given) in run.calls.iter().zip(planned).zip(&pattern.requests) {
            let command = given.cli.clone().unwrap_or_else(|| {
                format!(
                    "aws {} {} --cli-input-json '{}'",
                    call.operation.api().cli_service(),
                    call.operation.cli_name(),
                    original.request
                )
            });
            let response = match (&call.error, &call.body) {
                (Some((name, message)), _) => Value::String(format!(
                    "An error occurred ({name}) when calling the {} operation: {message}",
                    call.operation.name()
                )),
                (None, Some(body)) => {
                    let mut value: Value = serde_json::from_str(body).unwrap_or_else(|_| json!({}));
                    if original.request.get("ReturnConsumedCapacity").is_none() {
                        if let Some(object) = value.as_object_mut() {
                            object.remove("ConsumedCapacity");
                        }
                    }
                    value
                }
                (None, None) => json!({}),
            };
            entries.push(json!({
                "pattern_id": pattern.id,
                "description": pattern.description,
                "dynamodb_operation": call.operation.name(),
                "command": command,
                "response": response,
            }));
        }
    }
    let body = json!({"summary": result.summary, "proven": result.proven, "validation_response": entries,
        "inventory": result.inventory, "declared_capacity": result.declared});
    serde_json::to_string_pretty(&body).unwrap_or_default() + "\n"
}

/// A problem's path in the file and its message: `patterns[2].requests[0] (AP3)` and the rest,
/// or no path when the problem is about the whole file (`not JSON: …`).
pub fn problem_path(problem: &str) -> (String, String) {
    if let Some((path, message)) = problem.split_once(": ") {
        let bare = path.split(" (").next().unwrap_or(path);
        let is_path = !bare.is_empty()
            && !bare.contains(' ')
            && bare.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '-');
        if is_path {
            return (path.to_string(), message.to_string());
        }
    }
    (String::new(), problem.to_string())
}

/// Dollars to the cent; never "$-0.00".
pub fn money(value: f64) -> String {
    if value.abs() < 0.005 {
        return "$0.00".into();
    }
    format!("${value:.2}")
}

/// A pattern's units per call and per second at peak, e.g. `0.5 RCU` and `200 RCU/s`.
pub(crate) fn pattern_units(p: &PatternResult) -> (String, String) {
    let per_call = match (p.read_units > 0.0, p.write_units > 0.0) {
        (true, true) => format!("{} RCU + {} WCU", units(p.read_units), units(p.write_units)),
        (false, true) => format!("{} WCU", units(p.write_units)),
        _ => format!("{} RCU", units(p.read_units)),
    };
    let at_peak = match (p.read_units > 0.0, p.write_units > 0.0) {
        (true, true) => format!("{} RCU/s + {} WCU/s", units(p.read_units_at_peak), units(p.write_units_at_peak)),
        (false, true) => format!("{} WCU/s", units(p.write_units_at_peak)),
        _ => format!("{} RCU/s", units(p.read_units_at_peak)),
    };
    let vector: u64 = p.vector_bytes.values().sum();
    if vector == 0 {
        return (per_call, at_peak);
    }
    // A vector search bills bytes alone; a write into a vector index bills both.
    let bytes = format!("{} B vector", crate::numbers::thousands(vector));
    let bytes_at_peak =
        format!("{} B/s vector", crate::numbers::thousands((vector as f64 * p.peak_rps).round() as u64));
    if p.read_units == 0.0 && p.write_units == 0.0 {
        (bytes, bytes_at_peak)
    } else {
        (format!("{per_call} + {bytes}"), format!("{at_peak} + {bytes_at_peak}"))
    }
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// Which figure of a bill a row shows.
type Pick = fn(&Bill) -> f64;

/// The Markdown design note.
pub fn markdown(result: &DesignResult) -> String {
    let mut out = String::new();
    let confirmed = || result.patterns.iter().filter(|p| !p.proposed);
    let count = |v: Verdict| confirmed().filter(|p| p.verdict == v).count();
    let proposals = result.patterns.iter().filter(|p| p.proposed).count();
    if result.proven {
        let _ = writeln!(out, "# Design check: {}\n", result.name);
    } else {
        let _ = writeln!(out, "# Design check: {} — nothing proven\n", result.name);
    }
    if !result.description.is_empty() {
        let _ = writeln!(out, "{}\n", result.description);
    }
    if result.proven {
        let _ = writeln!(
            out,
            "**Verdict: {}** — {}: {} pass, {} warn, {} fail{}. Region {}, production scale ×{}.\n",
            result.verdict.label().to_uppercase(),
            plural(confirmed().count(), "pattern", "patterns"),
            count(Verdict::Pass),
            count(Verdict::Warn),
            count(Verdict::Fail),
            if proposals > 0 {
                format!(" ({} not counted)", plural(proposals, "proposal", "proposals"))
            } else {
                String::new()
            },
            result.region,
            result.scale
        );
    } else {
        let _ = writeln!(
            out,
            "**Nothing proven: the design carries no access patterns.** Below: what it holds, the capacity it declares, and {} — the calls its keys and indexes support, run on its items. Give each a rate and a consistency and remove `proposed` to make it part of the inventory (`dynalab check FILE --format workbook` writes them). Region {}.\n",
            plural(proposals, "proposed pattern", "proposed patterns"),
            result.region
        );
    }
    let c = &result.cost;
    let d = &result.declared;
    if result.proven {
        let _ = writeln!(
            out,
            "**Monthly cost at peak: {}** (on demand, every pattern at its peak rate all month, storage included).",
            money(c.at_peak.total())
        );
        if let Some(expected) = &c.expected {
            let _ = writeln!(
                out,
                "**Expected monthly cost: {}** (on demand, at the average rates).",
                money(expected.total())
            );
        }
        let _ = writeln!(out, "On provisioned capacity sized for the peak: {}.", money(c.provisioned.total()));
    }
    if d.tables.iter().any(|t| t.targets.iter().any(|target| target.assumed.is_none())) {
        let _ = writeln!(
            out,
            "**Declared capacity: {} a month**{}.",
            money(d.monthly),
            scaling_range(d.monthly_min, d.monthly_max)
        );
    }
    if d.assumed_monthly > 0.0 {
        let _ = writeln!(
            out,
            "Capacity the check assumed where the file declares none (each GSI given its table's units): {} a month more, not in the declared figure.",
            money(d.assumed_monthly)
        );
    }
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
    let unread: Vec<&str> = result.notes.iter().filter_map(|n| n.strip_prefix("not read: ")).collect();
    if !unread.is_empty() {
        let _ = writeln!(
            out,
            "## Not read from the file

Each of these could not be read; what was assumed or left out is said, and the patterns each touches are not proven.
"
        );
        for line in unread {
            let _ = writeln!(out, "- {line}");
        }
        out.push('\n');
    }
    inventory_section(&mut out, result);
    let mut seen: Vec<&str> = Vec::new();
    for table in result.patterns.iter().map(|p| p.table.as_str()) {
        if seen.contains(&table) {
            continue;
        }
        seen.push(table);
        if table.is_empty() {
            let _ = writeln!(out, "## Patterns without a call\n");
        } else {
            let _ = writeln!(out, "## Table `{table}`\n");
        }
        if let Some(shape) = result.tables.iter().find(|t| t.name == table) {
            let indexes: Vec<String> = shape
                .indexes
                .iter()
                .map(|i| format!("`{}` {}, {} B", i.name, plural(i.totals.items, "entry", "entries"), i.totals.bytes))
                .collect();
            let class = match result.table_classes.get(&shape.name) {
                Some(super::prices::TableClass::InfrequentAccess) => " Standard-IA table class.",
                _ => "",
            };
            let capacity = match shape.provisioned {
                Some((read, write)) => format!(" Provisioned {read} RCU / {write} WCU.{class}"),
                None => format!(" On demand.{class}"),
            };
            let _ = writeln!(
                out,
                "Fixture: {}, {} B; largest item {} B; largest item collection {} B.{}{}\n",
                plural(shape.totals.items, "item", "items"),
                shape.totals.bytes,
                shape.largest_item.unwrap_or(0),
                shape.largest_collection.unwrap_or(0),
                capacity,
                if indexes.is_empty() { String::new() } else { format!(" Indexes: {}.", indexes.join("; ")) }
            );
        }
        let _ = writeln!(
            out,
            "| # | Pattern | Operation | Key condition | Index | Items | RCU/WCU | Units/s at peak | Verdict |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
        for p in result.patterns.iter().filter(|p| p.table == table) {
            let (per_call, at_peak) = pattern_units(p);
            let _ = writeln!(
                out,
                "| {} | {} | {} | `{}` | {} | {} | {} | {} | {}: {} |",
                p.id,
                cell(&p.description),
                p.operation,
                cell(&p.key_condition),
                p.index.as_deref().unwrap_or("—"),
                p.items,
                per_call,
                at_peak,
                if p.proposed { "proposed (not counted)" } else { p.verdict.label() },
                cell(p.reasons.first().map_or("", String::as_str))
            );
        }
        out.push('\n');
    }
    if !result.capacity.is_empty() && result.proven {
        let _ = writeln!(out, "## Provisioned capacity\n");
        let _ = writeln!(
            out,
            "Every pattern at its peak at once, against what is provisioned (fail when over, warn above 80%).\n"
        );
        for finding in &result.capacity {
            let _ = writeln!(out, "- {}: {}", finding.verdict.label(), finding.text);
        }
        out.push('\n');
    }
    declared_section(&mut out, d);
    let _ = writeln!(out, "## Write invariants\n");
    if result.write_invariants.is_empty() {
        let writes: Vec<&str> = result
            .patterns
            .iter()
            .filter(|p| p.kind == crate::workbook::PatternKind::Write && !p.proposed)
            .map(|p| p.id.as_str())
            .collect();
        if writes.is_empty() {
            let _ = writeln!(out, "No write patterns.\n");
        } else {
            let _ = writeln!(out, "Write pattern {}: no call ran, so no invariant is proven.\n", writes.join(", "));
        }
    }
    for line in &result.write_invariants {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\n## Hot-key risk\n");
    let _ = writeln!(
        out,
        "Per table or index, the units each partition key the requests touch takes at peak (× `busiest_key_share`), against 3,000 RCU / 1,000 WCU per partition key per second; a batch or transaction spreads its units over its keys.\n"
    );
    if result.hot_keys.is_empty() {
        let _ = writeln!(out, "No partition key above half its ceiling.");
    }
    for line in &result.hot_keys {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\n## Cost per month\n");
    let _ = writeln!(
        out,
        "Prices: {} as of {} ({}){}; 730 hours a month. {}.\n",
        c.prices.region,
        c.prices.as_of,
        c.prices.source,
        if c.priced_for_region {
            String::new()
        } else {
            format!(" — no table for {}, priced as {}", result.region, c.prices.region)
        },
        c.excluded
    );
    let expected = c.expected.as_ref();
    let _ = writeln!(
        out,
        "| | On demand at peak | {}Provisioned for peak (no auto scaling) |",
        if expected.is_some() { "On demand, expected (average rates) | " } else { "" }
    );
    let _ = writeln!(out, "|---|---|{}---|", if expected.is_some() { "---|" } else { "" });
    let row = |label: &str, peak: f64, expected: Option<f64>, provisioned: f64| {
        format!(
            "| {label} | {} | {}{} |",
            money(peak),
            expected.map_or(String::new(), |e| format!("{} | ", money(e))),
            money(provisioned)
        )
    };
    let lines: [(String, Pick); 4] = [
        ("Reads".into(), |b| b.reads),
        ("Writes (index writes and replicas included)".into(), |b| b.writes),
        (format!("Storage ({:.3} GB)", c.storage_gb), |b| b.storage),
        ("**Total**".into(), Bill::total),
    ];
    for (label, pick) in lines {
        let _ = writeln!(out, "{}", row(&label, pick(&c.at_peak), expected.map(pick), pick(&c.provisioned)));
    }
    if let Some(vector) = c.vector {
        let _ = writeln!(
            out,
            "\nVector indexes bill bytes, not units: {} GB a month at peak (searches' VectorSearchRequestBytes and writes' VectorWriteRequestBytes){}.",
            crate::numbers::decimal(vector.gb_month_at_peak),
            if vector.priced {
                ", in Reads and Writes above"
            } else {
                " — not in the totals above: the price table has no published price for them"
            }
        );
    }
    let _ = writeln!(out, "\nStorage by table:\n");
    for storage in &c.storage {
        let _ = writeln!(out, "- {}: {:.3} GB ({})", storage.table, storage.gb, storage.basis);
    }
    if !result.proven {
        let _ = writeln!(out, "\n## Deviations\n\nNothing proven: the design has no patterns of its own to judge.");
        return out;
    }
    let _ = writeln!(
        out,
        "\nPatterns by cost (on demand at peak{}):\n",
        if expected.is_some() { "; expected" } else { "" }
    );
    let mut by_cost: Vec<&PatternResult> = result.patterns.iter().collect();
    by_cost.sort_by(|a, b| b.monthly_at_peak.total_cmp(&a.monthly_at_peak).then_with(|| a.id.cmp(&b.id)));
    for p in by_cost {
        let _ = writeln!(
            out,
            "- {} {}: {}{} ({} at peak)",
            p.id,
            cell(&p.description),
            money(p.monthly_at_peak),
            if expected.is_some() { format!("; {}", money(p.monthly_expected)) } else { String::new() },
            pattern_units(p).1
        );
    }
    let _ = writeln!(out, "\n## Deviations\n");
    if result.deviations.is_empty() {
        let _ = writeln!(out, "None: every pattern is one call on a key or index, within its partition's ceilings.");
    }
    for line in &result.deviations {
        let _ = writeln!(out, "- {line}");
    }
    let details: Vec<&PatternResult> = result.patterns.iter().filter(|p| p.reasons.len() > 1).collect();
    if !details.is_empty() {
        let _ = writeln!(out, "\n## All findings\n");
        for p in details {
            for reason in &p.reasons {
                let _ = writeln!(out, "- {} ({}): {reason}", p.id, unit(p.kind));
            }
        }
    }
    out
}

/// `1 item`, `2 items`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// ` ($2.85–$28.47 across the auto scaling ranges)`, or nothing when the range is one figure.
fn scaling_range(min: f64, max: f64) -> String {
    if (max - min).abs() < 0.005 {
        String::new()
    } else {
        format!(" ({}–{} across the auto scaling ranges)", money(min), money(max))
    }
}

/// `$2.85–$28.47`, or `—` without a range.
fn scaled(min: f64, max: f64) -> String {
    if (max - min).abs() < 0.005 {
        "—".into()
    } else {
        format!("{}–{}", money(min), money(max))
    }
}

fn sizes(sizes: Option<super::inventory::Sizes>) -> String {
    sizes.map_or_else(|| "—".into(), |s| format!("{} / {} / {} B", s.min, s.average, s.max))
}

/// What the tables and indexes hold, a row each, then which items each sparse index holds.
fn inventory_section(out: &mut String, result: &DesignResult) {
    let _ = writeln!(out, "## What the design holds\n");
    let _ = writeln!(
        out,
        "| Table / index | Keys | Projection | Items | Item size min / avg / max | Item collections | Largest collection |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    let mut sparse_lines = Vec::new();
    for table in &result.inventory.tables {
        let keys = match &table.sort_key {
            Some(sort) => format!("{} + {sort}", table.partition_key),
            None => table.partition_key.clone(),
        };
        let largest = |c: &super::inventory::Collections| {
            if c.count == 0 {
                "—".to_string()
            } else {
                format!(
                    "`{}`: {}, {} B",
                    cell(&c.largest_key),
                    plural(c.largest_items, "item", "items"),
                    c.largest_bytes
                )
            }
        };
        let _ = writeln!(
            out,
            "| `{}` | {keys} | — | {} | {} | {} | {} |",
            table.name,
            table.items,
            sizes(table.sizes),
            table.collections.count,
            largest(&table.collections)
        );
        for index in &table.indexes {
            let mut keys = index.partition_key.join(" + ");
            if !index.sort_key.is_empty() {
                keys = format!("{keys} / {}", index.sort_key.join(" + "));
            }
            let _ = writeln!(
                out,
                "| `{}` {} `{}` | {keys} | {} | {} | {} | {} | {} |",
                table.name,
                index.kind,
                index.name,
                cell(&index.projection),
                index.items,
                sizes(index.sizes),
                index.collections.count,
                largest(&index.collections)
            );
            if let Some(sparse) = &index.sparse {
                let kinds: Vec<String> = sparse.kinds.iter().map(super::inventory::KindHeld::describe).collect();
                sparse_lines.push(format!(
                    "- `{}` is sparse: it holds {} of {} items of `{}` — {}.",
                    index.name,
                    sparse.held,
                    sparse.of,
                    table.name,
                    kinds.join("; ")
                ));
            }
        }
    }
    out.push('\n');
    let kinds: Vec<String> = result
        .inventory
        .tables
        .iter()
        .filter(|t| t.kinds.len() > 1)
        .map(|t| {
            let list: Vec<String> = t.kinds.iter().map(|k| format!("`{}` {}", k.label, k.items)).collect();
            format!("- `{}` items by kind (key prefix): {}.", t.name, list.join(", "))
        })
        .collect();
    for line in kinds.iter().chain(&sparse_lines) {
        let _ = writeln!(out, "{line}");
    }
    if !kinds.is_empty() || !sparse_lines.is_empty() {
        out.push('\n');
    }
}

/// Each provisioned table and GSI, per region: declared units, scaling, monthly cost, and what
/// the patterns need at peak.
fn declared_section(out: &mut String, declared: &super::analysis::capacity::DeclaredCapacity) {
    let _ = writeln!(out, "## Declared capacity\n");
    let on_demand: Vec<String> = declared
        .tables
        .iter()
        .filter(|t| t.targets.is_empty())
        .map(|t| {
            if t.regions.len() > 1 {
                format!(
                    "`{}` (a global table in {}: {})",
                    t.table,
                    plural(t.regions.len(), "region", "regions"),
                    t.regions.join(", ")
                )
            } else {
                format!("`{}`", t.table)
            }
        })
        .collect();
    if !on_demand.is_empty() {
        let _ = writeln!(out, "On demand (paid per request, as costed above): {}.\n", on_demand.join(", "));
    }
    if declared.tables.iter().any(|t| !t.targets.is_empty()) {
        let _ = writeln!(
            out,
            "| Table / index | Region | Provisioned RCU / WCU | Auto scaling RCU / WCU | $/month | min–max | Needed at peak |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        let range = |r: Option<crate::workbook::declared::Range>| {
            r.map_or("—".to_string(), |r| format!("{}–{}", r.min, r.max))
        };
        for target in declared.tables.iter().flat_map(|t| &t.targets) {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} / {} | {} / {} | {} | {} | {} RCU/s, {} WCU/s |",
                target.target,
                if target.assumed.is_some() { " (assumed)" } else { "" },
                target.region,
                target.read_units,
                target.write_units,
                range(target.read_scaling),
                range(target.write_scaling),
                money(target.monthly),
                scaled(target.monthly_min, target.monthly_max),
                units(target.needed_read),
                units(target.needed_write)
            );
        }
        let _ = writeln!(
            out,
            "| **Total** | | | | **{}** | {} | |\n",
            money(declared.monthly),
            scaled(declared.monthly_min, declared.monthly_max)
        );
    }
    for line in &declared.assumptions {
        let _ = writeln!(out, "- Assumed: {line}.");
    }
    if !declared.assumptions.is_empty() {
        out.push('\n');
    }
}
