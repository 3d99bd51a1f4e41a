//! Why a grounding attempt failed: the kind, which decides the next attempt, and the
//! diagnostics that the user sees when no attempt succeeds.

use crate::diag::Diagnostic;
use crate::diag::codes;
use crate::normalize::NRule;

use super::join::RelKey;

/// Why a grounding attempt failed. [`ground`](super::ground) decides its next attempt by the kind; the
/// diagnostics are what the user sees when no attempt succeeds (the error becomes diagnostics
/// only at the pass boundary, [`GroundError::into_diagnostics`]).
#[derive(Clone, Debug)]
pub struct GroundError {
    pub kind: GroundErrorKind,
    /// The findings, each naming the rule or relation at fault.
    pub diagnostics: Vec<Diagnostic>,
    /// A dynamic relation that hybrid grounding may ask on demand at run time instead (see
    /// [`hybrid`](super::hybrid)): another hybrid attempt with it lazy may succeed.
    pub defer: Option<RelKey>,
}

/// The kinds of [`GroundError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroundErrorKind {
    /// A limit (ground atoms, rule instances, join steps, term depth, time) was exceeded: another
    /// way of grounding may succeed.
    TooLarge,
    /// The (rewritten) rules are not stratified: another rewrite may be.
    NegativeCycle,
    /// The description cannot be ground this way at all (e.g. an unsafe rule).
    Invalid,
}

impl GroundError {
    pub fn too_large(d: Diagnostic) -> GroundError {
        GroundError {
            kind: GroundErrorKind::TooLarge,
            diagnostics: vec![d],
            defer: None,
        }
    }

    pub fn invalid(diagnostics: Vec<Diagnostic>) -> GroundError {
        GroundError {
            kind: GroundErrorKind::Invalid,
            diagnostics,
            defer: None,
        }
    }

    pub fn is_too_large(&self) -> bool {
        self.kind == GroundErrorKind::TooLarge
    }

    /// The messages of the diagnostics, with their notes, on one line: what an attempt's log
    /// says it failed on.
    pub fn summary(&self) -> String {
        self.diagnostics
            .iter()
            .map(|d| {
                let mut s = d.message.clone();
                for n in &d.notes {
                    s.push_str("; ");
                    s.push_str(n);
                }
                s
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The diagnostics, at the pass boundary.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

pub(crate) fn unsafe_rule(rule: &NRule) -> Diagnostic {
    Diagnostic::error(
        codes::UNSAFE_VARIABLE,
        rule.span,
        "a variable of this rule is never bound by a positive literal",
    )
}
