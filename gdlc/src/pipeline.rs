//! The compiler pipeline: GDL source text to a Rust module implementing
//! [`gdl_runtime::Game`].
//!
//! [`run`] is the list of passes ([`Pass`]), in order; each is a function of `passes` that
//! calls the module named for it:
//!
//! | pass | module | output (`gdlc dump --emit`) |
//! |---|---|---|
//! | parse | [`crate::frontend`] (KIF or infix, by the source's name) | `ast`: [`Program`] |
//! | check | [`crate::frontend`], [`mod@crate::check`] | `strata`: diagnostics, the relation strata ([`Strata`]) |
//! | normalise | [`crate::normalize`] | `normalised`: flat rules ([`NProgram`]) |
//! | project | [`crate::inert`], [`crate::project`] | `projected`: the same, inert argument positions dropped, local variables projected out |
//! | ground | [`crate::ground`] | `ground`: ground rules over reachable atoms ([`GroundProgram`]) |
//! | lower | [`crate::ir`] | `ir`: the propositional circuit ([`Ir`]) |
//! | optimise | [`crate::optimise`] | `optimised`: the same, simplified |
//! | generate | [`crate::codegen`] | `rust`: Rust source text |
//!
//! [`compile`] runs them all; [`run`] stops after any [`Pass`] and keeps what each pass made,
//! for `gdlc dump`, and the time of each pass. [`CompileOptions::progress`] is told when each
//! pass starts and how far the long ones are ([`crate::progress`]). With
//! [`CompileOptions::verify`] (debug builds, and the tests), the ground program and the IR are
//! checked for their invariants after the pass that made them ([`crate::ground::verify`],
//! [`crate::ir::verify`]). A game that cannot be compiled to a network (too large to ground, or a
//! hybrid network slower than the interpreter) embeds the interpreter where the options allow
//! it ([`LastResort`]); that is decided in one place (`passes::Run::pass`). Nothing here does
//! I/O, and nothing panics on any input: every problem is a [`Diagnostic`].

use crate::diag::codes;
use std::time::Duration;

use crate::ast::Program;
use crate::check::CheckOptions;
use crate::codegen::{self, CodegenOptions};
use crate::diag::Diagnostic;
use crate::frontend::Source;
use crate::ground::{GroundOptions, GroundProgram, GroundStats};
use crate::ir::{Ir, IrStats};
use crate::normalize::{NProgram, NormalizeOptions};
use crate::optimise::OptimiseOptions;
pub use crate::progress::Pass;
use crate::progress::ProgressHook;
use crate::stratify::Strata;

mod passes;
mod race;
mod render;

pub use race::{Lap, Race, RaceOptions};

/// Options of the whole pipeline.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// The checker's options (e.g. [`CheckOptions::lenient_arities`]).
    pub check: CheckOptions,
    pub normalize: NormalizeOptions,
    pub ground: GroundOptions,
    pub optimise: OptimiseOptions,
    pub codegen: CodegenOptions,
    /// Told when each pass starts and how far the long ones are (nothing by default).
    pub progress: ProgressHook,
    /// What a description too large to ground compiles to.
    pub last_resort: LastResort,
    /// With [`LastResort::EmbeddedInterpreter`], how a hybrid module (rules joined at run time)
    /// is raced against the interpreter, which is embedded instead when it is faster.
    pub race: RaceOptions,
    /// Check the invariants of the ground program and of the IR after each pass that makes or
    /// changes them (an internal error when one does not hold): on in debug builds by default,
    /// and in the tests of the pipeline.
    pub verify: bool,
}

// Not derived: `verify` is on in debug builds.
#[allow(clippy::derivable_impls)]
impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            check: CheckOptions::default(),
            normalize: NormalizeOptions::default(),
            ground: GroundOptions::default(),
            optimise: OptimiseOptions::default(),
            codegen: CodegenOptions::default(),
            progress: ProgressHook::default(),
            last_resort: LastResort::default(),
            race: RaceOptions::default(),
            verify: cfg!(debug_assertions),
        }
    }
}

