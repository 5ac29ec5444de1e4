//! The design note, in Markdown as an expert would write it, and the same content as JSON.

use super::analysis::{unit, DesignResult, PatternResult, Verdict};
use super::runner::PatternRun;
use super::Workbook;
use std::fmt::Write as _;

/// The JSON report.
pub fn json(result: &DesignResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

/// Every pattern's calls with their requests and responses (or errors), as a validation record.
pub fn validation(workbook: &Workbook, runs: &[PatternRun]) -> String {
    let patterns: Vec<serde_json::Value> = workbook
        .patterns
        .iter()
        .zip(runs)
        .map(|(pattern, run)| {
            let calls: Vec<serde_json::Value> = run
                .calls
                .iter()
                .map(|call| {
                    serde_json::json!({
                        "operation": call.operation,
                        "request": call.request,
                        "response": call.response,
                        "error": call.error.as_ref().map(|(name, message)| serde_json::json!({"name": name, "message": message})),
                    })
                })
                .collect();
            serde_json::json!({"id": pattern.id, "description": pattern.description, "problem": run.problem, "calls": calls})
        })
        .collect();
    let record = serde_json::json!({"validated_by": "dynalab check", "workbook": workbook.name, "patterns": patterns});
    serde_json::to_string_pretty(&record).unwrap_or_default() + "\n"
}

fn money(value: f64) -> String {
    format!("${value:.2}")
}

fn units(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        let text = format!("{value:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn pattern_units(p: &PatternResult) -> (String, String) {
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
    (per_call, at_peak)
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The Markdown design note.
pub fn markdown(result: &DesignResult) -> String {
    let mut out = String::new();
    let count = |v: Verdict| result.patterns.iter().filter(|p| p.verdict == v).count();
    let _ = writeln!(out, "# Design check: {}\n", result.name);
    if !result.description.is_empty() {
        let _ = writeln!(out, "{}\n", result.description);
    }
    let _ = writeln!(
        out,
        "**Verdict: {}** — {} patterns: {} pass, {} warn, {} fail. Region {}, production scale ×{}.\n",
        result.verdict.label().to_uppercase(),
        result.patterns.len(),
        count(Verdict::Pass),
        count(Verdict::Warn),
        count(Verdict::Fail),
        result.region,
        result.scale
    );
    let mut tables: Vec<&str> = result.patterns.iter().map(|p| p.table.as_str()).collect();
    tables.dedup();
    let mut seen = Vec::new();
    for table in tables {
        if seen.contains(&table) {
            continue;
        }
        seen.push(table);
        let _ = writeln!(out, "## Table `{table}`\n");
        if let Some(summary) = result.tables.iter().find(|t| t.name == table) {
            let indexes: Vec<String> = summary
                .indexes
                .iter()
                .map(|(name, items, bytes)| format!("`{name}` {items} entries, {bytes} B"))
                .collect();
            let _ = writeln!(
                out,
                "Fixture: {} items, {} B; largest item {} B; largest item collection {} B.{}\n",
                summary.items,
                summary.bytes,
                summary.largest_item,
                summary.largest_collection,
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
                p.verdict.label(),
                cell(p.reasons.first().map_or("", String::as_str))
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## Write invariants\n");
    if result.write_invariants.is_empty() {
        let _ = writeln!(out, "No write patterns.\n");
    }
    for line in &result.write_invariants {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\n## Hot-key risk\n");
    let _ = writeln!(
        out,
        "Each pattern's units at peak × its `busiest_key_share`, per table or index, against 3,000 RCU / 1,000 WCU per partition key per second.\n"
    );
    if result.hot_keys.is_empty() {
        let _ = writeln!(out, "No partition key above half its ceiling.");
    }
    for line in &result.hot_keys {
        let _ = writeln!(out, "- {line}");
    }
    let c = &result.cost;
    let _ = writeln!(out, "\n## Cost per month\n");
    let _ = writeln!(
        out,
        "Prices: {} as of {} ({}){}; average rates (peak where no average is given) over 730 hours; storage is the fixture × {} plus 100 B per item and index entry.\n",
        c.prices.region,
        c.prices.as_of,
        c.prices.source,
        if c.priced_for_region { String::new() } else { format!(" — no table for {}, priced as {}", result.region, c.prices.region) },
        result.scale
    );
    let _ = writeln!(out, "| | On demand | Provisioned (sized for peak, no auto scaling) |");
    let _ = writeln!(out, "|---|---|---|");
    let _ = writeln!(out, "| Reads | {} | {} |", money(c.on_demand_reads), money(c.provisioned_reads));
    let _ = writeln!(
        out,
        "| Writes (index writes included) | {} | {} |",
        money(c.on_demand_writes),
        money(c.provisioned_writes)
    );
    let _ = writeln!(out, "| Storage ({:.3} GB) | {} | {} |", c.storage_gb, money(c.storage), money(c.storage));
    let _ = writeln!(out, "| **Total** | **{}** | **{}** |", money(c.on_demand_total()), money(c.provisioned_total()));
    let _ = writeln!(out, "\nOn demand, by pattern:\n");
    for p in &result.patterns {
        let _ = writeln!(
            out,
            "- {} {}: {} ({} at peak)",
            p.id,
            cell(&p.description),
            money(p.monthly_on_demand),
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
