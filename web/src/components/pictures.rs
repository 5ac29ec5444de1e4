//! A checked design's pictures (the lab draws them as SVG, every text escaped there): the busiest
//! partition keys against their ceilings, cost per pattern, collection sizes for LSI tables.

use dynalab_lab::workbook::analysis::DesignResult;
use dynalab_lab::workbook::pictures;
use leptos::prelude::*;

#[component]
pub fn Pictures(design: DesignResult) -> impl IntoView {
    let drawn: Vec<String> = [
        Some(pictures::key_load(&design)),
        Some(pictures::cost_per_pattern(&design)),
        pictures::collection_sizes(&design),
    ]
    .into_iter()
    .flatten()
    .collect();
    view! {
        <div class="pictures" data-test="pictures">
            {drawn.into_iter().map(|svg| view! { <figure class="picture" inner_html=svg></figure> }).collect_view()}
        </div>
    }
}
