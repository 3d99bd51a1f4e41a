//! Time control: when a request's search ends and its answer is due, counted from the
//! request's arrival, and how the time of one request is shared among its parts.
//!
//! The protocol gives a clock per request: START's start clock, each PLAY's play clock
//! ([`clock`] reads one). [`Deadlines`] are where they end for us: the search ends `margin`
//! before the clock ([`DEFAULT_MARGIN`], for a manager on the same host; more over a network),
//! START keeps [`START_EXTRA_MARGIN`] more, as managers give no grace there, and a search
//! stalled past the clock is covered by a legal move sent [`FALLBACK_AFTER_CLOCK`] after it
//! ([`Deadlines::give_up`]). Between requests a player ponders in slices of [`PONDER_SLICE`],
//! for a [`ponder_window`] after the last request at most.
//!
//! Within a request, parts take shares of the time left ([`share_of_time`]: the start
//! clock's measurements; [`halfway`]: a GDL-II move's belief update; [`equal_shares`]: the
//! turns an engine replays when it takes a match over). A deadline crosses the pipe to an
//! engine in another process as milliseconds since the Unix epoch ([`to_epoch_millis`],
//! [`from_epoch_millis`]), both processes reading the same system clock.
//!
//! Nothing here waits: these are functions of instants and durations (those that share the
//! time left read the clock); the searches check the deadlines they are given between
//! iterations.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The default margin: the search ends this long before the play clock, counted from the
/// request's arrival. Measured on the same host as the manager, the move is handed over 10 to
/// 30 ms after the search's deadline, rarely a few hundred ms on a loaded machine (the 1 s of
/// grace managers give on PLAY covers those).
pub const DEFAULT_MARGIN: Duration = Duration::from_millis(300);

/// What START keeps in hand beyond the margin: managers give no grace on it.
pub const START_EXTRA_MARGIN: Duration = Duration::from_millis(200);

/// How long after the play clock the server stops waiting for the search and sends the legal
/// move the engine left for the case: within the grace managers give on PLAY (ggp-base and
/// Dresden 1 s, Tiltyard 5 s), so that a search stalled past it costs a random legal move of
/// our own rather than a timeout charged to us.
pub const FALLBACK_AFTER_CLOCK: Duration = Duration::from_millis(500);

/// How long a player ponders between looks for a request: a request that arrives meanwhile
/// waits this long at most.
pub const PONDER_SLICE: Duration = Duration::from_millis(20);

/// What [`ponder_window`] allows beyond twice the play clock.
pub const PONDER_GRACE: Duration = Duration::from_secs(60);

/// How long an engine in another process ponders after its last request: it is not told the
/// play clock, so this is for clocks up to a couple of minutes.
pub const ENGINE_PONDER_WINDOW: Duration = Duration::from_secs(300);

/// How long after the last request of a match a player still ponders: twice the play clock
/// and [`PONDER_GRACE`]. A manager sends the next request within a play clock and its grace;
/// one that has sent none for longer has left the match without STOP or ABORT (it stopped,
/// or lost the connection), and a player that pondered on would hold a core for nothing. It
/// waits for a request instead, and ponders again after the next one.
pub fn ponder_window(play_clock: Duration) -> Duration {
    play_clock.saturating_mul(2).saturating_add(PONDER_GRACE)
}

/// The longest clock taken from a message: a day (longer ones are read as a day).
const LONGEST_CLOCK: f64 = 86_400.0;

/// A clock of the protocol, in seconds: finite and not negative, at most a day.
pub fn clock(seconds: f64) -> Duration {
    match seconds.is_nan() {
        true => Duration::ZERO,
        false => Duration::from_secs_f64(seconds.clamp(0.0, LONGEST_CLOCK)),
    }
}

/// The instants of one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// When the request arrived: its clock runs from here.
    pub arrived: Instant,
    /// When the search is to end: the clock less the margin.
    pub search: Instant,
    /// When the clock ends.
    pub clock: Instant,
}

impl Deadlines {
    /// A START that arrived at `arrived` with `start_clock`: the search ends `margin` and
    /// [`START_EXTRA_MARGIN`] before it.
    pub fn start(arrived: Instant, start_clock: Duration, margin: Duration) -> Deadlines {
        Deadlines::kept(arrived, start_clock, margin + START_EXTRA_MARGIN)
    }

    /// A PLAY that arrived at `arrived` with `play_clock`: the search ends `margin` before it.
    pub fn play(arrived: Instant, play_clock: Duration, margin: Duration) -> Deadlines {
        Deadlines::kept(arrived, play_clock, margin)
    }

    fn kept(arrived: Instant, clock: Duration, kept: Duration) -> Deadlines {
        Deadlines {
            arrived,
            search: arrived + clock.saturating_sub(kept),
            clock: arrived + clock,
        }
    }

    /// How long the search has from the arrival.
    pub fn budget(&self) -> Duration {
        self.search.saturating_duration_since(self.arrived)
    }

    /// When the server stops waiting for the search's answer and sends the fallback move.
    pub fn give_up(&self) -> Instant {
        self.clock + FALLBACK_AFTER_CLOCK
    }

    /// `replied 412 ms before the clock` (or `after`), for a reply handed over at `now`.
    pub fn replied(&self, now: Instant) -> String {
        match self.clock.checked_duration_since(now) {
            Some(left) => format!("replied {} ms before the clock", left.as_millis()),
            None => format!(
                "replied {} ms after the clock",
                (now - self.clock).as_millis()
            ),
        }
    }
}

