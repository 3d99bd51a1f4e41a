//! The time limit of grounding.

use std::time::{Duration, Instant};

/// When grounding gives up: a limit on the CPU time of the grounding thread, so that a
/// loaded machine does not make a description fail that grounds on an idle one. The clock
/// (`gdl_tools::bench::thread_cpu_time`, a file read) is read only once the wall clock says
/// the limit could have been spent (CPU time never runs faster than the wall clock); without
/// it, the wall clock is the limit.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    /// The thread's CPU time at which to stop (`None`: no CPU clock, `wall` is the limit).
    cpu_end: Option<Duration>,
    /// Before this instant the limit cannot have been reached.
    check_at: Instant,
}

impl Deadline {
    /// `limit` of CPU time from now, on the calling thread.
    pub fn after(limit: Duration) -> Deadline {
        let now = Instant::now();
        Deadline {
            cpu_end: gdl_tools::bench::thread_cpu_time().map(|t| t + limit),
            check_at: now.checked_add(limit).unwrap_or(now),
        }
    }

    /// The CPU time left.
    pub(super) fn left(&self) -> Duration {
        match (self.cpu_end, gdl_tools::bench::thread_cpu_time()) {
            (Some(end), Some(now)) => end.saturating_sub(now),
            _ => self.check_at.saturating_duration_since(Instant::now()),
        }
    }

    /// Whether the limit is reached.
    pub fn passed(&mut self) -> bool {
        let now = Instant::now();
        if now < self.check_at {
            return false;
        }
        let Some(end) = self.cpu_end else {
            return true;
        };
        match gdl_tools::bench::thread_cpu_time() {
            Some(cpu) if cpu < end => {
                self.check_at = now + (end - cpu);
                false
            }
            _ => true,
        }
    }
}
