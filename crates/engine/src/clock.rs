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

/// A UTC calendar time, for the places that print one (stream labels, request signing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utc {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: u64,
    pub minute: u64,
    pub second: u64,
    pub millisecond: u64,
}

impl Utc {
    /// The calendar time of `millis` since the epoch (proleptic Gregorian; Howard Hinnant's
    /// days-to-civil).
    pub fn of_millis(millis: u64) -> Self {
        let seconds = millis / 1000;
        let days = (seconds / 86_400) as i64;
        let rest = seconds % 86_400;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        Self {
            year,
            month,
            day,
            hour: rest / 3600,
            minute: rest % 3600 / 60,
            second: rest % 60,
            millisecond: millis % 1000,
        }
    }
}
