//! Markdown of packs, rendered safely: the text becomes elements built here (paragraphs, lists,
//! `code`, **strong**, *emphasis*), never HTML parsed from the pack, so a pack cannot run script
//! or style the page.

use leptos::prelude::*;

#[component]
pub fn Markdown(#[prop(into)] text: String) -> impl IntoView {
    let blocks: Vec<String> = text.split("\n\n").map(str::trim).filter(|b| !b.is_empty()).map(String::from).collect();
    blocks
        .into_iter()
        .map(|block| {
            let lines: Vec<&str> = block.lines().collect();
            if lines.iter().all(|l| l.trim_start().starts_with("- ")) {
                let items = lines
                    .iter()
                    .map(|l| view! { <li>{inline(l.trim_start().trim_start_matches("- "))}</li> })
                    .collect_view();
                view! { <ul>{items}</ul> }.into_any()
            } else {
                view! { <p>{inline(&lines.join(" "))}</p> }.into_any()
            }
        })
        .collect_view()
}

/// `code`, **strong** and *emphasis* within a line; everything else as text.
fn inline(text: &str) -> Vec<AnyView> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let next = [("`", "`"), ("**", "**"), ("*", "*")]
            .iter()
            .filter_map(|(open, close)| {
                let start = rest.find(open)?;
                let end = rest[start + open.len()..].find(close)? + start + open.len();
                Some((start, end, *open, *close))
            })
            .min_by_key(|(start, _, open, _)| (*start, usize::MAX - open.len()));
        let Some((start, end, open, close)) = next else {
            out.push(rest.to_string().into_any());
            break;
        };
        if start > 0 {
            out.push(rest[..start].to_string().into_any());
        }
        let inner = rest[start + open.len()..end].to_string();
        out.push(match open {
            "`" => view! { <code>{inner}</code> }.into_any(),
            "**" => view! { <strong>{inner}</strong> }.into_any(),
            _ => view! { <em>{inner}</em> }.into_any(),
        });
        rest = &rest[end + close.len()..];
    }
    out
}
