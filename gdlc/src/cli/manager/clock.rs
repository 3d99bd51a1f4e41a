//! The clocks of a match: the seconds given on the command line, and how long the manager
//! waits for each message. As `protocol.md` says of ggp-base's manager: START waits for the
//! start clock, PLAY and STOP for the play clock, each plus the grace; ABORT waits 1 s.

use std::time::Duration;

/// The clocks on the command line (`gdlc match`, `gdlc tournament`).
#[derive(clap::Args, Debug, Clone)]
pub struct ClockArgs {
    /// Seconds for START.
    #[arg(long, default_value_t = 10.0)]
    pub startclock: f64,
    /// Seconds per move.
    #[arg(long, default_value_t = 5.0)]
    pub playclock: f64,
    /// Seconds a remote player is given beyond each clock.
    #[arg(long, default_value_t = 1.0)]
    pub grace: f64,
}

/// A clock on the command line that is no number of seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockError {
    pub flag: &'static str,
    pub value: f64,
}

impl std::fmt::Display for ClockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} must be a number of seconds from 0 to 1000000, not {}",
            self.flag, self.value
        )
    }
}

/// The clocks of a match, checked.
#[derive(Debug, Clone, Copy)]
pub struct Clocks {
    /// The start clock in seconds, as messages and the record give it.
    pub start_secs: f64,
    /// The play clock in seconds.
    pub play_secs: f64,
    pub start: Duration,
    pub play: Duration,
    pub grace: Duration,
}

/// How long the manager waits for ABORT's reply.
pub const ABORT_WAIT: Duration = Duration::from_secs(1);

impl ClockArgs {
    pub fn clocks(&self) -> Result<Clocks, ClockError> {
        let check = |flag, value: f64| {
            if value.is_finite() && (0.0..=1e6).contains(&value) {
                Ok(Duration::from_secs_f64(value))
            } else {
                Err(ClockError { flag, value })
            }
        };
        Ok(Clocks {
            start_secs: self.startclock,
            play_secs: self.playclock,
            start: check("--startclock", self.startclock)?,
            play: check("--playclock", self.playclock)?,
            grace: check("--grace", self.grace)?,
        })
    }
}

impl Clocks {
    /// How long START may take.
    pub fn start_wait(&self) -> Duration {
        self.start + self.grace
    }

    /// How long PLAY (and STOP) may take.
    pub fn play_wait(&self) -> Duration {
        self.play + self.grace
    }
}

/// A duration for people: `0.42s`, `12s`.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 10.0 {
        format!("{s:.0}s")
    } else {
        format!("{s:.2}s")
    }
}

/// A clock in messages and the record: `5`, `0.5` (whole seconds without a fraction).
pub fn clock_text(secs: f64) -> String {
    format!("{secs}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_are_checked() {
        let args = |s, p, g| ClockArgs {
            startclock: s,
            playclock: p,
            grace: g,
        };
        let c = args(5.0, 0.5, 1.0).clocks().expect("valid");
        assert_eq!(c.play_wait(), Duration::from_millis(1500));
        assert_eq!(clock_text(c.start_secs), "5");
        assert_eq!(clock_text(c.play_secs), "0.5");
        assert_eq!(
            args(5.0, -1.0, 1.0).clocks().unwrap_err().flag,
            "--playclock"
        );
        assert_eq!(
            args(f64::NAN, 1.0, 1.0).clocks().unwrap_err().flag,
            "--startclock"
        );
        assert_eq!(args(1.0, 1.0, 1e9).clocks().unwrap_err().flag, "--grace");
    }
}
