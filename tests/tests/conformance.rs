//! The reference interpreter against the reference traces: every traced game of the corpus,
//! seed 1, byte for byte.

use std::time::Duration;

use gdl_runtime::trace::{TraceOptions, write_trace};
use gdl_tests::{corpus_games, read_game, run_parallel};
use gdlc::interp::Interpreter;

fn interpreted_trace(kif: &str, seed: u64) -> Result<String, String> {
    let (program, diags) = gdlc::parse_kif(kif);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(format!("parse error: {}", d.message));
    }
    let game = Interpreter::new(&program).map_err(|e| format!("{:?}", e[0].message))?;
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

#[test]
fn interpreter_reproduces_every_reference_trace() {
    let games: Vec<_> = corpus_games()
        .into_iter()
        .filter(|g| g.trace.is_some())
        .collect();
    let results = run_parallel(
        &games,
        |g| format!("{}/{}", g.collection, g.name),
        Duration::from_secs(120),
        |g| {
            let reference = std::fs::read_to_string(g.trace.as_ref().unwrap()).unwrap();
            let expected = reference;
            match interpreted_trace(&read_game(&g.kif), 1) {
                Ok(actual) if actual == expected => None,
                Ok(actual) => {
                    let line = expected
                        .lines()
                        .zip(actual.lines())
                        .position(|(a, b)| a != b);
                    Some(format!(
                        "{}: differs from line {:?}",
                        g.name,
                        line.map(|l| l + 1)
                    ))
                }
                Err(e) => Some(format!("{}: {e}", g.name)),
            }
        },
    );
    let mut timed: Vec<_> = games
        .iter()
        .zip(&results)
        .map(|(g, (_, t))| (*t, &g.name))
        .collect();
    timed.sort_by(|a, b| b.cmp(a));
    eprintln!("slowest playouts: {:?}", &timed[..5.min(timed.len())]);
    let failures: Vec<&String> = results.iter().filter_map(|(r, _)| r.as_ref()).collect();
    let (repo, tests) = (
        games
            .iter()
            .filter(|g| g.collection == "ggp-repository")
            .count(),
        games
            .iter()
            .filter(|g| g.collection == "ggp-base-tests")
            .count(),
    );
    eprintln!(
        "{} of {} traces match ({repo} ggp-repository, {tests} ggp-base-tests)",
        games.len() - failures.len(),
        games.len()
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        repo >= 263 && tests >= 24,
        "fewer traced games than expected: {repo} + {tests}"
    );
}
