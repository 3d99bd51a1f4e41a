//! `Backend::Auto` picks the faster backend on corpus games where the two differ clearly.
//! Each expected choice was measured: both backends on one game in alternating pairs
//! (`gdlc bench GAME --engine compiled --backend inline|propnet --seconds 4`, 2026-11-24, load
//! 1.2-7.4; the games marked "per CPU s" again after the depth-first propnet engine, `--seconds
//! 3`, playouts per CPU second, load 3-5.5), the slower at most two thirds as fast as the faster. A change to either engine
//! that moves these games across the line means re-fitting the cost model
//! (`gdlc/src/codegen/mod.rs`, `inline_nanos` and `propnet_nanos`) against new measurements.
//! (checkers, 3,861-3,872 / 7,142-7,218 per CPU s in 2026-11, is inline since session 21's
//! inline stuck test, 12.1-12.7k / 10.0-10.5k: no longer a clear difference, so not listed.)

use std::time::Duration;

use gdl_tests::{
    CorpusGame, Trial, absent_trial, corpus_or_notice, game_trial, read_game, run_trials,
};
use gdlc::codegen::{Backend, chosen_backend};
use gdlc::pipeline::{self, CompileOptions, Pass};

/// (game, backend measured faster, playouts per second inline / propnet).
const MEASURED: &[(&str, Backend, &str)] = &[
    ("ticTacToe", Backend::Inline, "2.4-2.6M / 168-172k"),
    ("connectFour", Backend::Inline, "404-505k / 40-90k"),
    ("nineBoardTicTacToe", Backend::Inline, "78-102k / 54-60k"),
    ("pentago", Backend::Inline, "73-83k / 6.6-6.7k"),
    ("eightPuzzle", Backend::Inline, "61-66k / 5.1-7.2k"),
    (
        "reversi",
        Backend::Inline,
        "10.4-10.7k / 1,070-1,071 per CPU s",
    ),
    ("breakthrough", Backend::Inline, "184-190k / 7.4k per CPU s"),
    (
        "englishDraughts",
        Backend::Inline,
        "16.4-17.7k / 10.6-10.7k per CPU s",
    ),
    (
        "knightwar",
        Backend::Inline,
        "128-132k / 66-70k per CPU s (2026-11-28, load 1.0-1.3)",
    ),
    (
        "futoshiki6",
        Backend::Inline,
        "309-312k / 160-162k per CPU s (2026-11-28, load 1.0-1.3)",
    ),
    (
        "amazons_8x8",
        Backend::Propnet,
        "2.50k / 11.1-11.3k per CPU s (2026-11-28, load 0.9-1.0)",
    ),
];

/// Which backend `Backend::Auto` picks for `game`, against the one measured faster.
fn check(game: &CorpusGame, faster: Backend, measured: &str) -> Result<(), String> {
    let source = read_game(&game.kif);
    let options = CompileOptions::for_game(&game.name);
    let artifacts = pipeline::run(source.as_str(), &options, Pass::Optimise)
        .map_err(|e| format!("does not compile: {}", e[0].message))?;
    let ir = artifacts.ir.ok_or("the IR stage kept no IR")?;
    let chosen = chosen_backend(&ir, &options.codegen);
    match chosen == faster {
        true => Ok(()),
        false => Err(format!(
            "auto picks {chosen:?}, {faster:?} was faster (inline / propnet po/s: {measured})"
        )),
    }
}

/// One trial per measured game; the corpus tests' ignored trial when the corpus is absent.
fn main() {
    let Some(games) = corpus_or_notice("backend_choice") else {
        run_trials(vec![absent_trial("backend_choice")]);
    };
    let trials = MEASURED
        .iter()
        .map(|&(name, faster, measured)| {
            match games
                .iter()
                .find(|g| g.collection == "ggp-repository" && g.name == name)
            {
                Some(game) => game_trial(game, Duration::from_secs(300), move |g| {
                    check(g, faster, measured)
                }),
                None => Trial::test(format!("ggp-repository/{name}"), move || {
                    Err(format!("{name} is not in the corpus").into())
                }),
            }
        })
        .collect();
    run_trials(trials);
}
