//! The validation section of `cargo xtask bench`: states explored per second by the compiled
//! games' `validate` (`gdl_tools::validate`) on ticTacToe and eightPuzzle (exhaustive) and
//! connectFour (sampled), on 1 thread and on N, alternating.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::numbers::{rate, thousands};
use crate::validate::{JsonLimits, run_json};

/// How a game is validated for the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Breadth-first to the end (the time limit is generous: it ends when the graph does).
    Exhaustive,
    /// Random playouts only (`--max-states 1`), for the benchmark's seconds.
    Sampled,
}

/// The games of the section.
pub const GAMES: &[(&str, Search)] = &[
    ("ticTacToe", Search::Exhaustive),
    ("connectFour", Search::Sampled),
    ("eightPuzzle", Search::Exhaustive),
];

/// Seconds an exhaustive validation may take before it falls back to sampling.
const EXHAUSTIVE_SECONDS: f64 = 300.0;

/// One validation, as measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub mode: String,
    /// States seen: breadth-first, plus those of the playouts.
    pub states: u64,
    /// States per second: of the breadth-first search when exhaustive (the analyses after it
    /// not counted), of the whole run when sampled.
    pub rate: f64,
}

/// Reads the run of a `validate --json` report.
pub fn run_of(report: &Value) -> Result<Run, String> {
    let n = |k: &str| report[k].as_u64();
    let f = |k: &str| report[k].as_f64();
    let mode = report["mode"].as_str().ok_or("no mode in the report")?;
    let (states, sampled) = (n("states").unwrap_or(0), n("sampled_states").unwrap_or(0));
    let seconds = if mode == "exhaustive" {
        f("explore_seconds")
    } else {
        f("seconds")
    }
    .ok_or("no seconds in the report")?;
    Ok(Run {
        mode: mode.to_string(),
        states: states + sampled,
        rate: (states + sampled) as f64 / seconds.max(1e-9),
    })
}

/// Validates with the game's binary on `threads` threads.
pub fn measure(
    binary: &Path,
    search: Search,
    seconds: f64,
    threads: usize,
    memory_gb: f64,
) -> Result<Run, String> {
    let mut argv = vec![
        "validate".to_string(),
        "--json".to_string(),
        format!("--threads={threads}"),
    ];
    let seconds = match search {
        Search::Exhaustive => EXHAUSTIVE_SECONDS,
        Search::Sampled => {
            argv.push("--max-states=1".to_string());
            seconds
        }
    };
    argv.push(format!("--seconds={seconds}"));
    let limits = JsonLimits {
        timeout: Duration::from_secs_f64(seconds * 2.0 + 120.0),
        memory_gb,
    };
    let (_, report) = run_json(binary, &argv, &limits)?;
    run_of(&report)
}

/// Per game: its rounds of (1 thread, N threads), or why there are none.
pub type Rounds = Vec<(String, Result<Vec<(Run, Run)>, String>)>;

/// The section's Markdown.
pub fn table(s: &mut String, rounds: &Rounds, threads: usize) {
    let _ = write!(
        s,
        "\n## Validation\n\n\
         `BIN validate --json --threads T` of the compiled games (`gdlc validate`): ticTacToe and \
         eightPuzzle explored exhaustively (states per second of the breadth-first search, \
         batches of states expanded on T threads), connectFour by random playouts only \
         (`--max-states 1`, one playout loop per thread). 1 thread and {threads} alternating; \
         on a shared machine the speed-up only measures what the other work leaves, and \
         ticTacToe's 5,478 states take milliseconds, mostly starting up.\n\n\
         | game | mode | round | states | 1 thread states/s | {threads} threads states/s | \
         speed-up |\n|---|---|---:|---:|---:|---:|---:|\n"
    );
    for (game, rounds) in rounds {
        let rounds = match rounds {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(s, "| {game} | | | | failed: {e} | | |");
                continue;
            }
        };
        for (i, (one, many)) in rounds.iter().enumerate() {
            let _ = writeln!(
                s,
                "| {game} | {} | {} | {} | {} | {} | {:.2}x |",
                one.mode,
                i + 1,
                thousands(many.states),
                rate(one.rate),
                rate(many.rate),
                many.rate / one.rate.max(1e-9)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_of_both_modes() {
        let exhaustive = serde_json::json!({"mode": "exhaustive", "states": 5478,
            "sampled_states": 0, "explore_seconds": 0.5, "seconds": 1.0});
        let run = run_of(&exhaustive).unwrap();
        assert_eq!((run.states, run.rate), (5478, 10_956.0));
        let sampled = serde_json::json!({"mode": "sampled", "states": 10,
            "sampled_states": 990, "explore_seconds": 0.0, "seconds": 2.0});
        let run = run_of(&sampled).unwrap();
        assert_eq!(
            (run.mode.as_str(), run.states, run.rate),
            ("sampled", 1000, 500.0)
        );
        assert!(run_of(&serde_json::json!({"rejected": []})).is_err());
    }

    #[test]
    fn a_row_per_round() {
        let run = |rate| Run {
            mode: "exhaustive".into(),
            states: 100,
            rate,
        };
        let rounds = vec![
            ("g".to_string(), Ok(vec![(run(10.0), run(15.0))])),
            ("h".to_string(), Err("not built".to_string())),
        ];
        let mut s = String::new();
        table(&mut s, &rounds, 2);
        assert!(
            s.contains("| g | exhaustive | 1 | 100 | 10 | 15 | 1.50x |\n"),
            "{s}"
        );
        assert!(s.contains("| h | | | | failed: not built | | |\n"), "{s}");
    }
}