/// The instant `share` (0..1) of the time from now to `deadline` from now: the part of a
/// start clock one of its measurements may take.
pub fn share_of_time(deadline: Instant, share: f64) -> Instant {
    let now = Instant::now();
    now + deadline
        .saturating_duration_since(now)
        .mul_f64(share.clamp(0.0, 1.0))
}

/// Halfway from now to `deadline`: the part of a GDL-II move that updating beliefs takes at
/// most, or of the start clock that looking for independent parts takes.
pub fn halfway(deadline: Instant) -> Instant {
    share_of_time(deadline, 0.5)
}

/// The deadlines of `count` parts done one after the other until `until`: equal shares of
/// the time from now, the last one `until` (the turns an engine replays when it takes a
/// match over).
pub fn equal_shares(until: Instant, count: usize) -> impl Iterator<Item = Instant> {
    let began = Instant::now();
    let span = until.saturating_duration_since(began);
    let count = u32::try_from(count.max(1)).unwrap_or(u32::MAX);
    (1..=count).map(move |k| began + span * k / count)
}

/// `deadline` in milliseconds since the Unix epoch, as it crosses the pipe to an engine in
/// another process.
pub fn to_epoch_millis(deadline: Instant) -> u128 {
    let at = SystemTime::now() + deadline.saturating_duration_since(Instant::now());
    at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis())
}

/// The instant of a deadline sent as milliseconds since the Unix epoch: a past one is now, one
/// more than a day away is a day away (a mistake); `None` if `text` is not a number.
pub fn from_epoch_millis(text: &str) -> Option<Instant> {
    let at = UNIX_EPOCH.checked_add(Duration::from_millis(text.parse::<u64>().ok()?))?;
    let left = at
        .duration_since(SystemTime::now())
        .unwrap_or(Duration::ZERO);
    Some(Instant::now() + left.min(Duration::from_secs_f64(LONGEST_CLOCK)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: fn(u64) -> Duration = Duration::from_millis;

    #[test]
    fn clocks_are_finite_and_at_most_a_day() {
        assert_eq!(clock(2.5), MS(2500));
        assert_eq!(clock(-3.0), Duration::ZERO);
        assert_eq!(clock(f64::NAN), Duration::ZERO);
        assert_eq!(clock(f64::INFINITY), Duration::from_secs(86_400));
    }

    #[test]
    fn the_search_keeps_the_margin_and_start_keeps_more() {
        let at = Instant::now();
        let play = Deadlines::play(at, MS(3000), MS(300));
        assert_eq!((play.search - at, play.clock - at), (MS(2700), MS(3000)));
        assert_eq!(play.budget(), MS(2700));
        assert_eq!(play.give_up() - play.clock, FALLBACK_AFTER_CLOCK);
        let start = Deadlines::start(at, MS(10_000), MS(300));
        assert_eq!(start.clock - start.search, MS(300) + START_EXTRA_MARGIN);
        // A clock shorter than the margin: the search ends at once, never before the arrival.
        let short = Deadlines::play(at, MS(100), MS(300));
        assert_eq!((short.search, short.budget()), (at, Duration::ZERO));
    }

    #[test]
    fn pondering_stops_well_after_the_next_request_was_due() {
        assert_eq!(ponder_window(MS(3000)), MS(66_000));
        assert_eq!(ponder_window(Duration::MAX), Duration::MAX);
        assert!(ENGINE_PONDER_WINDOW > ponder_window(Duration::from_secs(60)));
    }

    #[test]
    fn replies_are_timed_against_the_clock() {
        let at = Instant::now();
        let d = Deadlines::play(at, MS(1000), MS(300));
        assert_eq!(d.replied(at + MS(588)), "replied 412 ms before the clock");
        assert_eq!(d.replied(at + MS(1030)), "replied 30 ms after the clock");
    }

    #[test]
    fn shares_split_the_time_left() {
        let until = Instant::now() + Duration::from_secs(4);
        let half = halfway(until);
        let left = until.saturating_duration_since(half);
        // Half of what was left when `halfway` read the clock, a moment after `until` was set.
        assert!(
            left > MS(1900) && left <= Duration::from_secs(2),
            "{left:?}"
        );
        assert!(share_of_time(until, 7.0) <= until);
        let past = Instant::now();
        assert!(share_of_time(past, 0.5) >= past);
        let shares: Vec<Instant> = equal_shares(until, 4).collect();
        assert_eq!((shares.len(), shares[3]), (4, until));
        assert!(shares.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(equal_shares(until, 0).collect::<Vec<_>>(), vec![until]);
    }

    #[test]
    fn deadlines_cross_the_pipe_as_epoch_milliseconds() {
        let at = Instant::now() + Duration::from_secs(3);
        let back = from_epoch_millis(&to_epoch_millis(at).to_string()).unwrap();
        let gap = back.max(at) - back.min(at);
        assert!(gap < MS(50), "{gap:?}");
        // Past deadlines are now; nonsense is refused; far ones are cut to a day.
        assert!(from_epoch_millis("0").unwrap() <= Instant::now());
        assert!(from_epoch_millis("soon").is_none());
        let far = from_epoch_millis(&u64::MAX.to_string());
        assert!(far.is_none_or(|f| f <= Instant::now() + Duration::from_secs(86_401)));
    }
}
