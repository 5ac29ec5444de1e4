//! Pieces several pages use.

pub mod item_grid;
pub mod item_list;
pub mod markdown;
pub mod pictures;
pub mod result_view;
