//! Pieces several pages use.

pub mod item_grid;
pub mod result_view;