/// The grounding time limit (CPU time) when a description too large to ground embeds the
/// interpreter. The on-demand attempts get half of what the first attempt leaves: at 45 s,
/// merrills (which grounds on demand in about 20 s at low load) ran out under load 10 and
/// was embedded; chess needs more than 140 s and then compiles to 10 MB of Rust.
pub const EMBEDDING_GROUND_TIME: Duration = Duration::from_secs(120);

/// What [`compile`] makes of a description too large to ground (even on demand, even with
/// rules left to run-time joins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LastResort {
    /// The grounder's errors (the default of [`CompileOptions::default`]).
    #[default]
    Fail,
    /// A module that embeds the reference interpreter ([`crate::interp::embedded`]): the crate
    /// then depends on `gdl-interp` too (not on the compiler), and the game plays exactly as
    /// fast as the interpreter. The grounder's findings become warnings.
    /// [`CompileOptions::for_game`] (the commands' and the `gdl!` macro's options) chooses it.
    EmbeddedInterpreter,
}

impl CompileOptions {
    /// The default options for a game whose file stem is `stem` (`ticTacToe`): the game
    /// struct is named [`rust_type_name`]`(stem)` and the header names the file; a description
    /// too large to ground embeds the interpreter ([`LastResort::EmbeddedInterpreter`]), so
    /// grounding gives up sooner ([`EMBEDDING_GROUND_TIME`]).
    pub fn for_game(stem: &str) -> CompileOptions {
        let mut o = CompileOptions {
            last_resort: LastResort::EmbeddedInterpreter,
            ..CompileOptions::default()
        };
        o.ground.time_limit = Some(EMBEDDING_GROUND_TIME);
        o.codegen.type_name = rust_type_name(stem);
        o.codegen.source_name = format!("{stem}.kif");
        o
    }
}

/// What the passes made, up to the pass [`run`] stopped after.
#[derive(Debug, Default)]
pub struct Artifacts {
    pub program: Program,
    /// Warnings of the reader and the checker.
    pub warnings: Vec<Diagnostic>,
    /// The relation strata (absent when only an instance-level stratification exists).
    pub strata: Option<Strata>,
    pub normalized: Option<NProgram>,
    /// The normalised rules projected (freed once grounded).
    pub projected: Option<NProgram>,
    /// The ground program (its rules freed once lowered: its statistics count them).
    pub ground: Option<GroundProgram>,
    /// The IR as lowered, before optimisation (sizes only are kept by default).
    pub ir_lowered: Option<IrStats>,
    /// The IR, as lowered or optimised (by [`Artifacts::last`]).
    pub ir: Option<Ir>,
    pub rust: Option<String>,
    /// The backend the Rust was generated with ([`codegen::chosen_backend`]).
    pub backend: Option<codegen::Backend>,
    /// Whether the Rust embeds the interpreter ([`LastResort::EmbeddedInterpreter`]; then
    /// there is no ground program nor IR).
    pub embedded_interpreter: bool,
    /// The race of a hybrid network against the interpreter (`race`), when one was run.
    pub race: Option<Race>,
    /// The time of each pass that ran.
    pub timings: Vec<(&'static str, Duration)>,
    /// The last pass that ran ([`Pass::Generate`] when the interpreter was embedded).
    pub last: Option<Pass>,
}

/// A compiled game.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The Rust module: one file that implements `gdl_runtime::Game` (needs the `gdl-runtime`
    /// crate only).
    pub rust: String,
    /// The name of the game struct in [`Compiled::rust`].
    pub type_name: String,
    pub stats: CompileStats,
    /// Warnings of the reader and the checker.
    pub warnings: Vec<Diagnostic>,
}

