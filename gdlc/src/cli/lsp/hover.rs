//! Hover: a relation's arity, stratum, whether it is static or depends on `true` / `does`, and
//! the rules that define it; a function's or constant's uses; where a variable is bound.

use gdlc::Syntax;
use gdlc::ast::{Atom, Literal, Sym, kw};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use super::document::Snapshot;
use super::occurrences::{self, Kind, Occurrence};

/// How many defining rules a hover lists.
const SHOWN_RULES: usize = 3;

pub fn hover(s: &Snapshot, position: Position) -> Option<Hover> {
    let o = occurrences::at(&s.occurrences, s.offset(position))?;
    let text = match o.kind {
        Kind::Relation | Kind::Keyword => relation(s, o.sym),
        Kind::Function | Kind::Constant | Kind::Number => term_name(s, o),
        Kind::Variable => variable(s, o),
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(s.range(o.span)),
    })
}

/// An atom as the document writes it (KIF or infix).
pub fn atom_text(s: &Snapshot, atom: &Atom) -> String {
    let mut out = String::new();
    match s.syntax {
        Syntax::Kif => gdlc::print::write_atom_kif(&s.program.symbols, atom, &mut out),
        Syntax::Infix => gdlc::print::write_atom_infix(&s.program.symbols, atom, &mut out),
    }
    out
}

fn line_of(s: &Snapshot, offset: u32) -> u32 {
    s.lines.position(&s.text, offset).line + 1
}

fn relation(s: &Snapshot, sym: Sym) -> String {
    let name = s.program.symbols.name(sym);
    let mut arities: Vec<usize> = s
        .occurrences
        .iter()
        .filter(|o| o.sym == sym && matches!(o.kind, Kind::Relation | Kind::Keyword))
        .map(|o| o.arity)
        .collect();
    arities.sort_unstable();
    arities.dedup();
    let arity = arities
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" and ");
    let what = if gdlc::ast::Symbols::is_keyword(sym) {
        "keyword relation"
    } else {
        "relation"
    };
    let mut out = format!("**{what}** `{name}`, arity {arity}");
    if let Some(stratum) = s.strata.as_ref().and_then(|st| st.stratum(sym)) {
        out.push_str(&format!(", stratum {stratum}"));
    }
    out.push_str("\n\n");
    out.push_str(&dependence(s, sym));
    let defining: Vec<&gdlc::ast::Rule> = s
        .program
        .rules
        .iter()
        .filter(|r| r.head.name == sym)
        .collect();
    match defining.len() {
        0 => out.push_str("\n\nno rule defines it"),
        n => {
            let plural = if n == 1 { "" } else { "s" };
            out.push_str(&format!("\n\n{n} rule{plural} define it:"));
            for r in defining.iter().take(SHOWN_RULES) {
                let line = line_of(s, r.span.start);
                out.push_str(&format!("\n- line {line}: `{}`", atom_text(s, &r.head)));
            }
            if n > SHOWN_RULES {
                out.push_str(&format!("\n- and {} more", n - SHOWN_RULES));
            }
        }
    }
    out
}

/// Whether a relation is static or depends on the state or the moves.
fn dependence(s: &Snapshot, sym: Sym) -> String {
    match sym {
        kw::TRUE => return "the facts of the current state".to_string(),
        kw::DOES => return "the moves of the current step".to_string(),
        _ => {}
    }
    let graph = gdlc::depgraph::build(&s.program);
    let on_true = graph.depends_on(sym, kw::TRUE);
    let on_does = graph.depends_on(sym, kw::DOES);
    match (on_true, on_does) {
        (false, false) => "static: depends on neither `true` nor `does`".to_string(),
        (true, false) => "depends on `true` (the state)".to_string(),
        (false, true) => "depends on `does` (the moves)".to_string(),
        (true, true) => "depends on `true` and `does`".to_string(),
    }
}

fn term_name(s: &Snapshot, o: &Occurrence) -> String {
    let name = s.program.symbols.name(o.sym);
    let same: Vec<&Occurrence> = s
        .occurrences
        .iter()
        .filter(|p| p.sym == o.sym && p.kind == o.kind && p.arity == o.arity)
        .collect();
    let in_heads = same.iter().filter(|p| p.in_head).count();
    let what = match o.kind {
        Kind::Function => format!("**function** `{name}`, arity {}", o.arity),
        Kind::Number => format!("**number** `{name}`"),
        _ => format!("**constant** `{name}`"),
    };
    format!(
        "{what}\n\nused {} times, {in_heads} of them in rule heads",
        same.len()
    )
}

fn variable(s: &Snapshot, o: &Occurrence) -> String {
    let text = s.slice(o.span).to_string();
    let Some(rule) = s.program.rules.get(o.rule) else {
        return format!("**variable** `{text}`");
    };
    let uses = s
        .occurrences
        .iter()
        .filter(|p| p.rule == o.rule && p.kind == Kind::Variable && p.sym == o.sym)
        .count();
    let mut binders = Vec::new();
    for literal in &rule.body {
        bound_by(literal, o.sym, &mut binders);
    }
    let mut out = format!(
        "**variable** `{text}`: {uses} occurrence{} in its rule",
        if uses == 1 { "" } else { "s" }
    );
    if binders.is_empty() {
        out.push_str("\n\nno positive literal of its rule binds it");
    } else {
        out.push_str("\n\nbound by:");
        for atom in binders {
            let line = line_of(s, atom.span.start);
            out.push_str(&format!("\n- line {line}: `{}`", atom_text(s, atom)));
        }
    }
    out
}

/// The positive sentences of a body literal that bind `var` (not under `not`; in an `or`,
/// only when every branch binds it, each branch's sentences listed).
fn bound_by<'a>(literal: &'a Literal, var: Sym, out: &mut Vec<&'a Atom>) {
    match literal {
        Literal::Pos(atom) => {
            let mut has = false;
            atom.for_each_var(&mut |v, _| has |= v == var);
            if has {
                out.push(atom);
            }
        }
        Literal::And { conjuncts, .. } => conjuncts.iter().for_each(|l| bound_by(l, var, out)),
        Literal::Or { branches, .. } => {
            let mut each = Vec::new();
            for b in branches {
                let before = each.len();
                bound_by(b, var, &mut each);
                if each.len() == before {
                    return;
                }
            }
            out.extend(each);
        }
        Literal::Not { .. } | Literal::Distinct { .. } => {}
    }
}
