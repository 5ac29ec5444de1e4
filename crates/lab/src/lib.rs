//! What the front ends share above the engine: the translator from a pasted `aws dynamodb ...`
//! command to its request, plain JSON ↔ DynamoDB JSON, fixture importers and generators, the
//! examples gallery, and workspaces (save, export, share). Pure: no I/O, builds for wasm32.
#![forbid(unsafe_code)]

pub mod aws_cli;
pub mod design;
pub mod examples;
pub mod exchange;
pub mod export;
pub mod fixtures;
pub mod generate;
pub mod numbers;
pub mod pack;
pub mod plain_json;
pub mod workbook;
pub mod workspace;
