//! The reference interpreter against the reference traces: every traced game of the corpus,
//! seed 1, byte for byte. One trial per game (`COLLECTION/NAME`), and one that counts the
//! traced games; all ignored, after one line saying so, when the corpus is absent.
//!
//! The interpreter plays within a tenth of its default [`Limits`], so the defaults leave every
//! game of the corpus ten times the room it needs.

use std::time::Duration;

use gdl_tests::{
    CorpusGame, Trial, absent_trial, corpus_or_notice, game_trial, read_game, run_trials,
};
use gdl_tools::trace::{TraceOptions, write_trace};
use gdlc::interp::{Interpreter, Limits};

fn interpreted_trace(kif: &str, seed: u64) -> Result<String, String> {
    // Games of the corpus are played as the reference reasoner plays them, valid or not.
    let options = gdlc::CheckOptions {
        accept_invalid: true,
        ..gdlc::CheckOptions::default()
    };
    let checked = gdlc::frontend::load(kif, &options)
        .map_err(|e| format!("parse error: {}", e[0].message))?;
    let d = Limits::default();
    let tenth = Limits {
        max_query_steps: d.max_query_steps / 10,
        max_terms: d.max_terms / 10,
        max_relation_cells: d.max_relation_cells / 10,
    };
    let game =
        Interpreter::from_checked(&checked, tenth).map_err(|e| format!("{:?}", e[0].message))?;
    let mut out = String::new();
    write_trace(
        &game,
        &TraceOptions {
            seed,
            max_steps: 10_000,
        },
        &mut out,
    )
    .map_err(|e| e.to_string())?;
    Ok(out)
}

/// The game's seed-1 trace against its reference trace.
fn check(game: &CorpusGame) -> Result<(), String> {
    let expected = gdl_tests::reference_trace_of(game)?;
    let actual = interpreted_trace(&read_game(&game.kif), 1)?;
    gdl_tests::same_trace(&expected, &actual, "the interpreter")
}

fn main() {
    let Some(games) = corpus_or_notice("conformance") else {
        run_trials(vec![absent_trial("conformance")]);
    };
    let traced: Vec<CorpusGame> = games.into_iter().filter(|g| g.trace.is_some()).collect();
    let count = |c: &str| traced.iter().filter(|g| g.collection == c).count();
    let (repo, tests) = (count("ggp-repository"), count("ggp-base-tests"));
    let mut trials = vec![Trial::test("traced-games-count", move || {
        if repo >= 263 && tests >= 24 {
            Ok(())
        } else {
            Err(format!("fewer traced games than expected: {repo} + {tests}").into())
        }
    })];
    trials.extend(
        traced
            .iter()
            .map(|g| game_trial(g, Duration::from_secs(120), check)),
    );
    run_trials(trials);
}
