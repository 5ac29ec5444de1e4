//! Pictures of a checked design, as SVG text (the playground shows them; `dynalab check --out`
//! writes them beside the design note): the load on the busiest partition keys against the
//! per-key ceilings, cost and units per pattern, and item-collection sizes against the 10 GB limit
//! of tables with a local secondary index. Every text in them is escaped.

use super::analysis::{DesignResult, Verdict};
use super::report::money;
use super::PatternKind;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const WIDTH: usize = 760;
const FONT: &str = "font-family=\"system-ui, sans-serif\" font-size=\"12\"";
const TEN_GB: f64 = 10.0 * 1024.0 * 1024.0 * 1024.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Roughly how many pixels `text` takes at 12 px in a sans-serif face (capitals and signs are
/// wide, narrow letters narrow): enough to keep labels apart without measuring fonts.
fn width_of(text: &str) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | 't' | 'f' | 'r' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' => 3.8,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '&' | '—' => 10.0,
            '#' => 7.5,
            c if c.is_uppercase() => 8.0,
            c if c.is_ascii_digit() => 6.8,
            _ => 6.4,
        })
        .sum()
}

/// `text` cut (ending in …) to fit `width` pixels.
fn fit(text: &str, width: f64) -> String {
    if width_of(text) <= width {
        return text.to_string();
    }
    let mut kept = String::new();
    for c in text.chars() {
        if width_of(&kept) + width_of(&c.to_string()) + width_of("…") > width {
            break;
        }
        kept.push(c);
    }
    kept + "…"
}

/// A region that clips whatever is drawn in it: a label that a font draws wider than estimated
/// still never runs into its neighbour.
fn clipped(x: f64, y: f64, width: f64, height: f64, inner: &str) -> String {
    format!(
        "<svg x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" overflow=\"hidden\">{inner}</svg>"
    )
}

fn frame(height: usize, title: &str, body: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"100%\" role=\"img\" aria-label=\"{t}\" {FONT}><title>{t}</title><text x=\"0\" y=\"14\" font-weight=\"600\">{t}</text>{body}</svg>",
        t = escape(title)
    )
}

/// One of a design's pictures: a short name (for a file beside the note), its title, the SVG.
pub struct Picture {
    pub name: &'static str,
    pub title: &'static str,
    pub svg: String,
}

/// Every picture the design has: the busiest keys, the cost per pattern, and the item-collection
/// sizes when a table has an LSI.
pub fn all(result: &DesignResult) -> Vec<Picture> {
    [
        ("keys", "Busiest partition keys at peak", Some(key_load(result))),
        ("cost", "Cost per pattern", Some(cost_per_pattern(result))),
        ("collections", "Item-collection sizes", collection_sizes(result)),
    ]
    .into_iter()
    .filter_map(|(name, title, svg)| Some(Picture { name, title, svg: svg? }))
    .collect()
}

