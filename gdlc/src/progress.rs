//! How far a compilation is, for a caller that shows it: the library does no I/O, it calls a
//! [`ProgressHook`] (a no-op by default) with a [`Progress`] when a pass starts and, in the long
//! passes, as it goes (grounding: rounds of the reachability fixpoint and rules instantiated;
//! optimisation: its steps, each a pass over the props; code generation: pieces formatted). The `gdlc` command draws it as a progress bar when
//! standard error is a terminal.

use std::fmt;
use std::panic::RefUnwindSafe;
use std::sync::Arc;

/// A pass of the pipeline ([`crate::pipeline::run`]), in order: what the progress display
/// shows, what the timings are named by, and what `gdlc dump --emit` prints the output of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Pass {
    /// Reading the description: its output is the syntax tree (`ast`, printed as KIF).
    #[cfg_attr(feature = "cli", value(name = "ast"))]
    Parse,
    /// Checking it: its output is the relation strata (`strata`, in evaluation order).
    #[cfg_attr(feature = "cli", value(name = "strata"))]
    Check,
    /// Flattening the rules (`normalised`).
    #[cfg_attr(feature = "cli", value(name = "normalised"))]
    Normalise,
    /// Dropping inert argument positions and projecting local variables out of rule bodies
    /// (`projected`).
    #[cfg_attr(feature = "cli", value(name = "projected"))]
    Project,
    /// Grounding: the ground rules over the reachable atoms (`ground`).
    #[cfg_attr(feature = "cli", value(name = "ground"))]
    Ground,
    /// Lowering the ground rules to the propositional IR (`ir`, as lowered).
    #[cfg_attr(feature = "cli", value(name = "ir"))]
    Lower,
    /// Simplifying the IR (`optimised`).
    #[cfg_attr(feature = "cli", value(name = "optimised"))]
    Optimise,
    /// Code generation and formatting: the Rust module (`rust`).
    #[cfg_attr(feature = "cli", value(name = "rust"))]
    Generate,
}

impl Pass {
    /// Every pass, in order.
    pub const ALL: [Pass; 8] = [
        Pass::Parse,
        Pass::Check,
        Pass::Normalise,
        Pass::Project,
        Pass::Ground,
        Pass::Lower,
        Pass::Optimise,
        Pass::Generate,
    ];

    /// Its name in timings and progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Parse => "parse",
            Pass::Check => "check",
            Pass::Normalise => "normalise",
            Pass::Project => "project",
            Pass::Ground => "ground",
            Pass::Lower => "lower",
            Pass::Optimise => "optimise",
            Pass::Generate => "generate",
        }
    }

    /// The name of its output, as `gdlc dump --emit` takes it.
    pub fn output_name(self) -> &'static str {
        match self {
            Pass::Parse => "ast",
            Pass::Check => "strata",
            Pass::Normalise => "normalised",
            Pass::Project => "projected",
            Pass::Ground => "ground",
            Pass::Lower => "ir",
            Pass::Optimise => "optimised",
            Pass::Generate => "rust",
        }
    }
}

/// One report of a compilation's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// A pass started.
    Pass(Pass),
    /// How far the running pass is: `done` units of `what` out of `total` (0: not known in
    /// advance, e.g. the rounds of a fixpoint).
    Step {
        what: &'static str,
        done: u64,
        total: u64,
    },
}

/// The function a compilation reports its [`Progress`] to; the default does nothing. Cheap to
/// clone (shared). Unwind-safe, like the rest of [`crate::CompileOptions`].
#[derive(Clone, Default)]
pub struct ProgressHook(Option<Arc<dyn Fn(Progress) + Send + Sync + RefUnwindSafe>>);

impl ProgressHook {
    /// A hook that calls `f`.
    pub fn new(f: impl Fn(Progress) + Send + Sync + RefUnwindSafe + 'static) -> ProgressHook {
        ProgressHook(Some(Arc::new(f)))
    }

    /// Reports `p`.
    pub fn report(&self, p: Progress) {
        if let Some(f) = &self.0 {
            f(p);
        }
    }

    /// Reports a step: `done` of `total` `what`.
    pub fn step(&self, what: &'static str, done: u64, total: u64) {
        if self.0.is_some() {
            self.report(Progress::Step { what, done, total });
        }
    }
}

impl fmt::Debug for ProgressHook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "ProgressHook(set)"
        } else {
            "ProgressHook(none)"
        })
    }
}

/// The peak resident memory of this process in KiB (`VmHWM` of `/proc/self/status`; `None`
/// where there is no such file), for callers that report it next to the timings of
/// [`crate::pipeline`] (the passes themselves never read it).
pub fn peak_memory_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
