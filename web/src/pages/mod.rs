//! One module per view.

pub mod console;
pub mod fixtures;
pub mod items;
pub mod patterns;
pub mod tables;
