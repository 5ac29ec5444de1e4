//! The lab clock of an engine in JavaScript: the host's `Date.now()` (or a fixed start, for
//! reproducible tests) plus however far the user moved it forward to watch TTL expiry.

use dynalab_engine::Clock;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct LabClock {
    /// A fixed start instead of `Date.now()`; the clock then moves only when advanced.
    start: Option<u64>,
    ahead: AtomicU64,
}

impl LabClock {
    pub fn new(start: Option<u64>) -> Self {
        Self { start, ahead: AtomicU64::new(0) }
    }

    pub fn advance(&self, millis: u64) {
        self.ahead.fetch_add(millis, Ordering::Relaxed);
    }
}

impl Clock for LabClock {
    fn now_millis(&self) -> u64 {
        let base = self.start.unwrap_or_else(|| js_sys::Date::now() as u64);
        base.saturating_add(self.ahead.load(Ordering::Relaxed))
    }
}
