//! Compiled code against the interpreter and the reference traces, for the CI set of games.
//!
//! Every game of `CI_GAMES` (in `gdl_tests::compiled`) is compiled with `gdlc::compile`; the
//! modules go into batch crates of one scratch workspace (`target/gdlc-scratch/ci`, building
//! into `target/gdlc-scratch/target`), built by one cargo run (release profile, opt-level
//! [`SCRATCH_OPT_LEVEL`]) while the interpreter plays. For each game, the batch binary plays
//! [`playouts`] seeded random playouts; each is compared step by step (state facts, every
//! role's legal moves, terminal, goals) with the interpreter's playout of the same seed, and
//! the seed-1 playout byte for byte with the reference trace.
//!
//! The small games of `PROPNET_TOO` are also compiled with the propnet backend (labelled
//! `GAME@propnet`), so that both backends of the code generator are checked.
//!
//! A game of the CI set that does not compile, does not build or disagrees fails the test;
//! nothing is skipped.
//!
//! `GDL_COMPILED_PLAYOUTS` sets the number of playouts per game (default 100).

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gdl_tests::compiled::{
    self, Batch, CI_GAMES, CompiledGame, Limits, PROPNET_TOO, Scratch, compare_with_interpreter,
    compare_with_reference,
};
use gdl_tests::{CorpusGame, corpus_games, read_game, run_parallel};
use gdlc::codegen::Backend;

/// The optimisation level of the scratch crates: 0 builds the CI set about 5 times faster than
/// 1 (20 s against 100 s on 2 cores) and plays 100 playouts of any of its games in about a
/// second; the generated code is the same.
const SCRATCH_OPT_LEVEL: u8 = 0;

/// Scratch batch crates hold at most this much generated Rust each (one game may exceed it).
const BATCH_BYTES: usize = 6_000_000;

