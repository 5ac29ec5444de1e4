//! One module per view.

pub mod console;
pub mod design;
pub mod fixtures;
pub mod items;
pub mod learn;
pub mod patterns;
pub mod tables;
