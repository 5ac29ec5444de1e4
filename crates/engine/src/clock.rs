//! Time comes from outside: the browser's `Date.now`, the system clock natively, a fixed value in tests.

/// Milliseconds since the Unix epoch.
pub trait Clock: Send + Sync {
    fn now_millis(&self) -> u64;
}

/// A clock that reads the operating system's time; not available on wasm32 (use a JS-backed clock there).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_millis(&self) -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
    }
}

/// A clock that stands still until moved; for tests and reproducible runs.
#[derive(Debug, Default)]
pub struct FixedClock(pub std::sync::atomic::AtomicU64);

impl FixedClock {
    pub fn at(millis: u64) -> Self {
        Self(std::sync::atomic::AtomicU64::new(millis))
    }

    pub fn advance(&self, millis: u64) {
        self.0.fetch_add(millis, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now_millis(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}