fn playouts() -> u64 {
    std::env::var("GDL_COMPILED_PLAYOUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
}

/// The games of `entries` in the corpus (ggp-repository first when a name is in both); a name
/// that is not there is a failure.
fn find_games(
    entries: &[(&str, Backend)],
    failures: &mut Vec<String>,
) -> Vec<(CorpusGame, Backend)> {
    let all = corpus_games();
    let mut out = Vec::new();
    for (name, backend) in entries {
        let mut found: Vec<&CorpusGame> = all.iter().filter(|g| g.name == *name).collect();
        found.sort_by_key(|g| g.collection != "ggp-repository");
        match found.first() {
            Some(g) => out.push(((*g).clone(), *backend)),
            None => failures.push(format!("{name}: not in the corpus")),
        }
    }
    out
}

/// What one game's check found.
struct Outcome {
    playouts: u64,
    states: u64,
    error: Option<String>,
}

/// Checks the games of `entries`, each compiled with its backend; a game compiled with
/// another backend than [`Backend::Auto`] is labelled `GAME@backend`.
fn check_games(entries: &[(&str, Backend)], scratch_name: &str) {
    let started = Instant::now();
    let seeds: RangeInclusive<u64> = 1..=playouts();
    let mut failures = Vec::new();
    let (games, backends): (Vec<CorpusGame>, Vec<Backend>) =
        find_games(entries, &mut failures).into_iter().unzip();
    let labels: Vec<String> = games
        .iter()
        .zip(&backends)
        .map(|(g, b)| match b {
            Backend::Auto => g.name.clone(),
            b => format!("{}@{}", g.name, format!("{b:?}").to_lowercase()),
        })
        .collect();
    let sources: Vec<String> = games.iter().map(|g| read_game(&g.kif)).collect();
    let indices: Vec<usize> = (0..games.len()).collect();

    // 1. Compile every game.
    let compiled = run_parallel(
        &indices,
        |&i| format!("gdlc::compile {}", labels[i]),
        Duration::from_secs(600),
        |&i| {
            compiled::compile_game_with(&games[i].name, &sources[i], backends[i]).map(|mut c| {
                c.name = labels[i].clone();
                c
            })
        },
    );
    let compile_time = started.elapsed();
    let mut ok: Vec<CompiledGame> = Vec::new();
    let mut module_of: Vec<Option<usize>> = vec![None; games.len()];
    for (i, (c, _)) in compiled.into_iter().enumerate() {
        match c {
            Ok(c) => {
                module_of[i] = Some(ok.len());
                ok.push(c);
            }
            Err(e) => failures.push(format!("{}: does not compile: {e}", labels[i])),
        }
    }

    // 2. Build the batches (in the background) while the interpreter plays.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory");
    let mut scratch = Scratch::in_target_dir(target, scratch_name);
    scratch.profile.opt_level = SCRATCH_OPT_LEVEL;
    let sizes: Vec<usize> = ok.iter().map(|c| c.rust.len()).collect();
    let plan = compiled::plan_batches(&sizes, BATCH_BYTES);
    let batches: Vec<Batch> = compiled::write_workspace(&scratch, scratch_name, &ok, &plan)
        .expect("write the scratch workspace");
    let build_time = Mutex::new(Duration::ZERO);
    let interpreter_time = Mutex::new(Duration::ZERO);
    let (built, interpreted) = std::thread::scope(|s| {
        let build = s.spawn(|| {
            let start = Instant::now();
            let limits = Limits {
                timeout: Some(Duration::from_secs(1800)),
                memory_bytes: None,
            };
            let r = compiled::cargo_build(&scratch, None, &limits);
            *build_time.lock().unwrap() = start.elapsed();
            r
        });
        let start = Instant::now();
        let interpreted = run_parallel(
            &indices,
            |&i| format!("interpreter playouts of {}", labels[i]),
            Duration::from_secs(900),
            |&i| compiled::interpreter_records(&sources[i], &seeds),
        );
        *interpreter_time.lock().unwrap() = start.elapsed();
        (build.join().expect("the build thread"), interpreted)
    });
    if let Err(e) = &built {
        failures.push(format!("the scratch workspace does not build: {e}"));
    }

    // 3. Play the compiled games and compare.
    let batch_of = |m: usize| batches.iter().find(|b| b.games.contains(&ok[m].name));
    let outcomes = run_parallel(
        &indices,
        |&i| format!("compiled playouts of {}", labels[i]),
        Duration::from_secs(600),
        |&i| {
            let fail = |e: String| Outcome {
                playouts: 0,
                states: 0,
                error: Some(e),
            };
            let (Some(m), Ok(interp), Ok(())) = (module_of[i], &interpreted[i].0, &built) else {
                return match &interpreted[i].0 {
                    Err(e) => fail(e.clone()),
                    Ok(_) => fail(String::new()),
                };
            };
            let Some(batch) = batch_of(m) else {
                return fail("in no batch".into());
            };
            let limits = Limits {
                timeout: Some(Duration::from_secs(300)),
                memory_bytes: None,
            };
            let text = match compiled::compiled_records(batch, &labels[i], &seeds, &limits) {
                Ok(t) => t,
                Err(e) => return fail(format!("the compiled binary failed: {e}")),
            };
            if let (Some(reference), Some(seed1)) = (
                &games[i].trace,
                gdl_runtime::compare::split_records(&text).first(),
            ) && *seeds.start() == 1
                && let Err(e) = compare_with_reference(seed1, reference)
            {
                return fail(e);
            }
            match compare_with_interpreter(&text, interp, *seeds.start()) {
                Ok(stats) => Outcome {
                    playouts: stats.playouts,
                    states: stats.states,
                    error: None,
                },
                Err(e) => fail(e),
            }
        },
    );

    eprintln!(
        "{:<28} {:>10} {:>9} {:>9} {:>10} {:>9}",
        "game", "rust bytes", "gdlc s", "playouts", "states", "check s"
    );
    for (i, (o, t)) in outcomes.iter().enumerate() {
        let c = module_of[i].map(|m| &ok[m]);
        eprintln!(
            "{:<28} {:>10} {:>9.2} {:>9} {:>10} {:>9.2}",
            labels[i],
            c.map_or(0, |c| c.rust.len()),
            c.map_or(0.0, |c| c.compile_time.as_secs_f64()),
            o.playouts,
            o.states,
            t.as_secs_f64()
        );
        if let Some(e) = &o.error
            && !e.is_empty()
        {
            failures.push(format!("{}: {e}", labels[i]));
        }
    }
    eprintln!(
        "{} games in {} batches ({} bytes of Rust); gdlc {:.1} s, cargo build {:.1} s, \
         interpreter {:.1} s (alongside the build), total {:.1} s",
        games.len(),
        batches.len(),
        sizes.iter().sum::<usize>(),
        compile_time.as_secs_f64(),
        build_time.lock().unwrap().as_secs_f64(),
        interpreter_time.lock().unwrap().as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} games fail:\n{}",
        failures.len(),
        entries.len(),
        failures.join("\n")
    );
}

#[test]
fn compiled_ci_games_agree_with_the_interpreter_and_the_reference() {
    assert!(CI_GAMES.len() >= 30);
    let mut entries: Vec<(&str, Backend)> = CI_GAMES.iter().map(|g| (*g, Backend::Auto)).collect();
    entries.extend(PROPNET_TOO.iter().map(|g| (*g, Backend::Propnet)));
    check_games(&entries, "ci");
}
