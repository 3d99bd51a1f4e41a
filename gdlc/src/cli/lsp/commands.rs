//! The commands an editor runs (`workspace/executeCommand`): `gdlc.validate`, `gdlc.playout`
//! and `gdlc.convert`, each on the interpreter or the printer, within bounded time and memory.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gdl_tools::trace::{TraceExtras, TraceOptions, write_trace_with};
use gdl_tools::validate::{self, Finding, Kind, Report, ValidateOptions};
use gdlc::ast::{Sym, kw};
use gdlc::interp::{Interpreter, Limits};
use gdlc::{CheckOptions, Source, Syntax};
use lsp_types::{DiagnosticSeverity, NumberOrString, Range};
use serde_json::{Value, json};

use super::document::Snapshot;

/// The command names, as the server announces them.
pub const VALIDATE: &str = "gdlc.validate";
pub const PLAYOUT: &str = "gdlc.playout";
pub const CONVERT: &str = "gdlc.convert";
pub const ALL: [&str; 3] = [VALIDATE, PLAYOUT, CONVERT];

/// The validator's bounds in the editor: fewer states and less time than `gdlc validate`'s.
const VALIDATE_STATES: usize = 200_000;
const VALIDATE_TIME: Duration = Duration::from_secs(10);
/// A playout longer than this stops with an error.
const PLAYOUT_STEPS: usize = 10_000;

/// What a command gives back: its reply and, for `gdlc.validate`, the diagnostics to publish.
pub struct Outcome {
    pub reply: Value,
    pub diagnostics: Option<Vec<lsp_types::Diagnostic>>,
}

/// Runs `command` with `arguments` (the document's URI first) on the snapshot; a validation
/// stops soon after `cancel` is set.
pub fn run(
    s: &Snapshot,
    command: &str,
    arguments: &[Value],
    cancel: &AtomicBool,
) -> Result<Outcome, String> {
    let reply = |text: String, language: Option<&str>| {
        let mut v = json!({ "text": text });
        if let Some(l) = language {
            v["language"] = json!(l);
        }
        Outcome {
            reply: v,
            diagnostics: None,
        }
    };
    match command {
        VALIDATE => Ok(validate_document(s, cancel)),
        PLAYOUT => {
            let seed = match arguments.get(1) {
                None | Some(Value::Null) => 1,
                Some(v) => v
                    .as_u64()
                    .ok_or("the seed must be a non-negative integer")?,
            };
            Ok(reply(playout(s, seed)?, Some("plaintext")))
        }
        CONVERT => {
            let to = match arguments.get(1).and_then(Value::as_str) {
                Some("kif") => Syntax::Kif,
                Some("infix") => Syntax::Infix,
                _ => return Err("the second argument must be \"kif\" or \"infix\"".to_string()),
            };
            if s.broken {
                return Err(super::format::BROKEN.replace("formatted", "converted"));
            }
            let (text, language) = match to {
                Syntax::Kif => (gdlc::print::pretty_kif(&s.program), "gdl"),
                Syntax::Infix => (gdlc::print::pretty_infix(&s.program), "gdl-infix"),
            };
            Ok(reply(text, Some(language)))
        }
        _ => Err(format!("unknown command `{command}`")),
    }
}

/// The interpreter of a snapshot's text, or why there is none.
fn interpreter(s: &Snapshot) -> Result<Interpreter, String> {
    let source = Source::new(&s.name, &s.text);
    gdlc::frontend::load(source, &CheckOptions::default())
        .and_then(|checked| Interpreter::from_checked(&checked, Limits::default()))
        .map_err(|errors| {
            let first = errors
                .first()
                .map_or(String::new(), |d| format!(": {}", d.message));
            format!("the description has {} error(s){first}", errors.len())
        })
}

fn playout(s: &Snapshot, seed: u64) -> Result<String, String> {
    let game = interpreter(s)?;
    let options = TraceOptions {
        seed,
        max_steps: PLAYOUT_STEPS,
    };
    let mut out = String::new();
    if let Err(e) = write_trace_with(&game, &options, &TraceExtras::default(), &mut out) {
        out.push_str(&format!("stopped: {e}\n"));
    }
    Ok(out)
}

fn validate_document(s: &Snapshot, cancel: &AtomicBool) -> Outcome {
    let game = match interpreter(s) {
        Ok(g) => g,
        Err(why) => {
            return Outcome {
                reply: json!({ "text": format!("{}: not validated: {why}", s.name) }),
                diagnostics: Some(Vec::new()),
            };
        }
    };
    let options = ValidateOptions {
        max_states: VALIDATE_STATES,
        duration: VALIDATE_TIME,
        threads: 1,
        seed: 1,
        ..ValidateOptions::default()
    };
    let report = validate::validate_cancellable(&game, &options, &mut |_| {}, cancel);
    let stem = std::path::Path::new(&s.name)
        .file_stem()
        .map_or(s.name.clone(), |n| n.to_string_lossy().into_owned());
    let summary = validate::text(&report, &stem);
    let diagnostics = report
        .findings
        .iter()
        .map(|f| finding(s, &report, f))
        .collect();
    Outcome {
        reply: json!({ "text": summary }),
        diagnostics: Some(diagnostics),
    }
}

/// A finding as a diagnostic on the first rule of the relation it is about, with the moves
/// that show it in the message.
fn finding(s: &Snapshot, report: &Report, f: &Finding) -> lsp_types::Diagnostic {
    let about: Sym = match f.kind {
        Kind::NoLegalMove => kw::LEGAL,
        Kind::Cycle | Kind::LongPlayout => kw::TERMINAL,
        Kind::UndeclaredFact => kw::BASE,
        Kind::UndeclaredMove => kw::INPUT,
        _ => kw::GOAL,
    };
    let range = s
        .program
        .rules
        .iter()
        .find(|r| r.head.name == about)
        .map_or(Range::default(), |r| s.range(r.head.span));
    let role = f
        .role
        .and_then(|r| report.roles.get(r))
        .map_or(String::new(), |r| format!(" for role {}", r.name));
    let mut message = format!("{}{role}: {}", f.kind.code(), f.detail);
    let names: Vec<&str> = report.roles.iter().map(|r| r.name.as_str()).collect();
    let moves = |path: &[Vec<String>]| -> String {
        path.iter()
            .enumerate()
            .map(|(i, joint)| {
                let does: Vec<String> = joint
                    .iter()
                    .zip(&names)
                    .map(|(m, r)| format!("(does {r} {m})"))
                    .collect();
                format!("{}. {}", i + 1, does.join(" "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    match f.shown() {
        validate::Shown::InitialState => message.push_str("\nin the initial state"),
        validate::Shown::WholeGraph => message.push_str("\nin the whole game graph"),
        validate::Shown::LongPlayout => message.push_str("\nin a random playout"),
        _ => {
            if !f.path.is_empty() {
                message.push_str("\nafter the moves:\n");
                message.push_str(&moves(&f.path));
            }
            if !f.cycle.is_empty() {
                message.push_str("\nthen round the cycle:\n");
                message.push_str(&moves(&f.cycle));
            }
        }
    }
    lsp_types::Diagnostic {
        range,
        severity: Some(match f.kind.severity() {
            validate::Severity::Error => DiagnosticSeverity::ERROR,
            validate::Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(f.kind.code().to_string())),
        source: Some("gdlc validate".to_string()),
        message,
        ..lsp_types::Diagnostic::default()
    }
}
