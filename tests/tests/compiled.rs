//! Compiled code against the interpreter and the reference traces, for the CI set of games.
//!
//! One trial per game of `CI_GAMES` (in `gdl_tests::compiled`), named `COLLECTION/NAME`. The
//! first trial to run sets up every selected game (those the command line's filters keep):
//! each is compiled with `gdlc::compile`; the modules go into batch crates of one scratch
//! workspace (`target/gdlc-scratch/ci`, building into `target/gdlc-scratch/target`), built by
//! one cargo run in the background (release profile, opt-level [`SCRATCH_OPT_LEVEL`]). Each
//! trial then plays the interpreter's [`playouts`] seeded random playouts of its game (while
//! the build runs), waits for the build, and has the batch binary play the same seeds; each
//! playout is compared step by step (state facts, every role's legal moves, terminal, goals),
//! and the seed-1 playout byte for byte with the reference trace.
//!
//! A game for which gdlc picks the inline backend is also compiled with the propnet backend
//! (the module `GAME@propnet`, checked by the same trial), so that both backends of the code
//! generator are checked. This repository's GDL-II descriptions ([`gdl2_games`]) and gdlc's
//! fixtures ([`fixture_games`]) are also compiled with their props in shared chunks
//! (`GAME@shared`, the mode of large games); they need no corpus.
//!
//! A game of the CI set that does not compile, does not build or disagrees fails its trial;
//! nothing is skipped. The trials are ignored, after one line saying so, when the corpus is
//! absent.
//!
//! `GDL_COMPILED_PLAYOUTS` sets the number of playouts per game (default 100).

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gdl_tests::compiled::{
    self, Batch, CI_GAMES, CompiledGame, Limits, Scratch, compare_with_interpreter,
    compare_with_reference,
};
use gdl_tests::{
    Arguments, CorpusGame, Failed, Trial, absent_trial, corpus_or_notice, read_game, run_parallel,
    watched,
};
use gdlc::codegen::Backend;

/// The optimisation level of the scratch crates: 0 builds the CI set about 5 times faster than
/// 1 (20 s against 100 s on 2 cores) and plays 100 playouts of any of its games in about a
/// second; the generated code is the same.
const SCRATCH_OPT_LEVEL: u8 = 0;

/// Scratch batch crates hold at most this much generated Rust each (one game may exceed it).
const BATCH_BYTES: usize = 6_000_000;

/// The name of the scratch workspace.
const SCRATCH: &str = "ci";

fn playouts() -> u64 {
    std::env::var("GDL_COMPILED_PLAYOUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100)
}

/// The game `name` of the corpus (ggp-repository first when a name is in both).
fn find_game<'a>(all: &'a [CorpusGame], name: &str) -> Option<&'a CorpusGame> {
    let mut found: Vec<&CorpusGame> = all.iter().filter(|g| g.name == name).collect();
    found.sort_by_key(|g| g.collection != "ggp-repository");
    found.first().copied()
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

/// The selected games, compiled, written and building: made by the first trial that runs.
struct Setup {
    /// Per selected game, its modules or why it does not compile.
    compiled: Vec<Result<Vec<CompiledGame>, String>>,
    batches: Vec<Batch>,
    build: Mutex<Option<JoinHandle<Result<(), String>>>>,
    built: OnceLock<Result<(), String>>,
    started: Instant,
    compile_time: Duration,
    build_time: Arc<Mutex<Duration>>,
}

impl Setup {
    fn new(games: &[CorpusGame]) -> Result<Setup, String> {
        let started = Instant::now();
        let indices: Vec<usize> = (0..games.len()).collect();
        let compiled: Vec<Result<Vec<CompiledGame>, String>> = run_parallel(
            &indices,
            |&i| format!("gdlc::compile {}", games[i].name),
            Duration::from_secs(600),
            |&i| {
                let source = read_game(&games[i].kif);
                if games[i].collection == GDL2 || games[i].collection == FIXTURES {
                    compile_variants(&games[i], &source)
                } else {
                    compile_both(&games[i], &source)
                }
            },
        )
        .into_iter()
        .map(|(c, _)| c)
        .collect();
        let compile_time = started.elapsed();
        let modules: Vec<CompiledGame> = compiled.iter().flatten().flatten().cloned().collect();

        let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .ok_or("no target directory")?;
        let mut scratch = Scratch::in_target_dir(target, SCRATCH);
        scratch.profile.opt_level = SCRATCH_OPT_LEVEL;
        let sizes: Vec<usize> = modules.iter().map(|c| c.rust.len()).collect();
        let plan = compiled::plan_batches(&sizes, BATCH_BYTES);
        let batches = compiled::write_workspace(&scratch, SCRATCH, &modules, &plan)
            .map_err(|e| format!("writing the scratch workspace: {e}"))?;
        let build_time = Arc::new(Mutex::new(Duration::ZERO));
        let time = build_time.clone();
        let build = std::thread::spawn(move || {
            let start = Instant::now();
            let limits = Limits {
                timeout: Some(Duration::from_secs(1800)),
                memory_bytes: None,
            };
            let r = compiled::cargo_build(&scratch, None, &limits)
                .map_err(|e| format!("the scratch workspace does not build: {e}"));
            *time.lock().unwrap() = start.elapsed();
            r
        });
        Ok(Setup {
            compiled,
            batches,
            build: Mutex::new(Some(build)),
            built: OnceLock::new(),
            started,
            compile_time,
            build_time,
        })
    }

