//! The compiler pipeline: GDL source text to a Rust module implementing
//! [`gdl_runtime::Game`].
//!
//! [`run`] is the list of passes, in order:
//!
//! | pass | module | output |
//! |---|---|---|
//! | parse | [`crate::frontend`] (KIF or infix, by the source's name) | [`Program`] (the syntax tree) |
//! | check | [`crate::frontend`], [`crate::check`] | diagnostics; the relation strata ([`Strata`]) |
//! | normalise | [`crate::normalize`] | flat rules ([`NProgram`]) |
//! | project | [`crate::inert`], [`crate::project`] | the same, inert argument positions dropped, local variables projected out |
//! | ground | [`crate::ground`] | ground rules over reachable atoms ([`GroundProgram`]) |
//! | lower | [`crate::ir`] | the propositional circuit ([`Ir`]) |
//! | optimise | [`crate::optimise`] | the same, simplified |
//! | generate | [`crate::codegen`] | Rust source text |
//!
//! [`compile`] runs them all; [`run`] stops after any [`Stage`] and keeps what each pass made,
//! for `gdlc dump`, and the time of each pass. [`CompileOptions::progress`] is told when each
//! pass starts and how far the long ones are ([`crate::progress`]). Nothing here does I/O, and nothing panics on any input: every problem is a
//! [`Diagnostic`]. Code generation cannot fail: what it relies on is checked before.

use crate::diag::codes;
use std::time::{Duration, Instant};

use crate::ast::Program;
use crate::check::CheckOptions;
use crate::codegen::{self, CodegenOptions};
use crate::diag::Diagnostic;
use crate::frontend::{self, Source};
use crate::ground::{self, GroundOptions, GroundProgram, GroundStats};
use crate::ir::{self, Ir, IrStats};
use crate::normalize::{self, NProgram, NormalizeOptions};
use crate::optimise::{self, OptimiseOptions};
use crate::progress::{Pass, Progress, ProgressHook};
use crate::stratify::Strata;
use crate::{inert, project};

mod race;
mod render;

pub use race::{Lap, Race, RaceOptions};

/// Options of the whole pipeline.
#[derive(Clone, Debug, Default)]
pub struct CompileOptions {
    /// The checker's options (e.g. [`CheckOptions::lenient_arities`]).
    pub check: CheckOptions,
    pub normalize: NormalizeOptions,
    pub ground: GroundOptions,
    pub optimise: OptimiseOptions,
    pub codegen: CodegenOptions,
    /// Told when each pass starts and how far the long ones are (nothing by default); it
    /// replaces the hooks of [`GroundOptions`] and [`CodegenOptions`].
    pub progress: ProgressHook,
    /// What a description too large to ground compiles to.
    pub last_resort: LastResort,
    /// With [`LastResort::EmbeddedInterpreter`], how a hybrid module (rules joined at run time)
    /// is raced against the interpreter, which is embedded instead when it is faster.
    pub race: RaceOptions,
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
    /// The grounder's errors (the default of [`CompileOptions::default`], and the `gdl!`
    /// macro's, whose crate need not depend on `gdlc`).
    #[default]
    Fail,
    /// A module that embeds the reference interpreter ([`crate::interp::embedded`]): the crate
    /// then depends on `gdlc` too, and the game plays exactly as fast as the interpreter. The
    /// grounder's findings become warnings. [`CompileOptions::for_game`] chooses it.
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

/// The passes, in order; [`run`] stops after the one it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Parsed.
    Ast,
    /// Checked and stratified.
    Strata,
    /// Normalised and grounded.
    Ground,
    /// Lowered to the IR and optimised.
    Ir,
    /// Rust generated.
    Rust,
}

