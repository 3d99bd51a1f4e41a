//! When the breadth-first search should give up: the states found but not yet expanded, at
//! the recent rate of expansion, would take longer than the time left. A leaf module.
//!
//! The rate is measured over the later half of the time so far, not since the start: the
//! interpreter's first states are its slowest (its caches are cold), and a rate averaged from
//! the start stopped searches that would have finished. Nor is it judged before a tenth of the
//! search's time (and a thousand states) gave a rate.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// States expanded before a rate is trusted.
const MIN_EXPANDED: usize = 1000;
/// Time before a rate is trusted, at the least.
const MIN_ELAPSED: Duration = Duration::from_millis(200);
/// Marks are kept this far apart at the least (the memory of a long search stays small).
const MARK_EVERY: Duration = Duration::from_millis(20);

/// The search's clock: when it started, when it must stop, and marks of how many states it had
/// expanded when.
pub(super) struct Pace {
    start: Instant,
    until: Instant,
    /// (when, states expanded by then), oldest first; the first at or before the start of the
    /// window (the later half of the time so far).
    marks: VecDeque<(Instant, usize)>,
}

impl Pace {
    pub fn new(start: Instant, until: Instant) -> Self {
        Pace {
            start,
            until,
            marks: VecDeque::from([(start, 0)]),
        }
    }

    /// States expanded per second over the later half of the time so far, `expanded` states
    /// having been expanded by `now` (marked, for the rates asked later).
    pub fn rate(&mut self, expanded: usize, now: Instant) -> f64 {
        let half = now.saturating_duration_since(self.start) / 2;
        let from = now.checked_sub(half).unwrap_or(self.start);
        while self.marks.get(1).is_some_and(|&(t, _)| t <= from) {
            self.marks.pop_front();
        }
        let (t0, n0) = self.marks.front().copied().unwrap_or((self.start, 0));
        if self
            .marks
            .back()
            .is_none_or(|&(t, _)| now.saturating_duration_since(t) >= MARK_EVERY)
        {
            self.marks.push_back((now, expanded));
        }
        let seconds = now.saturating_duration_since(t0).as_secs_f64();
        expanded.saturating_sub(n0) as f64 / seconds.max(1e-9)
    }

    /// Why the search cannot finish in time, when it cannot: every state found must still be
    /// expanded, so the states waiting at the recent rate are a lower bound of the time it
    /// needs; past a quarter more than the time left, the search stops, and sampling gets the
    /// time. Asked after each batch of states (it marks the rate).
    pub fn hopeless(&mut self, expanded: usize, found: usize, now: Instant) -> Option<String> {
        let rate = self.rate(expanded, now);
        let elapsed = now.saturating_duration_since(self.start);
        let budget = self.until.saturating_duration_since(self.start);
        if expanded < MIN_EXPANDED || elapsed < MIN_ELAPSED.max(budget / 10) {
            return None;
        }
        let waiting = found.saturating_sub(expanded);
        let needed = waiting as f64 / rate.max(1e-9);
        let left = self.until.saturating_duration_since(now).as_secs_f64();
        (needed > 1.25 * left).then(|| {
            format!(
                "a projection: {waiting} states waiting need at least {needed:.1} s at {rate:.0} \
                 states/s, more than the {left:.1} s left (after {found} states)"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, millis: u64) -> Instant {
        start + Duration::from_millis(millis)
    }

    #[test]
    fn the_rate_is_that_of_the_later_half() {
        let start = Instant::now();
        let mut pace = Pace::new(start, at(start, 4000));
        // A slow first second (1,000 states), then 100,000 states a second.
        assert_eq!(pace.rate(1000, at(start, 1000)), 1000.0);
        for k in 1..=10 {
            pace.rate(1000 + 10_000 * k, at(start, 1000 + 100 * k as u64));
        }
        let rate = pace.rate(101_000, at(start, 2000));
        assert!((rate - 100_000.0).abs() < 1.0, "{rate}");
        // Marks older than the window are dropped.
        assert!(pace.marks.len() <= 12, "{}", pace.marks.len());
    }

    #[test]
    fn a_slow_start_does_not_stop_a_search_that_can_finish() {
        let start = Instant::now();
        let mut pace = Pace::new(start, at(start, 4000));
        pace.hopeless(1000, 5000, at(start, 1000));
        for k in 1..=10 {
            pace.hopeless(1000 + 10_000 * k, 300_000, at(start, 1000 + 100 * k as u64));
        }
        // 199,000 waiting: 2.0 s at the recent 100,000 states/s, 2 s left: it goes on (at the
        // average since the start, 50,500 states/s, it would need 3.9 s and stop).
        assert_eq!(pace.hopeless(101_000, 300_000, at(start, 2000)), None);
        // Three times as many waiting cannot be done.
        let why = pace.hopeless(101_000, 700_000, at(start, 2000));
        assert!(
            why.as_deref()
                .is_some_and(|w| w.starts_with("a projection: 599000 states waiting need")),
            "{why:?}"
        );
    }

    #[test]
    fn no_judgement_before_a_tenth_of_the_time_and_a_thousand_states() {
        let start = Instant::now();
        let mut pace = Pace::new(start, at(start, 10_000));
        // Hopeless by far, but only 0.5 s of the 10 s gone.
        assert_eq!(pace.hopeless(50_000, 10_000_000, at(start, 500)), None);
        let mut pace = Pace::new(start, at(start, 10_000));
        assert_eq!(pace.hopeless(999, 10_000_000, at(start, 2000)), None);
        assert!(pace.hopeless(1000, 10_000_000, at(start, 2000)).is_some());
    }
}