    /// Waits for the build of the scratch workspace.
    fn built(&self) -> Result<(), String> {
        self.built
            .get_or_init(|| match self.build.lock().unwrap().take() {
                Some(handle) => handle
                    .join()
                    .unwrap_or_else(|_| Err("the build thread panicked".into())),
                None => Err("the build was never started".into()),
            })
            .clone()
    }
}

/// The collection name of this repository's GDL-II descriptions ([`gdl2_games`]).
const GDL2: &str = "gdl2";

/// The GDL-II descriptions of this repository (`random` roles, `sees` percepts): the records
/// compared with the interpreter's hold every role's percepts after every joint move and which
/// roles are random, so every backend must compute `sees` as the interpreter does. They need
/// no corpus.
fn gdl2_games() -> Vec<CorpusGame> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut kifs = vec![root.join("../examples/montyHall.kif")];
    if let Ok(entries) = std::fs::read_dir(root.join("fixtures/gdl2")) {
        kifs.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "kif")),
        );
    }
    kifs.sort();
    kifs.into_iter()
        .map(|kif| CorpusGame {
            collection: GDL2.into(),
            name: kif
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            kif,
            trace: None,
        })
        .collect()
}

/// The collection name of the compiler's own fixtures played here ([`fixture_games`]).
const FIXTURES: &str = "fixtures";

/// Fixtures of gdlc's tests whose generated code only playing checks: `playedArms.kif`, whose
/// props decided by one role's move are computed per move in its `@shared` module
/// (`played_<r>`, snapshot in `gdlc/tests/played_arms.rs`); `knightMoves.kif`, whose legal
/// moves from one square share the state bit that makes them legal (listed through tables of
/// first bit to move); `stuckTake.kif`, whose `terminal` reads "has a legal move", tested
/// from the legal words (inline: `legal_<r>` memoised); `bitDepth.kif`, whose relations of
/// inert bits are grounded without them (`gdlc/src/inert.rs`); `jumpOver.kif`, whose `next`
/// keeps a jumped cell in the arms of the jumps (`gdlc/tests/next_arms.rs`);
/// `pieceBlocks.kif`, whose legal moves of a piece on a cell are computed in a block skipped
/// when that state bit is clear (`gdlc/tests/legal_blocks.rs`). They need no corpus.
fn fixture_games() -> Vec<CorpusGame> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        "playedArms",
        "knightMoves",
        "stuckTake",
        "bitDepth",
        "jumpOver",
        "pieceBlocks",
    ]
    .into_iter()
    .map(|name| CorpusGame {
        collection: FIXTURES.into(),
        name: name.into(),
        kif: root.join(format!("../gdlc/tests/fixtures/{name}.kif")),
        trace: None,
    })
    .collect()
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

/// What the trials share: the selected games, their setup once made, and a row per module.
struct Shared {
    games: Vec<CorpusGame>,
    setup: OnceLock<Result<Setup, String>>,
    rows: Mutex<Vec<String>>,
}

