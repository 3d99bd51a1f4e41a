//! The passes of [`super::run`], one function each, and what runs them: [`Run::pass`] starts
//! a pass (reporting it to the progress hook), times it, checks its output
//! ([`super::CompileOptions::verify`]) and, when a pass hands the game to the embedded
//! interpreter ([`Flow::Embed`]), decides whether that is allowed ([`Run::may_embed`]) and
//! embeds it.

use std::time::Instant;

use super::race::{self, InterpreterLap};
use super::{Artifacts, CompileOptions, LastResort, embed};
use crate::diag::{Diagnostic, codes};
use crate::frontend::{self, Source};
use crate::progress::{Pass, Progress};
use crate::{codegen, ground, inert, ir, normalize, optimise, project};

/// What a pass leaves to the next.
pub(super) enum Flow {
    /// The next pass runs.
    Next,
    /// The game cannot be compiled to a network (too large to ground, or a hybrid network
    /// slower than the interpreter), for these reasons: the interpreter is embedded when the
    /// options allow it ([`Run::may_embed`]), else the reasons are the errors.
    Embed(Vec<Diagnostic>),
}

type PassResult = Result<Flow, Vec<Diagnostic>>;

/// A run of the passes: the source, the options, where to stop, and what the passes made.
pub(super) struct Run<'s, 'o> {
    source: Source<'s>,
    options: &'o CompileOptions,
    stop: Pass,
    pub a: Artifacts,
    /// The interpreter's lap of the race against a hybrid network, started once grounding left
    /// rules to run time ([`race`]).
    lap: Option<InterpreterLap>,
    /// The interpreter was embedded: no pass runs after.
    embedded: bool,
}

impl<'s, 'o> Run<'s, 'o> {
    pub fn new(source: Source<'s>, options: &'o CompileOptions, stop: Pass) -> Self {
        Run {
            source,
            options,
            stop,
            a: Artifacts::default(),
            lap: None,
            embedded: false,
        }
    }

    /// Runs `pass` (`f`), unless the run stops before it or the interpreter was embedded.
    pub fn pass(
        &mut self,
        pass: Pass,
        f: fn(&mut Self) -> PassResult,
    ) -> Result<(), Vec<Diagnostic>> {
        if self.embedded || pass > self.stop {
            return Ok(());
        }
        let clock = self.start(pass);
        let flow = f(self)?;
        self.a.last = Some(pass);
        match flow {
            Flow::Next => {
                self.a.timings.push((pass.name(), clock.elapsed()));
                self.verify(pass)
            }
            Flow::Embed(reasons) if self.may_embed() => {
                // Embedding is code generation: timed as that pass.
                let clock = if pass == Pass::Generate {
                    clock
                } else {
                    self.a.timings.push((pass.name(), clock.elapsed()));
                    self.start(Pass::Generate)
                };
                embed(&mut self.a, self.options, self.source, reasons);
                self.a.last = Some(Pass::Generate);
                self.a
                    .timings
                    .push((Pass::Generate.name(), clock.elapsed()));
                self.embedded = true;
                Ok(())
            }
            Flow::Embed(reasons) => Err(reasons),
        }
    }

    /// What the passes made.
    pub fn finish(self) -> Artifacts {
        // A lap still running was not raced (no rule left to run time once optimised): told
        // to stop when dropped.
        self.a
    }

    fn start(&self, pass: Pass) -> Instant {
        self.options.progress.report(Progress::Pass(pass));
        Instant::now()
    }

    /// Whether a game that cannot be compiled to a network embeds the interpreter: only when
    /// the run goes to the end and the options choose it ([`LastResort::EmbeddedInterpreter`]).
    fn may_embed(&self) -> bool {
        self.stop == Pass::Generate && self.options.last_resort == LastResort::EmbeddedInterpreter
    }

    /// Whether a hybrid network is raced against the interpreter ([`super::RaceOptions`]).
    fn races(&self) -> bool {
        self.may_embed() && self.options.race.enabled
    }

    /// With [`CompileOptions::verify`], checks the invariants of what `pass` made: an internal
    /// error when one does not hold.
    fn verify(&self, pass: Pass) -> Result<(), Vec<Diagnostic>> {
        if !self.options.verify {
            return Ok(());
        }
        let broken = match pass {
            Pass::Ground => self
                .a
                .ground
                .as_ref()
                .and_then(|g| ground::verify::verify(g, self.a.program.rules.len()).err()),
            Pass::Lower | Pass::Optimise => self
                .a
                .ir
                .as_ref()
                .and_then(|ir| ir::verify::verify(ir).err()),
            _ => None,
        };
        match broken {
            None => Ok(()),
            Some(what) => Err(vec![Diagnostic::error(
                codes::INTERNAL,
                Default::default(),
                format!(
                    "the {} pass broke an invariant (a bug of gdlc's): {what}",
                    pass.name()
                ),
            )]),
        }
    }
}

/// Reads the description ([`frontend::parse`]).
pub fn parse(r: &mut Run<'_, '_>) -> PassResult {
    let (program, diagnostics) = frontend::parse(r.source);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect());
    }
    r.a.program = program;
    r.a.warnings = diagnostics;
    Ok(Flow::Next)
}

