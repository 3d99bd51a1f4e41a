//! The front end's diagnostics as the protocol's, and the quick fixes of their "did you mean"
//! notes.

use std::collections::HashMap;

use gdlc::diag::{Diagnostic, Severity};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, DiagnosticRelatedInformation,
    DiagnosticSeverity, Location, NumberOrString, Range, TextEdit, WorkspaceEdit,
};

use super::document::Snapshot;
use super::occurrences::name_span;

/// At most this many diagnostics are published for one document (a flood from a text that is
/// not GDL at all would only slow the editor); one more says how many were left out.
pub const MAX_PUBLISHED: usize = 500;

/// The protocol's diagnostics of a snapshot, capped at [`MAX_PUBLISHED`].
pub fn published(s: &Snapshot) -> Vec<lsp_types::Diagnostic> {
    let mut out: Vec<lsp_types::Diagnostic> = s
        .diagnostics
        .iter()
        .take(MAX_PUBLISHED)
        .map(|d| to_lsp(s, d))
        .collect();
    if s.diagnostics.len() > MAX_PUBLISHED {
        out.push(lsp_types::Diagnostic {
            range: Range::default(),
            severity: Some(DiagnosticSeverity::INFORMATION),
            source: Some("gdlc".to_string()),
            message: format!(
                "{} more diagnostics not shown (`gdlc check` lists them all)",
                s.diagnostics.len() - MAX_PUBLISHED
            ),
            ..lsp_types::Diagnostic::default()
        });
    }
    if s.text.len() > super::document::MAX_CHECKED_BYTES {
        out.push(lsp_types::Diagnostic {
            range: Range::default(),
            severity: Some(DiagnosticSeverity::INFORMATION),
            source: Some("gdlc".to_string()),
            message: format!(
                "the description is too large to check as it is edited ({} bytes, over {}): \
                 only its syntax is checked (`gdlc check` checks it all)",
                s.text.len(),
                super::document::MAX_CHECKED_BYTES
            ),
            ..lsp_types::Diagnostic::default()
        });
    }
    out
}

/// One diagnostic: its code, severity and range, its notes after the message, its labels as
/// related locations.
pub fn to_lsp(s: &Snapshot, d: &Diagnostic) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .map(|(span, text)| DiagnosticRelatedInformation {
            location: Location::new(s.uri.clone(), s.range(*span)),
            message: text.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range: s.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("gdlc".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

/// The name a "did you mean `X`?" note suggests.
fn suggestion(d: &Diagnostic) -> Option<&str> {
    d.notes.iter().find_map(|n| {
        n.strip_prefix("did you mean `")
            .and_then(|rest| rest.strip_suffix("`?"))
    })
}

/// The quick fixes of the diagnostics that overlap `range`: the misspelt name replaced by the
/// one a "did you mean" note suggests.
pub fn quick_fixes(s: &Snapshot, range: Range) -> Vec<CodeActionOrCommand> {
    let (start, end) = (s.offset(range.start), s.offset(range.end));
    s.diagnostics
        .iter()
        .filter(|d| d.span.start <= end && start <= d.span.end)
        .filter_map(|d| {
            let new_name = suggestion(d)?;
            let span = name_span(&s.text, d.span);
            let old = s.slice(span);
            let edit = TextEdit::new(s.range(span), new_name.to_string());
            Some(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Replace `{old}` with `{new_name}`"),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![to_lsp(s, d)]),
                edit: Some(WorkspaceEdit::new(HashMap::from([(
                    s.uri.clone(),
                    vec![edit],
                )]))),
                is_preferred: Some(true),
                ..CodeAction::default()
            }))
        })
        .collect()
}
