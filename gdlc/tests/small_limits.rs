//! Lowering holds its invariants when grounding leaves rules to run time: games compiled under
//! small grounding limits (so that hybrid grounding turns rules into joins whose outputs are
//! `legal` and `next` atoms) compile or fail with diagnostics, never panic.

use std::path::Path;

use gdlc::ground::GroundOptions;
use gdlc::{CompileOptions, Source};

fn shipped(name: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("shipped game");
    (name.to_string(), text)
}

#[test]
fn games_compile_under_small_grounding_limits_without_panicking() {
    let mut games = vec![
        shipped("ticTacToe.kif"),
        shipped("connectFour.kif"),
        shipped("montyHall.kif"),
    ];
    if let Some(dir) = gdl_tests::corpus_path("small_limits", "games/ggp-repository") {
        for name in ["breakthrough.kif", "knightThrough.kif", "pentago.kif"] {
            games.push((name.to_string(), gdl_tests::read_game(&dir.join(name))));
        }
    }
    let mut hybrid = 0;
    for (name, text) in &games {
        for (max_rule_instances, max_matches) in [(50, 20_000), (200, 100_000), (2_000, 1_000_000)]
        {
            let mut options = CompileOptions::for_game("game");
            options.ground = GroundOptions {
                max_rule_instances,
                max_matches,
                ..GroundOptions::default()
            };
            let result =
                std::panic::catch_unwind(|| gdlc::compile(Source::new(name, text), &options));
            let Ok(result) = result else {
                panic!("{name} with {max_rule_instances} instances, {max_matches} matches: panic");
            };
            match result {
                Ok(c) => hybrid += usize::from(c.stats.ground.join_rules > 0),
                Err(errors) => assert!(
                    !errors.is_empty() && errors.iter().all(|d| d.code != "internal"),
                    "{name}: {errors:?}"
                ),
            }
        }
    }
    assert!(
        hybrid > 0,
        "no game went hybrid: the limits do not exercise join outputs"
    );
}
