//! Go to definition, find references, rename and the outline (document symbols).

use std::collections::HashMap;

use gdlc::Syntax;
use gdlc::ast::{Span, kw};
use lsp_types::{
    DocumentSymbol, Location, Position, PrepareRenameResponse, Range, SymbolKind, TextEdit,
    WorkspaceEdit,
};

use super::document::Snapshot;
use super::hover::atom_text;
use super::occurrences::{self, Kind, Occurrence};

/// Whether two occurrences name the same thing: a relation (keyword or not), a term name
/// (function or constant), or a variable of the same rule.
fn same_thing(a: &Occurrence, b: &Occurrence) -> bool {
    let family = |k: Kind| match k {
        Kind::Relation | Kind::Keyword => 0,
        Kind::Function | Kind::Constant | Kind::Number => 1,
        Kind::Variable => 2,
    };
    a.sym == b.sym
        && family(a.kind) == family(b.kind)
        && (a.kind != Kind::Variable || a.rule == b.rule)
}

/// The occurrences of what stands at `position`, and that occurrence.
fn all_of(s: &Snapshot, position: Position) -> Option<(&Occurrence, Vec<&Occurrence>)> {
    let o = occurrences::at(&s.occurrences, s.offset(position))?;
    let all = s.occurrences.iter().filter(|p| same_thing(o, p)).collect();
    Some((o, all))
}

/// Where a relation or term name is defined: its places in rule heads (for a variable, its
/// first place in its rule).
pub fn definition(s: &Snapshot, position: Position) -> Vec<Location> {
    let Some((o, all)) = all_of(s, position) else {
        return Vec::new();
    };
    let defining: Vec<&&Occurrence> = if o.kind == Kind::Variable {
        all.iter().take(1).collect()
    } else {
        all.iter().filter(|p| p.in_head).collect()
    };
    defining
        .iter()
        .map(|p| Location::new(s.uri.clone(), s.range(p.span)))
        .collect()
}

/// Every place of what stands at `position` (its places in rule heads only with
/// `declarations`).
pub fn references(s: &Snapshot, position: Position, declarations: bool) -> Vec<Location> {
    let Some((_, all)) = all_of(s, position) else {
        return Vec::new();
    };
    all.iter()
        .filter(|p| declarations || !p.in_head || p.kind == Kind::Variable)
        .map(|p| Location::new(s.uri.clone(), s.range(p.span)))
        .collect()
}

/// The name at `position` if it can be renamed (not a keyword, not a number).
pub fn prepare_rename(s: &Snapshot, position: Position) -> Option<PrepareRenameResponse> {
    let o = occurrences::at(&s.occurrences, s.offset(position))?;
    matches!(
        o.kind,
        Kind::Relation | Kind::Function | Kind::Constant | Kind::Variable
    )
    .then(|| PrepareRenameResponse::RangeWithPlaceholder {
        range: s.range(o.span),
        placeholder: s.slice(o.span).to_string(),
    })
}

/// Renames what stands at `position` everywhere (a variable within its rule): the edits, or
/// why not.
pub fn rename(s: &Snapshot, position: Position, new_name: &str) -> Result<WorkspaceEdit, String> {
    let Some((o, all)) = all_of(s, position) else {
        return Err("nothing to rename here".to_string());
    };
    let written = match o.kind {
        Kind::Keyword | Kind::Number => {
            return Err(format!("`{}` cannot be renamed", s.slice(o.span)));
        }
        Kind::Variable => variable_name(s.syntax, new_name)?,
        _ => {
            if !gdlc::ast::is_plain_name(new_name) || gdlc::ast::keyword(new_name).is_some() {
                return Err(format!(
                    "`{new_name}` is not a plain name (a lower-case letter or digit, then \
                     letters, digits, `_` and `-`) or is a keyword"
                ));
            }
            new_name.to_string()
        }
    };
    let edits = all
        .iter()
        .map(|p| TextEdit::new(s.range(p.span), written.clone()))
        .collect();
    Ok(WorkspaceEdit::new(HashMap::from([(s.uri.clone(), edits)])))
}

/// A variable's new name as the syntax writes it: `?name` in KIF (the `?` optional in
/// `new`), an upper-case initial or `_` in infix.
fn variable_name(syntax: Syntax, new: &str) -> Result<String, String> {
    let bare = new.strip_prefix('?').unwrap_or(new);
    let plain = !bare.is_empty() && bare.bytes().all(gdlc::ast::is_name_char);
    match syntax {
        Syntax::Kif if plain => Ok(format!("?{bare}")),
        Syntax::Infix
            if plain
                && !new.starts_with('?')
                && bare.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') =>
        {
            Ok(bare.to_string())
        }
        Syntax::Kif => Err(format!("`{new}` is not a variable name (`?` and letters)")),
        Syntax::Infix => Err(format!(
            "`{new}` is not a variable name (an upper-case letter or `_`, then letters)"
        )),
    }
}

/// The outline: the roles, then each relation in order of its first rule, with its rules.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written.
pub fn symbols(s: &Snapshot) -> Vec<DocumentSymbol> {
    let symbol = |name: String, detail: Option<String>, kind, range: Range, selection: Range| {
        DocumentSymbol {
            name,
            detail,
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: selection,
            children: None,
        }
    };
    let mut out = Vec::new();
    let mut relations: Vec<(gdlc::ast::Sym, Vec<usize>)> = Vec::new();
    for (i, rule) in s.program.rules.iter().enumerate() {
        if rule.head.name == kw::ROLE {
            let name = rule.head.args.first().map_or(Span::default(), |a| a.span());
            out.push(symbol(
                s.slice(name).to_string(),
                Some("role".to_string()),
                SymbolKind::CONSTANT,
                s.range(rule.span),
                s.range(name),
            ));
            continue;
        }
        match relations.iter_mut().find(|(sym, _)| *sym == rule.head.name) {
            Some((_, rules)) => rules.push(i),
            None => relations.push((rule.head.name, vec![i])),
        }
    }
    for (sym, rules) in relations {
        let children: Vec<DocumentSymbol> = rules
            .iter()
            .map(|&i| {
                let rule = &s.program.rules[i];
                symbol(
                    atom_text(s, &rule.head),
                    None,
                    SymbolKind::METHOD,
                    s.range(rule.span),
                    s.range(rule.head.name_span),
                )
            })
            .collect();
        let first = &s.program.rules[rules[0]];
        let start = rules.iter().map(|&i| s.program.rules[i].span.start).min();
        let end = rules.iter().map(|&i| s.program.rules[i].span.end).max();
        let span = Span {
            start: start.unwrap_or(0),
            end: end.unwrap_or(0),
        };
        let n = rules.len();
        let mut parent = symbol(
            s.program.symbols.name(sym).to_string(),
            Some(format!("{n} rule{}", if n == 1 { "" } else { "s" })),
            if gdlc::ast::Symbols::is_keyword(sym) {
                SymbolKind::KEY
            } else {
                SymbolKind::FUNCTION
            },
            s.range(span),
            s.range(first.head.name_span),
        );
        parent.children = Some(children);
        out.push(parent);
    }
    out
}