/// Checks it and stratifies its relations ([`frontend::check_parsed`]).
pub fn check(r: &mut Run<'_, '_>) -> PassResult {
    let program = std::mem::take(&mut r.a.program);
    let read = std::mem::take(&mut r.a.warnings);
    let checked = frontend::check_parsed(program, read, &r.options.check)?;
    r.a.program = checked.program;
    r.a.warnings = checked.warnings;
    r.a.strata = checked.strata;
    Ok(Flow::Next)
}

/// Flattens the rules ([`normalize`]).
pub fn normalise(r: &mut Run<'_, '_>) -> PassResult {
    r.a.normalized = Some(normalize::normalize(&r.a.program, r.options.normalize)?);
    Ok(Flow::Next)
}

/// Drops inert argument positions ([`inert`]) and projects local variables out ([`project`]).
pub fn project(r: &mut Run<'_, '_>) -> PassResult {
    let Some(nprog) = &r.a.normalized else {
        return Err(nothing(Pass::Normalise));
    };
    let reduced = inert::drop_inert(nprog);
    r.a.projected = Some(project::project(reduced.as_ref().unwrap_or(nprog)));
    Ok(Flow::Next)
}

/// Grounds the projected rules ([`ground`]), which are freed then. When rules are left to run
/// time and a hybrid network would be raced against the interpreter, the interpreter's lap
/// starts now: it needs nothing of what follows, so it plays (on the other core) meanwhile.
pub fn ground(r: &mut Run<'_, '_>) -> PassResult {
    let Some(projected) = r.a.projected.take() else {
        return Err(nothing(Pass::Project));
    };
    let g = match ground::ground_reporting(&projected, &r.options.ground, &r.options.progress) {
        Ok(g) => g,
        Err(e) if e.is_too_large() => return Ok(Flow::Embed(e.into_diagnostics())),
        Err(e) => return Err(e.into_diagnostics()),
    };
    if r.races() && !g.joins.joins.is_empty() {
        r.lap = Some(InterpreterLap::start(&r.a.program, &r.options.race));
    }
    r.a.ground = Some(g);
    Ok(Flow::Next)
}

/// Lowers the ground rules to the IR ([`ir::lower_taking`]), freeing them as soon as they are
/// read (on the freeing thread they contended with lowering for the allocator: amazonsTorus
/// 4% slower); the ground program keeps its statistics.
pub fn lower(r: &mut Run<'_, '_>) -> PassResult {
    let Some(g) = r.a.ground.as_mut() else {
        return Err(nothing(Pass::Ground));
    };
    let program = &r.a.program;
    let mut ir = ir::lower_taking(g, &r.options.progress, &mut drop).map_err(|e| {
        let span = e.rule().and_then(|i| program.rules.get(i)).map(|r| r.span);
        vec![e.diagnostic(span.unwrap_or_default())]
    })?;
    if let Some(nprog) = &r.a.normalized {
        ir.declarations = crate::interp::declared::declarations(nprog, &r.a.program, &ir.roles);
    }
    r.a.ir_lowered = Some(ir.stats());
    r.a.ir = Some(ir);
    Ok(Flow::Next)
}

/// Simplifies the IR ([`optimise`]).
pub fn optimise(r: &mut Run<'_, '_>) -> PassResult {
    let Some(ir) = r.a.ir.as_mut() else {
        return Err(nothing(Pass::Lower));
    };
    optimise::optimise_reporting(ir, &r.options.optimise, &r.options.progress);
    Ok(Flow::Next)
}

/// Generates the Rust module ([`codegen`]); a hybrid network (rules joined at run time) is
/// first raced against the interpreter ([`race`]), which is embedded when it is faster.
pub fn generate(r: &mut Run<'_, '_>) -> PassResult {
    let Some(ir) = r.a.ir.as_ref() else {
        return Err(nothing(Pass::Optimise));
    };
    let options = &r.options;
    if r.races() && !ir.joins.is_empty() {
        let lap = r
            .lap
            .take()
            .unwrap_or_else(|| InterpreterLap::start(&r.a.program, &options.race));
        let result = race::race_with(codegen::propnet::module_net(ir), lap, &options.race);
        r.a.race = Some(result);
        if result.embed_interpreter {
            r.a.ground = None;
            r.a.ir = None;
            return Ok(Flow::Embed(vec![race::slower(&result, &options.race)]));
        }
    }
    // Not raced after all (no rule left to run time once optimised): told to stop.
    r.lap = None;
    let mut codegen_options = options.codegen.clone();
    let text = r.source.text;
    let lines = crate::diag::LineIndex::new(text);
    codegen_options.rule_lines =
        r.a.program
            .rules
            .iter()
            .map(|rule| lines.line_col(text, rule.span.start).0 as u32)
            .collect();
    let (rust, backend) = codegen::generate_reporting(ir, &codegen_options, &options.progress);
    if let Some(w) = super::long_inline_code(&codegen_options, rust.len()) {
        r.a.warnings.push(w);
    }
    r.a.backend = Some(backend);
    r.a.rust = Some(rust);
    Ok(Flow::Next)
}

/// The error of a pass whose input the pass before did not make (a bug of gdlc's).
fn nothing(before: Pass) -> Vec<Diagnostic> {
    vec![Diagnostic::error(
        codes::INTERNAL,
        Default::default(),
        format!("the {} pass produced nothing", before.name()),
    )]
}
