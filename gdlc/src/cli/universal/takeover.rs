//! When an engine that becomes ready during a match (the network grounded, the compiled game
//! built) takes over, and how long its start-clock measurements (`--playout auto` and the
//! like, chosen once for the match) may take.
//!
//! A takeover during a PLAY takes [`MEASURE`] of the move, and only when the move has at least
//! [`MIN_LEFT`] left: later in the move, the engine that plays finishes it and the new one
//! takes over at the next look, between requests (pondering), where it measures for
//! [`MEASURE`] too. Measuring in what a move or a ponder slice has left would choose for the
//! whole match from nothing.

use std::time::{Duration, Instant};

use gdl_player::time_control::share_of_time;

/// How long the start-clock measurements of an engine that takes over during a match take.
pub(super) const MEASURE: Duration = Duration::from_millis(200);

/// The least time a PLAY must have left for a takeover during it.
pub(super) const MIN_LEFT: Duration = MEASURE.saturating_mul(4);

/// The request at hand when an engine is ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clock {
    /// START, answered by this deadline.
    Start(Instant),
    /// A PLAY, answered by this deadline.
    Play(Instant),
    /// No request: pondering between them.
    Between,
}

impl Clock {
    /// The deadline of the request at hand (`None` between requests).
    pub(super) fn deadline(self) -> Option<Instant> {
        match self {
            Clock::Start(deadline) | Clock::Play(deadline) => Some(deadline),
            Clock::Between => None,
        }
    }

    /// Whether an engine ready now waits for the next look: a PLAY with less than
    /// [`MIN_LEFT`] left.
    pub(super) fn waits(self) -> bool {
        matches!(self, Clock::Play(deadline)
            if deadline.saturating_duration_since(Instant::now()) < MIN_LEFT)
    }

    /// The end of the start-clock measurements of an engine taking over now: [`MEASURE`]
    /// from now, and at START a quarter of the time left at most (the rest of the start
    /// clock searches).
    pub(super) fn measure_until(self) -> Instant {
        let measure = Instant::now() + MEASURE;
        match self {
            Clock::Start(deadline) => share_of_time(deadline, 0.25).min(measure),
            Clock::Play(_) | Clock::Between => measure,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Clock, MEASURE, MIN_LEFT};
    use std::time::{Duration, Instant};

    fn within_measure(until: Instant, began: Instant) -> bool {
        until >= began + MEASURE && until <= Instant::now() + MEASURE
    }

    #[test]
    fn a_takeover_during_a_match_measures_for_its_own_slice() {
        let began = Instant::now();
        let far = began + Duration::from_secs(10);
        assert!(within_measure(Clock::Play(far).measure_until(), began));
        // Between requests there is no deadline at hand: a ponder slice is not the limit.
        assert!(within_measure(Clock::Between.measure_until(), began));
        // START: a quarter of the time left at most, nothing past the deadline.
        assert!(within_measure(Clock::Start(far).measure_until(), began));
        let near = Clock::Start(began + Duration::from_millis(100)).measure_until();
        assert!(near <= Instant::now() + Duration::from_millis(25));
        assert!(Clock::Start(began).measure_until() <= Instant::now());
        assert!(!Clock::Play(far).waits() && !Clock::Between.waits());
        assert!(!Clock::Start(began).waits());
    }

    #[test]
    fn late_in_a_move_the_takeover_waits() {
        let now = Instant::now();
        assert!(Clock::Play(now).waits());
        assert!(Clock::Play(now + MIN_LEFT - Duration::from_millis(50)).waits());
        assert!(!Clock::Play(now + MIN_LEFT + Duration::from_secs(1)).waits());
    }
}
