//! Shared pieces of the end-to-end suites: the request corpus, a minimal DynamoDB JSON client, and
//! a DynamoDB Local process that stops itself.
#![forbid(unsafe_code)]
// Test support: a helper that panics is how a suite reports a broken fixture.
#![allow(clippy::missing_panics_doc)]

pub mod corpus;
pub mod dynamodb_local;
pub mod http;
