//! What the manager says on standard error while a match runs: one line to open it, one line
//! per step (the moves with who played them, how long each player took against the play
//! clock, the error codes), and a line when it is aborted. Lines that cannot be written are
//! dropped: a closed standard error does not stop a match.

use std::io::Write;
use std::time::Duration;

use super::clock::seconds;

/// How much a match says while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A line per step (one match at a time).
    Steps,
    /// Nothing per step (matches that run side by side).
    Quiet,
}

/// Writes one line on standard error.
pub fn note(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

/// One role's part of a step.
pub struct Part<'a> {
    pub role: &'a str,
    /// The move, as GDL text.
    pub text: &'a str,
    /// How long the player took (`None` for the manager's own `random`).
    pub took: Option<Duration>,
    /// `""`, `TO`, `CE` or `IL <move>`.
    pub error: &'a str,
}

/// `step 3: x (mark 1 1) 0.42s, o noop 1.31s TO [play clock 1s]`.
pub fn step_line(step: usize, parts: &[Part], play_clock: Duration) -> String {
    let mut line = format!("step {step}:");
    for (k, p) in parts.iter().enumerate() {
        line.push_str(if k == 0 { " " } else { ", " });
        line.push_str(p.role);
        line.push(' ');
        line.push_str(p.text);
        if let Some(t) = p.took {
            line.push(' ');
            line.push_str(&seconds(t));
        }
        if !p.error.is_empty() {
            line.push(' ');
            line.push_str(p.error);
        }
    }
    line.push_str(&format!(" [play clock {}]", seconds(play_clock)));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_is_one_line() {
        let parts = [
            Part {
                role: "x",
                text: "(mark 1 1)",
                took: Some(Duration::from_millis(420)),
                error: "",
            },
            Part {
                role: "o",
                text: "noop",
                took: Some(Duration::from_millis(1310)),
                error: "TO",
            },
        ];
        assert_eq!(
            step_line(3, &parts, Duration::from_secs(1)),
            "step 3: x (mark 1 1) 0.42s, o noop 1.31s TO [play clock 1.00s]"
        );
    }
}
