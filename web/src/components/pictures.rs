//! A checked design's pictures (the lab draws them as SVG in the engine's worker, every text
//! escaped there): the busiest partition keys against their ceilings, cost per pattern, collection
//! sizes for LSI tables.

use leptos::prelude::*;

#[component]
pub fn Pictures(drawn: Vec<String>) -> impl IntoView {
    view! {
        <div class="pictures" data-test="pictures">
            {drawn.into_iter().map(|svg| view! { <figure class="picture" inner_html=svg></figure> }).collect_view()}
        </div>
    }
}