/// Sizes and times of a compilation.
#[derive(Clone, Debug, Default)]
pub struct CompileStats {
    pub ground: GroundStats,
    /// The IR before optimisation.
    pub ir_lowered: IrStats,
    /// The IR that code was generated from.
    pub ir: IrStats,
    /// Bytes of generated Rust.
    pub rust_bytes: usize,
    /// The backend the Rust was generated with (never [`codegen::Backend::Auto`], unless
    /// the module embeds the interpreter).
    pub backend: codegen::Backend,
    /// Whether the module embeds the interpreter ([`LastResort::EmbeddedInterpreter`]).
    pub embedded_interpreter: bool,
    /// The race of a hybrid network against the interpreter, when one was run.
    pub race: Option<Race>,
    pub timings: Vec<(&'static str, Duration)>,
}

impl CompileStats {
    /// How the game is computed, for reports: the backend's name, or `embedded-interpreter`.
    pub fn engine_name(&self) -> &'static str {
        if self.embedded_interpreter {
            "embedded-interpreter"
        } else {
            self.backend.name()
        }
    }
}

/// Compiles a GDL description into a Rust module. The source's name decides its syntax (see
/// [`crate::frontend`]); a bare `&str` is KIF or infix by its first token.
pub fn compile<'a>(
    source: impl Into<Source<'a>>,
    options: &CompileOptions,
) -> Result<Compiled, Vec<Diagnostic>> {
    let mut a = run(source, options, Pass::Generate)?;
    if a.embedded_interpreter
        && let Some(rust) = a.rust
    {
        return Ok(Compiled {
            stats: CompileStats {
                rust_bytes: rust.len(),
                embedded_interpreter: true,
                race: a.race,
                timings: a.timings,
                ..CompileStats::default()
            },
            rust,
            type_name: options.codegen.type_name.clone(),
            warnings: a.warnings,
        });
    }
    let (Some(g), Some(ir), Some(rust), Some(ir_lowered)) =
        (&a.ground, &a.ir, a.rust.take(), a.ir_lowered.take())
    else {
        return Err(vec![Diagnostic::error(
            codes::INTERNAL,
            Default::default(),
            "a pass produced nothing",
        )]);
    };
    let compiled = Compiled {
        stats: CompileStats {
            ground: g.stats,
            ir_lowered,
            ir: ir.stats(),
            rust_bytes: rust.len(),
            backend: a.backend.unwrap_or_default(),
            embedded_interpreter: false,
            race: a.race,
            timings: std::mem::take(&mut a.timings),
        },
        rust,
        type_name: options.codegen.type_name.clone(),
        warnings: std::mem::take(&mut a.warnings),
    };
    free(a.ground.take(), a.ir.take());
    Ok(compiled)
}

/// A ground program of more rules than this is freed on a thread of its own ([`free`]).
const FREED_APART: usize = 100_000;

/// Frees what the passes made. A large ground program and its IR (millions of small vectors:
/// 0.5-1 s of ruleDepthExponential's or amazonsTorus's compile) are freed on a thread of their
/// own ([`crate::alloc::drop_apart`]), so that the caller has the module at once.
fn free(ground: Option<GroundProgram>, ir: Option<Ir>) {
    // (Lowering freed the rules: the ground program's statistics count them.)
    let large = ground.as_ref().is_some_and(|g| g.stats.rules > FREED_APART);
    crate::alloc::drop_apart((ground, ir), large);
}

/// Runs the passes up to and including `stop`, reporting each to [`CompileOptions::progress`].
pub fn run<'a>(
    source: impl Into<Source<'a>>,
    options: &CompileOptions,
    stop: Pass,
) -> Result<Artifacts, Vec<Diagnostic>> {
    let mut run = passes::Run::new(source.into(), options, stop);
    run.pass(Pass::Parse, passes::parse)?;
    run.pass(Pass::Check, passes::check)?;
    run.pass(Pass::Normalise, passes::normalise)?;
    run.pass(Pass::Project, passes::project)?;
    run.pass(Pass::Ground, passes::ground)?;
    run.pass(Pass::Lower, passes::lower)?;
    run.pass(Pass::Optimise, passes::optimise)?;
    run.pass(Pass::Generate, passes::generate)?;
    Ok(run.finish())
}