/// Units per second and the ceiling, per partition key, per (target, unit).
type Loads = BTreeMap<(String, &'static str), BTreeMap<String, (f64, f64)>>;

/// Units per second on each busiest partition key at peak, per table or index, against its
/// ceiling (3,000 RCU / 1,000 WCU per key): green well under, amber near, red and marked over.
pub fn key_load(result: &DesignResult) -> String {
    let mut loads: Loads = BTreeMap::new();
    for pattern in &result.patterns {
        for load in &pattern.busiest_key {
            let kind = if load.kind == PatternKind::Read { "RCU" } else { "WCU" };
            let entry = loads
                .entry((load.target.clone(), kind))
                .or_default()
                .entry(load.partition.clone())
                .or_insert((0.0, load.ceiling));
            entry.0 += load.units_per_second;
        }
    }
    let mut body = String::new();
    let mut y = 30;
    for ((target, kind), keys) in &loads {
        let label = format!("<text x=\"0\" y=\"14\">{}</text>", escape(&fit(&format!("{target} ({kind}/s)"), 162.0)));
        body.push_str(&clipped(0.0, y as f64, 166.0, 20.0, &label));
        let mut keys: Vec<(&String, &(f64, f64))> = keys.iter().collect();
        keys.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
        for (i, (partition, (load, ceiling))) in keys.iter().take(8).enumerate() {
            let share = load / ceiling;
            let fill = if share > 1.0 {
                "#b3261e"
            } else if share > 0.5 {
                "#e0a100"
            } else {
                "#1e7b34"
            };
            let hot = if share > 1.0 { " HOT" } else { "" };
            let ink = if share > 1.0 { "#fff" } else { "#000" };
            let tile = format!(
                "<rect x=\"0\" y=\"0\" width=\"70\" height=\"34\" rx=\"3\" fill=\"{fill}\" fill-opacity=\"{:.2}\"><title>{} on {}: {:.0} {kind}/s of {:.0}</title></rect><text x=\"3\" y=\"14\" fill=\"{ink}\">{}</text><text x=\"3\" y=\"29\" fill=\"{ink}\">{}</text>",
                0.25 + 0.75 * share.min(1.0),
                escape(partition),
                escape(target),
                load,
                ceiling,
                escape(&fit(partition, 64.0)),
                escape(&fit(&format!("{:.0}%{hot}", 100.0 * share), 64.0)),
            );
            body.push_str(&clipped((170 + i * 74) as f64, y as f64, 70.0, 34.0, &tile));
        }
        y += 42;
    }
    if loads.is_empty() {
        body.push_str("<text x=\"0\" y=\"44\">No pattern reads or writes a single partition key.</text>");
        y += 30;
    }
    frame(y + 6, "Busiest partition keys at peak, against the per-key ceiling", &body)
}

/// Monthly on-demand cost at peak per pattern, with its units per request.
pub fn cost_per_pattern(result: &DesignResult) -> String {
    let most = result.patterns.iter().map(|p| p.monthly_at_peak).fold(0.0_f64, f64::max).max(0.01);
    let mut body = String::new();
    for (i, p) in result.patterns.iter().enumerate() {
        let y = 28 + i * 24;
        let width = (220.0 * p.monthly_at_peak / most).max(1.0);
        let fill = match p.verdict {
            Verdict::Pass => "#1f5fbf",
            Verdict::Warn => "#e0a100",
            Verdict::Fail => "#b3261e",
        };
        let label =
            format!("<text x=\"0\" y=\"12\">{}</text>", escape(&fit(&format!("{} {}", p.id, p.operation), 162.0)));
        body.push_str(&clipped(0.0, y as f64, 166.0, 18.0, &label));
        let _ = write!(body, "<rect x=\"170\" y=\"{y}\" width=\"{width:.1}\" height=\"16\" fill=\"{fill}\"/>");
        let room = WIDTH as f64 - 176.0 - width;
        let figures = format!(
            "{}/month · {} RCU + {} WCU · {}",
            money(p.monthly_at_peak),
            p.read_units,
            p.write_units,
            p.verdict.label()
        );
        let text = format!("<text x=\"0\" y=\"12\">{}</text>", escape(&fit(&figures, room - 2.0)));
        body.push_str(&clipped(176.0 + width, y as f64, room, 18.0, &text));
    }
    frame(34 + result.patterns.len() * 24, "Cost per pattern at peak (on demand), and units per request", &body)
}

/// Item-collection sizes at production scale for tables with a local secondary index, in buckets
/// by size, with the 10 GB limit: `None` when no table has one.
pub fn collection_sizes(result: &DesignResult) -> Option<String> {
    let tables: Vec<_> = result.tables.iter().filter(|t| t.indexes.iter().any(|i| !i.global)).collect();
    if tables.is_empty() {
        return None;
    }
    let buckets: [(f64, &str); 6] = [
        (1e6, "< 1 MB"),
        (1e8, "< 100 MB"),
        (1e9, "< 1 GB"),
        (5.0 * 1e9, "< 5 GB"),
        (TEN_GB, "< 10 GB"),
        (f64::INFINITY, "≥ 10 GB"),
    ];
    let mut body = String::new();
    let mut y = 28;
    for table in tables {
        let mut counts = [0usize; 6];
        for size in &table.collection_sizes {
            let scaled = *size as f64 * result.collection_scale;
            let bucket = buckets.iter().position(|(limit, _)| scaled < *limit).unwrap_or(5);
            counts[bucket] += 1;
        }
        let most = counts.iter().copied().max().unwrap_or(1).max(1);
        let label = format!(
            "<text x=\"0\" y=\"12\">{}</text>",
            escape(&fit(&format!("{} (×{} scale)", table.name, result.collection_scale), 192.0))
        );
        body.push_str(&clipped(0.0, y as f64, 196.0, 18.0, &label));
        for (i, ((_, label), count)) in buckets.iter().zip(counts).enumerate() {
            let x = 200 + i * 90;
            let height = 40.0 * count as f64 / most as f64;
            let fill = if i == 5 { "#b3261e" } else { "#1f5fbf" };
            let _ = write!(
                body,
                "<rect x=\"{x}\" y=\"{:.1}\" width=\"70\" height=\"{height:.1}\" fill=\"{fill}\"/>",
                y as f64 + 40.0 - height
            );
            let text = format!("<text x=\"0\" y=\"12\">{}</text>", escape(&fit(&format!("{label} · {count}"), 84.0)));
            body.push_str(&clipped(x as f64, (y + 42) as f64, 86.0, 16.0, &text));
        }
        let _ = write!(
            body,
            "<line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" stroke=\"#b3261e\" stroke-dasharray=\"4 3\"/>",
            y,
            y + 44,
            x = 200 + 5 * 90 - 10
        );
        y += 70;
    }
    Some(frame(y, "Item-collection sizes at production scale against the 10 GB limit (tables with an LSI)", &body))
}

/// What one request consumed against a budget: a bar per read and write, the budget marked.
pub fn units_against_budget(read: f64, write: f64, budget: f64) -> String {
    let most = read.max(write).max(budget).max(0.5);
    let scale = 400.0 / most;
    let mut body = String::new();
    for (i, (label, units)) in [("read units", read), ("write units", write)].into_iter().enumerate() {
        let y = 28 + i * 26;
        let fill = if units > budget { "#b3261e" } else { "#1f5fbf" };
        let _ = write!(
            body,
            "<text x=\"0\" y=\"{}\">{label}</text><rect x=\"110\" y=\"{y}\" width=\"{:.1}\" height=\"18\" fill=\"{fill}\"/><text x=\"{:.1}\" y=\"{}\">{units}</text>",
            y + 13,
            (units * scale).max(1.0),
            116.0 + units * scale,
            y + 13
        );
    }
    let x = 110.0 + budget * scale;
    let _ = write!(
        body,
        "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"22\" y2=\"80\" stroke=\"#000\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"92\">budget {budget}</text>",
        x - 20.0
    );
    frame(100, "Capacity units this request consumed, against the step's budget", &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbook::check::check_text;
    use dynalab_engine::FixedClock;
    use std::sync::Arc;

    fn design(name: &str) -> DesignResult {
        let text = std::fs::read_to_string(format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        check_text(&text, Arc::new(FixedClock::at(1_796_000_000_000))).unwrap().checked.result
    }

    #[test]
    fn units_over_the_budget_are_red() {
        let within = units_against_budget(0.5, 0.0, 0.5);
        assert!(!within.contains("#b3261e") && within.contains("budget 0.5"), "{within}");
        assert!(units_against_budget(2.0, 0.0, 0.5).contains("#b3261e"));
    }

    #[test]
    fn a_hot_key_is_red_and_marked() {
        let hot = key_load(&design("hot-counter.workbook.json"));
        assert!(hot.starts_with("<svg") && hot.ends_with("</svg>"));
        assert!(hot.contains("#b3261e") && hot.contains("HOT"), "{hot}");
        let sharded = key_load(&design("hot-counter-sharded.workbook.json"));
        assert!(!sharded.contains("HOT"), "{sharded}");
    }

    #[test]
    fn labels_fit_their_place_and_each_is_clipped_to_it() {
        assert_eq!(fit("MEMBER#m1", 64.0), "MEMBER…");
        assert_eq!(fit("u1", 64.0), "u1");
        for text in ["MEMBER#m1", "WWWWWWWWWWWWWWW", "ORDER#2026-11-05#o4", "x"] {
            assert!(width_of(&fit(text, 64.0)) <= 64.0, "{text}");
        }
        let mut result = design("hot-counter.workbook.json");
        for load in result.patterns.iter_mut().flat_map(|p| p.busiest_key.iter_mut()) {
            load.partition = "MEMBER#member-000001#WAREHOUSE".into();
            load.target = "a-table-with-a-very-long-name/and-its-index".into();
        }
        let svg = key_load(&result);
        // Every tile and label is its own region: nothing drawn in it shows outside it.
        let tiles = svg.matches("width=\"70.0\" height=\"34.0\" overflow=\"hidden\"").count();
        let labels = svg.matches("width=\"166.0\" height=\"20.0\" overflow=\"hidden\"").count();
        assert!(tiles >= 1 && labels >= 1 && svg.matches("<svg x=").count() == tiles + labels, "{svg}");
        assert!(svg.contains(">MEMBER…<") && !svg.contains(">MEMBER#member-000001#WAREHOUSE<"), "{svg}");
        assert!(svg.contains("<title>MEMBER#member-000001#WAREHOUSE on "), "the whole key stays in the tooltip");
    }

    #[test]
    fn every_pattern_has_a_bar_and_text_is_escaped() {
        let mut result = design("orders-service.workbook.json");
        let bars = cost_per_pattern(&result);
        assert_eq!(bars.matches("<rect").count(), result.patterns.len());
        result.patterns[0].id = "<script>".into();
        assert!(cost_per_pattern(&result).contains("&lt;script&gt;"));
        assert!(!cost_per_pattern(&result).contains("<script>"));
    }

    #[test]
    fn collection_sizes_only_for_tables_with_an_lsi() {
        assert_eq!(collection_sizes(&design("orders-service.workbook.json")), None);
        let workbook = serde_json::json!({"format": "dynalab-workbook/1", "name": "lsi", "scale": 1000,
            "tables": [{"TableName": "threads", "BillingMode": "PAY_PER_REQUEST",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}, {"AttributeName": "at", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "LocalSecondaryIndexes": [{"IndexName": "by_time", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "at", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}],
            "fixtures": {"threads": [{"pk": "T#1", "sk": "M#1", "at": "1", "body": "x".repeat(2000)}, {"pk": "T#2", "sk": "M#1", "at": "1"}]},
            "patterns": [{"id": "AP1", "description": "a thread", "type": "read", "peak_rps": 1, "consistency": "eventual",
                "requests": [{"operation": "Query", "request": {"TableName": "threads", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "T#1"}}}}]}]});
        let result = check_text(&workbook.to_string(), Arc::new(FixedClock::at(0))).unwrap().checked.result;
        let svg = collection_sizes(&result).expect("a table with an LSI");
        assert!(svg.contains("threads (×1000 scale)") && svg.contains("≥ 10 GB"), "{svg}");
        assert!(
            svg.contains("&lt; 100 MB · 1") && svg.contains("&lt; 1 MB · 1"),
            "each collection in its bucket at scale: {svg}"
        );
    }
}
