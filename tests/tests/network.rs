//! The compiled network of every traced corpus game against its reference trace, in this
//! process: each game is compiled (`gdlc::pipeline::run` up to the optimised IR, with the
//! options `gdlc` itself uses) and the network a propnet module would run plays the seed-1
//! playout ([`gdlc::codegen::propnet::OwnedNetGame`]), which must equal the reference trace byte
//! for byte; the pipeline checks the invariants of the ground program and the IR as it goes
//! ([`CompileOptions::verify`]). This checks grounding, lowering and optimisation on the whole corpus at every CI
//! run without a rustc build per game (the `compiled` test builds the CI set's Rust, both
//! backends; `cargo xtask corpus` builds every game's). One trial per game
//! (`COLLECTION/NAME`); all ignored, after one line saying so, when the corpus is absent.
//!
//! A description too large to ground (whose module embeds the interpreter: the `conformance`
//! test checks the interpreter) and one whose IR keeps rules joined at run time (hybrid
//! grounding: the compiler races such a network against the interpreter before choosing, and
//! `xtask corpus` checks what it chose) pass here without a playout; the invalid descriptions
//! of the corpus (`test_invalid_*`) must be rejected.

use std::time::Duration;

use gdl_tests::{
    CorpusGame, Trial, absent_trial, corpus_or_notice, game_trial, read_game, run_trials,
};
use gdl_tools::trace::{TraceOptions, write_trace};
use gdlc::codegen::propnet::OwnedNetGame;
use gdlc::pipeline::{Pass, run};
use gdlc::{CompileOptions, Source};

/// The seed-1 trace of the game's network, or `None` when the game has no plain network.
fn network_trace(game: &CorpusGame) -> Result<Option<String>, String> {
    let text = read_game(&game.kif);
    // The invariants of the ground program and the IR are checked between passes.
    let options = CompileOptions {
        verify: true,
        ..CompileOptions::for_game(&game.name)
    };
    let source = Source::new(&game.name, &text);
    let a = match run(source, &options, Pass::Optimise) {
        Ok(a) => a,
        Err(d) => {
            // Too large to ground: then the whole pipeline embeds the interpreter.
            if run(source, &options, Pass::Generate).is_ok_and(|a| a.embedded_interpreter) {
                return Ok(None);
            }
            return Err(d
                .iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; "));
        }
    };
    let Some(ir) = a.ir.filter(|ir| ir.joins.is_empty()) else {
        return Ok(None);
    };
    let network = OwnedNetGame::new(ir);
    let mut out = String::new();
    write_trace(
        &network,
        &TraceOptions {
            seed: 1,
            max_steps: 10_000,
        },
        &mut out,
    )
    .map_err(|e| e.to_string())?;
    Ok(Some(out))
}

/// The game's seed-1 network trace against its reference trace. The corpus names its invalid
/// descriptions `test_invalid_*`: those must be rejected.
fn check(game: &CorpusGame) -> Result<(), String> {
    if game.name.starts_with("test_invalid_") {
        return match network_trace(game) {
            Err(_) => Ok(()),
            Ok(_) => Err("an invalid description was compiled".into()),
        };
    }
    let expected = gdl_tests::reference_trace_of(game)?;
    let Some(actual) = network_trace(game)? else {
        return Ok(());
    };
    gdl_tests::same_trace(&expected, &actual, "the network")
}

fn main() {
    let Some(games) = corpus_or_notice("network") else {
        run_trials(vec![absent_trial("network")]);
    };
    let traced: Vec<CorpusGame> = games.into_iter().filter(|g| g.trace.is_some()).collect();
    let trials: Vec<Trial> = traced
        .iter()
        .map(|g| game_trial(g, Duration::from_secs(300), check))
        .collect();
    run_trials(trials);
}