/// A warning when inline code was asked for ([`codegen::Backend::Inline`]) and is longer than
/// [`codegen::CodegenOptions::inline_max_bytes`], the length up to which `auto` takes it: rustc
/// needs minutes and gigabytes on such code (BENCHMARKS.md: hex's 7.9 MB took 121 s and
/// 2.7 GB, skirmish's 13.6 MB over 8 GB).
fn long_inline_code(options: &codegen::CodegenOptions, bytes: usize) -> Option<Diagnostic> {
    (options.backend == codegen::Backend::Inline && bytes > options.inline_max_bytes).then(|| {
        Diagnostic::warning(
            codes::LONG_INLINE_CODE,
            Default::default(),
            format!(
                "the inline code is {:.1} MB (auto takes it up to {:.1} MB): rustc may need \
                 minutes and gigabytes of memory on it; `--backend propnet` or `auto` builds \
                 in seconds",
                bytes as f64 / 1e6,
                options.inline_max_bytes as f64 / 1e6
            ),
        )
        .about_whole_program()
    })
}

/// Makes `a`'s Rust the module that embeds the interpreter ([`LastResort::EmbeddedInterpreter`]),
/// whose header gives `reasons`; they become warnings.
fn embed(
    a: &mut Artifacts,
    options: &CompileOptions,
    source: Source<'_>,
    reasons: Vec<Diagnostic>,
) {
    let source = codegen::embedded::EmbeddedSource {
        type_name: &options.codegen.type_name,
        name: source.name,
        text: source.text,
        lenient_arities: options.check.lenient_arities,
    };
    a.rust = Some(codegen::embedded::embedded_module(&source, &reasons));
    a.warnings.extend(reasons.into_iter().map(|d| {
        Diagnostic {
            severity: crate::diag::Severity::Warning,
            ..d
        }
        .with_note("compiled with the reference interpreter embedded: as fast as it")
    }));
    a.embedded_interpreter = true;
}

/// A Rust type name for a game file stem: `ticTacToe` becomes `TicTacToe`, `amazons_8x8`
/// `Amazons8x8`, `3pConnectFour` `G3pConnectFour`.
pub fn rust_type_name(stem: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'G');
    }
    if out == "Self" || out == "State" {
        format!("{out}Game")
    } else {
        out
    }
}

