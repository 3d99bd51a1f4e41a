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
//! A game for which gdlc picks the inline backend is also compiled with the propnet backend
//! (labelled `GAME@propnet`), so that both backends of the code generator are checked.
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
    self, Batch, CI_GAMES, CompiledGame, Limits, Scratch, compare_with_interpreter,
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

/// The games of `names` in the corpus (ggp-repository first when a name is in both); a name
/// that is not there is a failure.
fn find_games(names: &[&str], failures: &mut Vec<String>) -> Vec<CorpusGame> {
    let all = corpus_games();
    let mut out = Vec::new();
    for name in names {
        let mut found: Vec<&CorpusGame> = all.iter().filter(|g| g.name == *name).collect();
        found.sort_by_key(|g| g.collection != "ggp-repository");
        match found.first() {
            Some(g) => out.push((*g).clone()),
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

/// Compiles a game with the backend gdlc picks and, when that is the inline backend, also
/// with the propnet backend (labelled `GAME@propnet`).
fn compile_both(game: &CorpusGame, source: &str) -> Result<Vec<CompiledGame>, String> {
    let auto = compiled::compile_game(&game.name, source)?;
    let mut out = vec![auto];
    if out[0].backend == Backend::Inline {
        let mut pn = compiled::compile_game_with(&game.name, source, Backend::Propnet)?;
        pn.name = format!("{}@propnet", game.name);
        out.push(pn);
    }
    Ok(out)
}

/// Checks the games `names`; those compiled inline are checked with the propnet backend too.
fn check_games(names: &[&str], scratch_name: &str) {
    let mut failures = Vec::new();
    let games = find_games(names, &mut failures);
    check(&games, failures, scratch_name, compile_both);
}

/// How [`check`] compiles a game into its modules.
type CompileVariants = fn(&CorpusGame, &str) -> Result<Vec<CompiledGame>, String>;

/// Checks `games` (after `failures` found before); returns the modules checked (`GAME` and
/// `GAME@propnet`).
fn check(
    games: &[CorpusGame],
    mut failures: Vec<String>,
    scratch_name: &str,
    compile: CompileVariants,
) -> Vec<String> {
    let started = Instant::now();
    let seeds: RangeInclusive<u64> = 1..=playouts();
    let sources: Vec<String> = games.iter().map(|g| read_game(&g.kif)).collect();
    let indices: Vec<usize> = (0..games.len()).collect();

    // 1. Compile every game.
    let compiled = run_parallel(
        &indices,
        |&i| format!("gdlc::compile {}", games[i].name),
        Duration::from_secs(600),
        |&i| compile(&games[i], &sources[i]),
    );
    let compile_time = started.elapsed();
    // The compiled modules, and the game each one is of.
    let mut ok: Vec<CompiledGame> = Vec::new();
    let mut game_of: Vec<usize> = Vec::new();
    for (i, (c, _)) in compiled.into_iter().enumerate() {
        match c {
            Ok(c) => {
                game_of.extend(c.iter().map(|_| i));
                ok.extend(c);
            }
            Err(e) => failures.push(format!("{}: does not compile: {e}", games[i].name)),
        }
    }
    let modules: Vec<usize> = (0..ok.len()).collect();

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
            |&i| format!("interpreter playouts of {}", games[i].name),
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
        &modules,
        |&m| format!("compiled playouts of {}", ok[m].name),
        Duration::from_secs(600),
        |&m| {
            let fail = |e: String| Outcome {
                playouts: 0,
                states: 0,
                error: Some(e),
            };
            let i = game_of[m];
            let (Ok(interp), Ok(())) = (&interpreted[i].0, &built) else {
                return match &interpreted[i].0 {
                    Err(e) => fail(e.clone()),
                    // The build failure is reported once.
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
            let text = match compiled::compiled_records(batch, &ok[m].name, &seeds, &limits) {
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
        "{:<32} {:>8} {:>10} {:>9} {:>9} {:>10} {:>9}",
        "game", "backend", "rust bytes", "gdlc s", "playouts", "states", "check s"
    );
    for (c, (o, t)) in ok.iter().zip(&outcomes) {
        eprintln!(
            "{:<32} {:>8} {:>10} {:>9.2} {:>9} {:>10} {:>9.2}",
            c.name,
            c.backend.name(),
            c.rust.len(),
            c.compile_time.as_secs_f64(),
            o.playouts,
            o.states,
            t.as_secs_f64()
        );
        if let Some(e) = &o.error
            && !e.is_empty()
        {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    eprintln!(
        "{} games, {} modules in {} batches ({} bytes of Rust); gdlc {:.1} s, cargo build \
         {:.1} s, interpreter {:.1} s (alongside the build), total {:.1} s",
        games.len(),
        ok.len(),
        batches.len(),
        sizes.iter().sum::<usize>(),
        compile_time.as_secs_f64(),
        build_time.lock().unwrap().as_secs_f64(),
        interpreter_time.lock().unwrap().as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures over {} games:\n{}",
        failures.len(),
        games.len(),
        failures.join("\n")
    );
    ok.into_iter().map(|c| c.name).collect()
}

#[test]
fn compiled_ci_games_agree_with_the_interpreter_and_the_reference() {
    assert!(CI_GAMES.len() >= 30);
    check_games(CI_GAMES, "ci");
}

/// The GDL-II descriptions of this repository (`random` roles, `sees` percepts): the records
/// compared with the interpreter's hold every role's percepts after every joint move and which
/// roles are random, so both backends must compute `sees` as the interpreter does. Needs no
/// corpus.
#[test]
fn compiled_gdl2_games_agree_with_the_interpreter_on_percepts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut kifs = vec![root.join("../examples/montyHall.kif")];
    let fixtures = root.join("fixtures/gdl2");
    for e in std::fs::read_dir(&fixtures).expect("tests/fixtures/gdl2") {
        let path = e.expect("a readable directory").path();
        if path.extension().is_some_and(|x| x == "kif") {
            kifs.push(path);
        }
    }
    kifs.sort();
    assert!(kifs.len() >= 3, "{kifs:?}");
    let games: Vec<CorpusGame> = kifs
        .into_iter()
        .map(|kif| CorpusGame {
            collection: "gdl2".into(),
            name: kif.file_stem().unwrap().to_string_lossy().into_owned(),
            kif,
            trace: None,
        })
        .collect();
    let checked = check(&games, Vec::new(), "gdl2", compile_variants);
    // Both backends of every game, and the inline one with shared chunks.
    for g in &games {
        for name in [
            g.name.clone(),
            format!("{}@propnet", g.name),
            format!("{}@shared", g.name),
        ] {
            assert!(checked.contains(&name), "{name} not checked: {checked:?}");
        }
    }
}

/// [`compile_both`], and the inline backend with its props in small chunks shared by all
/// outputs (what large games get), labelled `GAME@shared`.
fn compile_variants(game: &CorpusGame, source: &str) -> Result<Vec<CompiledGame>, String> {
    let mut out = compile_both(game, source)?;
    let mut options = gdlc::CompileOptions::for_game(&game.name);
    options.codegen.backend = Backend::Inline;
    options.codegen.inline_props = 0;
    options.codegen.chunk_props = 16;
    let c = gdlc::compile(source, &options).map_err(|e| {
        e.iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    out.push(CompiledGame {
        name: format!("{}@shared", game.name),
        type_name: c.type_name,
        backend: c.stats.backend,
        rust: c.rust,
        compile_time: Duration::ZERO,
    });
    Ok(out)
}