/// What the passes made, up to the stage [`run`] stopped after.
#[derive(Debug, Default)]
pub struct Artifacts {
    pub program: Program,
    /// Warnings of the reader and the checker.
    pub warnings: Vec<Diagnostic>,
    /// The relation strata (absent when only an instance-level stratification exists).
    pub strata: Option<Strata>,
    pub normalized: Option<NProgram>,
    pub ground: Option<GroundProgram>,
    /// The IR as lowered, before optimisation (sizes only are kept by default).
    pub ir_lowered: Option<IrStats>,
    pub ir: Option<Ir>,
    pub rust: Option<String>,
    /// The backend the Rust was generated with ([`codegen::chosen_backend`]).
    pub backend: Option<codegen::Backend>,
    /// Whether the Rust embeds the interpreter ([`LastResort::EmbeddedInterpreter`]; then
    /// there is no ground program nor IR).
    pub embedded_interpreter: bool,
    /// The race of a hybrid network against the interpreter ([`race`]), when one was run.
    pub race: Option<Race>,
    /// The time of each pass that ran.
    pub timings: Vec<(&'static str, Duration)>,
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
    let mut a = run(source, options, Stage::Rust)?;
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
    stop: Stage,
) -> Result<Artifacts, Vec<Diagnostic>> {
    let mut a = Artifacts::default();
    let mut passes = Passes {
        hook: &options.progress,
        clock: Instant::now(),
        current: Pass::ParseCheck,
    };

    let source = source.into();
    if stop == Stage::Ast {
        passes.start(Pass::ParseCheck);
        let (program, diags) = source.syntax().parse(source.text);
        fail_on_errors(&diags)?;
        a.warnings = diags;
        a.program = program;
        a.timings.push(("parse", passes.clock.elapsed()));
        return Ok(a);
    }

    let (name, text) = (source.name, source.text);
    passes.start(Pass::ParseCheck);
    let checked = frontend::load(source, &options.check)?;
    a.program = checked.program;
    a.warnings = checked.warnings;
    a.strata = checked.strata;
    passes.done(&mut a);
    if stop == Stage::Strata {
        return Ok(a);
    }

    passes.start(Pass::Normalise);
    let nprog = normalize::normalize(&a.program, options.normalize)?;
    passes.done(&mut a);
    passes.start(Pass::Project);
    let reduced = inert::drop_inert(&nprog);
    let projected = project::project(reduced.as_ref().unwrap_or(&nprog));
    drop(reduced);
    passes.done(&mut a);
    passes.start(Pass::Ground);
    let mut ground_options = options.ground.clone();
    ground_options.progress = options.progress.clone();
    let g = match ground::ground(&projected, &ground_options) {
        Ok(g) => g,
        Err(e)
            if e.is_too_large()
                && stop == Stage::Rust
                && options.last_resort == LastResort::EmbeddedInterpreter =>
        {
            passes.done(&mut a);
            passes.start(Pass::Generate);
            embed(&mut a, options, (name, text), e.into_diagnostics());
            a.normalized = Some(nprog);
            passes.done(&mut a);
            return Ok(a);
        }
        Err(e) => return Err(e.into_diagnostics()),
    };
    a.normalized = Some(nprog);
    passes.done(&mut a);
    if stop == Stage::Ground {
        a.ground = Some(g);
        return Ok(a);
    }

    // Rules left to run time: the network will be raced against the interpreter, whose lap
    // needs nothing of what follows, so it plays meanwhile (on the other core).
    let mut interpreter_lap = (stop == Stage::Rust
        && options.last_resort == LastResort::EmbeddedInterpreter
        && options.race.enabled
        && !g.joins.joins.is_empty())
    .then(|| race::InterpreterLap::start(&a.program, &options.race));
    passes.start(Pass::Lower);
    let mut g = g;
    // The ground rules are freed here, as soon as lowering has read them (on the freeing
    // thread they contended with lowering for the allocator: amazonsTorus 4% slower).
    let mut ir = ir::lower_taking(&mut g, &options.progress, &mut drop).map_err(|e| {
        let span = e
            .rule()
            .and_then(|r| a.program.rules.get(r))
            .map(|r| r.span);
        vec![e.diagnostic(span.unwrap_or_default())]
    })?;
    if let Some(nprog) = &a.normalized {
        ir.declarations = ground::declared::declarations(nprog, &ir.roles);
    }
    a.ground = Some(g);
    a.ir_lowered = Some(ir.stats());
    passes.done(&mut a);
    passes.start(Pass::Optimise);
    let mut optimise_options = options.optimise.clone();
    optimise_options.progress = options.progress.clone();
    optimise::optimise(&mut ir, &optimise_options);
    passes.done(&mut a);
    if stop == Stage::Ir {
        a.ir = Some(ir);
        return Ok(a);
    }

    passes.start(Pass::Generate);
    if stop == Stage::Rust
        && options.last_resort == LastResort::EmbeddedInterpreter
        && options.race.enabled
        && !ir.joins.is_empty()
    {
        let net = codegen::propnet::module_net(&ir);
        let lap = interpreter_lap
            .take()
            .unwrap_or_else(|| race::InterpreterLap::start(&a.program, &options.race));
        let result = race::race_with(net, lap, &options.race);
        a.race = Some(result);
        if result.embed_interpreter {
            let reason = Diagnostic::error(
                codes::HYBRID_SLOWER,
                Default::default(),
                format!(
                    "with rules joined at run time, the network visits {:.0} states per CPU \
                     second, the interpreter {:.0} (in a race of {:?} CPU time each)",
                    result.network.rate(),
                    result.interpreter.rate(),
                    options.race.budget
                ),
            );
            embed(&mut a, options, (name, text), vec![reason]);
            a.ground = None;
            passes.done(&mut a);
            return Ok(a);
        }
    }
    // Not raced after all (no rule left to run time once optimised): told to stop.
    drop(interpreter_lap);
    let mut codegen_options = options.codegen.clone();
    codegen_options.progress = options.progress.clone();
    let lines = crate::diag::LineIndex::new(text);
    codegen_options.rule_lines = a
        .program
        .rules
        .iter()
        .map(|r| lines.line_col(text, r.span.start).0 as u32)
        .collect();
    let (rust, backend) = codegen::generate_chosen(&ir, &codegen_options);
    if let Some(w) = long_inline_code(&codegen_options, rust.len()) {
        a.warnings.push(w);
    }
    a.backend = Some(backend);
    a.ir = Some(ir);
    a.rust = Some(rust);
    passes.done(&mut a);
    Ok(a)
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
    (name, text): (&str, &str),
    reasons: Vec<Diagnostic>,
) {
    let source = codegen::embedded::EmbeddedSource {
        type_name: &options.codegen.type_name,
        name,
        text,
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

/// The pass running, its start, and where it is reported.
struct Passes<'h> {
    hook: &'h ProgressHook,
    clock: Instant,
    current: Pass,
}

impl Passes<'_> {
    fn start(&mut self, pass: Pass) {
        self.current = pass;
        self.clock = Instant::now();
        self.hook.report(Progress::Pass(pass));
    }

    /// Records the time of the current pass.
    fn done(&mut self, a: &mut Artifacts) {
        a.timings.push((self.current.name(), self.clock.elapsed()));
    }
}

fn fail_on_errors(diags: &[Diagnostic]) -> Result<(), Vec<Diagnostic>> {
    let errors: Vec<Diagnostic> = diags.iter().filter(|d| d.is_error()).cloned().collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
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
        assert!(run(game, &options, Stage::Ground).is_err());
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
        assert_eq!(
            passes,
            [
                Pass::ParseCheck,
                Pass::Normalise,
                Pass::Project,
                Pass::Ground,
                Pass::Lower,
                Pass::Optimise,
                Pass::Generate
            ]
        );
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
