// Timing helpers shared by the native benchmarks.

use std::time::{Duration, Instant};

/// Minimum wall time of `f` over `runs` runs, after one warm-up run.
pub(crate) fn min_time(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// `bytes` processed in `d`, as MB/s.
pub(crate) fn mbps(bytes: usize, d: Duration) -> String {
    format!("{:.0} MB/s", bytes as f64 / d.as_secs_f64() / 1e6)
}
