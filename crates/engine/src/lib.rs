//! Dynalab's engine: DynamoDB's semantics in memory, with no I/O, no clock of its own and no panic
//! on any input. Every front end calls [`Engine::execute`] with an operation name and its JSON.
#![forbid(unsafe_code)]
// "No panic on any input": outside tests the engine neither unwraps nor panics (clippy holds it).
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable))]

pub mod capacity;
pub mod clock;
mod deep_request;
mod engine;
pub mod error;
pub mod explain;
pub mod expression;
mod inspect;
pub mod operation;
pub mod ops;
mod outcome;
pub mod partiql;
mod request;
mod snapshot;
pub mod stream;
pub mod table;
pub mod ttl;
mod validate;
pub mod value;

#[cfg(not(target_arch = "wasm32"))]
pub use clock::SystemClock;
pub use clock::{Clock, FixedClock, Utc};
pub use engine::Engine;
pub use error::{DynamoError, ErrorKind};
pub use inspect::{CollectionView, IndexShape, ItemView, StoredRef, TableShape, Totals};
pub use operation::{Api, Effect, Operation};
pub use outcome::{Outcome, Tally};
pub use request::{unknown_operation, Applied, Request};
pub use snapshot::{Recreate, TableSnapshot};
pub use table::TableClass;

/// The region ARNs name. Dynalab is one region of one account.
pub const REGION: &str = "us-east-1";
/// The account ARNs name (DynamoDB Local uses the same placeholder).
pub const ACCOUNT_ID: &str = "000000000000";
