//! Beyond seed 1: on 20 further seeds of every game (untraced ones included) the interpreter
//! neither fails, nor hangs, nor leaves a role without a legal move in a non-terminal state.
//! One trial per game (`COLLECTION/NAME`); ignored, after one line saying so, when the corpus
//! is absent.

use std::time::Duration;

use gdl_tests::{CorpusGame, absent_trial, corpus_or_notice, game_trial, read_game, run_trials};
use gdl_tools::trace::{TraceOptions, write_trace};
use gdlc::interp::Interpreter;

/// Descriptions that are not playable on some seeds, each with the reason.
const KNOWN_UNPLAYABLE: &[(&str, &str)] = &[];

fn check(g: &CorpusGame) -> Result<(), String> {
    // Games of the corpus are played as the reference reasoner plays them, valid or not.
    let options = gdlc::CheckOptions {
        accept_invalid: true,
        ..gdlc::CheckOptions::default()
    };
    let game = gdlc::frontend::load(&read_game(&g.kif), &options)
        .and_then(|checked| Interpreter::from_checked(&checked, Default::default()))
        .map_err(|e| e[0].message.clone())?;
    let mut problems = Vec::new();
    for seed in 2..=21 {
        let mut out = String::new();
        let options = TraceOptions {
            seed,
            max_steps: 10_000,
        };
        match write_trace(&game, &options, &mut out) {
            Ok(()) => {}
            Err(e) => problems.push(format!("seed {seed}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn main() {
    let Some(games) = corpus_or_notice("seeds") else {
        run_trials(vec![absent_trial("seeds")]);
    };
    let trials = games
        .iter()
        .filter(|g| !g.name.starts_with("test_invalid_"))
        .map(|g| {
            let known = KNOWN_UNPLAYABLE.iter().any(|(name, _)| *name == g.name);
            game_trial(g, Duration::from_secs(600), check).with_ignored_flag(known)
        })
        .collect();
    run_trials(trials);
}