/// A Rust module name for a game file stem: `ticTacToe` becomes `tictactoe`, `3pConnectFour`
/// `g_3pconnectfour`; names that are Rust keywords get a `_game` suffix.
pub fn rust_module_name(stem: &str) -> String {
    let mut out: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "g_");
    }
    const KEYWORDS: [&str; 52] = [
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
        "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final",
        "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
        "union",
    ];
    if KEYWORDS.contains(&out.as_str()) {
        out.push_str("_game");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Progress;

    #[test]
    fn names() {
        assert_eq!(rust_type_name("ticTacToe"), "TicTacToe");
        assert_eq!(rust_type_name("amazons_8x8"), "Amazons8x8");
        assert_eq!(rust_type_name("3pConnectFour"), "G3pConnectFour");
        assert_eq!(rust_module_name("3pConnectFour"), "g_3pconnectfour");
        assert_eq!(rust_module_name("match"), "match_game");
        assert_eq!(rust_module_name("test_case_5a"), "test_case_5a");
    }

    #[test]
    fn a_description_too_large_to_ground_embeds_the_interpreter_as_last_resort() {
        let game = include_str!("../../examples/ticTacToe.kif");
        let mut options = CompileOptions::for_game("ticTacToe");
        // Far fewer atoms than tic-tac-toe has: every attempt fails.
        options.ground.max_atoms = 20;
        let c = compile(game, &options).expect("compiles to the embedded interpreter");
        assert!(c.stats.embedded_interpreter);
        assert_eq!(c.stats.engine_name(), "embedded-interpreter");
        assert!(crate::interp::embedded::embeds_interpreter(&c.rust));
        assert!(c.rust.contains("embedded_game!(TicTacToe,"), "{}", c.rust);
        // The grounder's findings are warnings now.
        assert!(
            c.warnings
                .iter()
                .any(|w| w.code == "grounding-too-large" && !w.is_error())
        );
        let names: Vec<&str> = c.stats.timings.iter().map(|t| t.0).collect();
        assert_eq!(names.last(), Some(&"generate"));
        // Without a last resort (the `gdl!` macro's choice) it is the grounder's error.
        options.last_resort = LastResort::Fail;
        let errors = compile(game, &options).expect_err("too large");
        assert!(errors.iter().any(|d| d.code == "grounding-too-large"));
        // `gdlc dump --emit ground` shows the error too.
        options.last_resort = LastResort::EmbeddedInterpreter;
        assert!(run(game, &options, Pass::Ground).is_err());
    }

    #[test]
    fn auto_gives_up_inline_code_longer_than_the_limit() {
        use crate::codegen::Backend;
        let game = include_str!("../../examples/ticTacToe.kif");
        let mut options = CompileOptions::for_game("ticTacToe");
        let auto = compile(game, &options).expect("compiles");
        assert_eq!(auto.stats.backend, Backend::Inline);
        let long = |c: &Compiled| c.warnings.iter().any(|w| w.code == "long-inline-code");
        assert!(!long(&auto));
        options.codegen.inline_max_bytes = auto.rust.len() / 2;
        let capped = compile(game, &options).expect("compiles");
        assert_eq!(capped.stats.backend, Backend::Propnet);
        assert!(capped.rust.contains("; propnet backend."));
        assert!(!long(&capped));
        // A backend asked for by name is kept whatever its size, with a warning past the limit.
        options.codegen.backend = Backend::Inline;
        let forced = compile(game, &options).expect("compiles");
        assert_eq!(forced.stats.backend, Backend::Inline);
        assert_eq!(forced.rust, auto.rust);
        assert!(long(&forced));
        options.codegen.inline_max_bytes = auto.rust.len();
        assert!(!long(&compile(game, &options).expect("compiles")));
    }

    #[test]
    fn the_progress_hook_sees_every_pass_in_order_and_their_steps() {
        use std::sync::{Arc, Mutex};
        let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let mut options = CompileOptions::for_game("counter");
        let log = Arc::clone(&seen);
        options.progress = ProgressHook::new(move |p| log.lock().unwrap().push(p));
        let game = "(role r) (init (n 0)) (succ 0 1) (succ 1 2) \
                    (<= (legal r inc) (true (n ?x)) (succ ?x ?y)) \
                    (<= (next (n ?y)) (true (n ?x)) (succ ?x ?y)) \
                    (<= terminal (true (n 2))) (goal r 100)";
        let compiled = compile(game, &options).expect("compiles");
        let seen = seen.lock().unwrap();
        let passes: Vec<Pass> = seen
            .iter()
            .filter_map(|p| match p {
                Progress::Pass(pass) => Some(*pass),
                Progress::Step { .. } => None,
            })
            .collect();
        assert_eq!(passes, Pass::ALL);
        // Each step belongs to the pass started last, and the last step of a known total
        // reaches it.
        let mut pass = None;
        let mut last_step = std::collections::HashMap::new();
        for p in seen.iter() {
            match *p {
                Progress::Pass(x) => pass = Some(x),
                Progress::Step { what, done, total } => {
                    let expected = match what {
                        "atoms derived" | "rules instantiated" => Pass::Ground,
                        "rules linked" | "props lowered" => Pass::Lower,
                        "remove dead props" | "simplify" | "constant bits" | "factor"
                        | "passes" => Pass::Optimise,
                        "items formatted" => Pass::Generate,
                        other => panic!("unexpected step {other}"),
                    };
                    assert_eq!(pass, Some(expected), "{what}");
                    assert!(total == 0 || done <= total, "{what}: {done}/{total}");
                    last_step.insert(what, (done, total));
                }
            }
        }
        for what in [
            "rules instantiated",
            "rules linked",
            "props lowered",
            "passes",
            "items formatted",
        ] {
            let (done, total) = last_step[what];
            assert!(total > 0 && done == total, "{what}: {done}/{total}");
        }
        assert!(last_step.contains_key("atoms derived"));
        let timed: Vec<&str> = compiled.stats.timings.iter().map(|t| t.0).collect();
        assert_eq!(
            timed,
            passes.iter().map(|p| p.name()).collect::<Vec<_>>(),
            "one timing per pass"
        );
    }
}