/// The check of the selected game `name`: every module of it against the interpreter and the
/// reference trace.
fn check(shared: &Shared, name: &str) -> Result<(), String> {
    let setup = shared
        .setup
        .get_or_init(|| Setup::new(&shared.games))
        .as_ref()
        .map_err(|e| e.clone())?;
    let i = shared.games.iter().position(|g| g.name == name);
    let i = i.ok_or_else(|| format!("{name}: not selected"))?;
    let game = &shared.games[i];
    let modules = setup.compiled[i]
        .as_ref()
        .map_err(|e| format!("does not compile: {e}"))?;
    let seeds: RangeInclusive<u64> = 1..=playouts();
    let source = read_game(&game.kif);
    let interp = watched(
        &format!("interpreter playouts of {}", game.name),
        Duration::from_secs(900),
        || compiled::interpreter_records(&source, &seeds),
    )?;
    setup.built()?;
    for module in modules {
        let start = Instant::now();
        let batch = setup
            .batches
            .iter()
            .find(|b| b.games.contains(&module.name))
            .ok_or_else(|| format!("{}: in no batch", module.name))?;
        let limits = Limits {
            timeout: Some(Duration::from_secs(300)),
            memory_bytes: None,
        };
        let text = watched(
            &format!("compiled playouts of {}", module.name),
            Duration::from_secs(600),
            || compiled::compiled_records(batch, &module.name, &seeds, &limits),
        )
        .map_err(|e| format!("{}: the compiled binary failed: {e}", module.name))?;
        if let (Some(reference), Some(seed1)) = (
            &game.trace,
            gdl_tools::compare::split_records(&text).first(),
        ) && *seeds.start() == 1
        {
            compare_with_reference(seed1, reference)
                .map_err(|e| format!("{}: {e}", module.name))?;
        }
        let stats = compare_with_interpreter(&text, &interp, *seeds.start())
            .map_err(|e| format!("{}: {e}", module.name))?;
        shared.rows.lock().unwrap().push(format!(
            "{:<32} {:>8} {:>10} {:>9.2} {:>9} {:>10} {:>9.2}",
            module.name,
            module.backend.name(),
            module.rust.len(),
            module.compile_time.as_secs_f64(),
            stats.playouts,
            stats.states,
            start.elapsed().as_secs_f64()
        ));
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![Trial::test("ci-set-size", || {
        if CI_GAMES.len() >= 30 {
            Ok(())
        } else {
            Err(format!("only {} games in the CI set", CI_GAMES.len()).into())
        }
    })];
    // The CI set needs the corpus; the GDL-II descriptions and fixtures of this repository do
    // not.
    let (all, ci_names): (Vec<CorpusGame>, &[&str]) = match corpus_or_notice("compiled") {
        Some(all) => (all, CI_GAMES),
        None => {
            trials.push(absent_trial("compiled"));
            (Vec::new(), &[])
        }
    };
    let mut games: Vec<CorpusGame> = Vec::new();
    let shared = Arc::new(OnceLock::<Shared>::new());
    let own: Vec<CorpusGame> = gdl2_games().into_iter().chain(fixture_games()).collect();
    let selected = ci_names
        .iter()
        .map(|name| (name.to_string(), find_game(&all, name)))
        .chain(own.iter().map(|g| (g.name.clone(), Some(g))));
    for (name, game) in selected {
        let Some(game) = game else {
            trials.push(Trial::test(name.clone(), move || {
                Err(format!("{name}: not in the corpus").into())
            }));
            continue;
        };
        let shared = shared.clone();
        let label = format!("{}/{}", game.collection, game.name);
        let name = game.name.clone();
        let trial = Trial::test(label, move || {
            check(shared.get().expect("set before the trials run"), &name).map_err(Failed::from)
        });
        // Only the games the command line selects are compiled and built.
        if !args.is_filtered_out(&trial) && !args.is_ignored(&trial) {
            games.push(game.clone());
        }
        trials.push(trial);
    }
    let _ = shared.set(Shared {
        games,
        setup: OnceLock::new(),
        rows: Mutex::new(Vec::new()),
    });
    let conclusion = libtest_mimic::run(&args, trials);
    let shared = shared.get().expect("set above");
    if let Some(Ok(setup)) = shared.setup.get() {
        eprintln!(
            "{:<32} {:>8} {:>10} {:>9} {:>9} {:>10} {:>9}",
            "module", "backend", "rust bytes", "gdlc s", "playouts", "states", "check s"
        );
        let mut rows = shared.rows.lock().unwrap().clone();
        rows.sort();
        for row in rows {
            eprintln!("{row}");
        }
        eprintln!(
            "{} games, {} batches; gdlc {:.1} s, cargo build {:.1} s, total {:.1} s",
            shared.games.len(),
            setup.batches.len(),
            setup.compile_time.as_secs_f64(),
            setup.build_time.lock().unwrap().as_secs_f64(),
            setup.started.elapsed().as_secs_f64()
        );
    }
    conclusion.exit();
}
