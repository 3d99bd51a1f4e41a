//! Every game of the corpus parses without syntax errors: one trial per game
//! (`COLLECTION/NAME`), ignored, after one line saying so, when the corpus is absent.

use std::time::Duration;

use gdl_tests::{CorpusGame, absent_trial, corpus_or_notice, game_trial, read_game, run_trials};

fn parses(game: &CorpusGame) -> Result<(), String> {
    let (program, diags) = gdlc::Syntax::Kif.parse(&read_game(&game.kif));
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if program.rules.is_empty() {
        return Err("no rules".into());
    }
    Ok(())
}

fn main() {
    let Some(games) = corpus_or_notice("parse_corpus") else {
        run_trials(vec![absent_trial("parse_corpus")]);
    };
    let trials = games
        .iter()
        .map(|g| game_trial(g, Duration::from_secs(60), parses))
        .collect();
    run_trials(trials);
}
