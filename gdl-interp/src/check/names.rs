//! Names: consistent arities, relations used but never defined or defined but never used, names
//! used both as sentences and as terms, unusual characters, and names spelled in several cases.

use crate::diag::codes;
use std::collections::{HashMap, HashSet};

use super::{Context, plural, walk_literal_terms, walk_term};
use crate::ast::{Span, Sym, Symbols, Term};
use crate::diag::Diagnostic;

/// How a name is used at one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// The relation of a rule head.
    Head {
        arity: usize,
    },
    /// The relation of a body sentence.
    Body {
        arity: usize,
    },
    /// A function applied to arguments.
    Function {
        arity: usize,
    },
    /// An object constant.
    Constant,
    Variable,
}

impl Use {
    fn relation_arity(self) -> Option<usize> {
        match self {
            Use::Head { arity } | Use::Body { arity } => Some(arity),
            _ => None,
        }
    }

    fn is_term(self) -> bool {
        matches!(self, Use::Function { .. } | Use::Constant)
    }
}

/// One occurrence of a name.
#[derive(Clone, Copy, Debug)]
struct Occurrence {
    name: Sym,
    usage: Use,
    span: Span,
}

/// Every occurrence of every name, in source order.
fn occurrences(cx: &Context<'_>) -> Vec<Occurrence> {
    let mut out = Vec::new();
    for rule in &cx.program.rules {
        let head = &rule.head;
        out.push(Occurrence {
            name: head.name,
            usage: Use::Head {
                arity: head.arity(),
            },
            span: head.name_span,
        });
        head.args
            .iter()
            .for_each(|t| walk_term(t, &mut |t| out.push(term_occurrence(t))));
        for lit in &rule.body {
            let mut atoms = Vec::new();
            lit.for_each_atom(&mut |a, _| atoms.push(a));
            let mut terms = Vec::new();
            walk_literal_terms(lit, &mut |t| terms.push(term_occurrence(t)));
            for a in atoms {
                out.push(Occurrence {
                    name: a.name,
                    usage: Use::Body { arity: a.arity() },
                    span: a.name_span,
                });
            }
            out.extend(terms);
        }
    }
    out.sort_by_key(|o| o.span);
    out
}

fn term_occurrence(term: &Term) -> Occurrence {
    match term {
        Term::Var { name, span } => Occurrence {
            name: *name,
            usage: Use::Variable,
            span: *span,
        },
        Term::Const { name, span } => Occurrence {
            name: *name,
            usage: Use::Constant,
            span: *span,
        },
        Term::Func { name, args, span } => Occurrence {
            name: *name,
            usage: Use::Function { arity: args.len() },
            span: *span,
        },
    }
}

/// Runs the name checks.
pub(super) fn check(cx: &mut Context<'_>) {
    let occ = occurrences(cx);
    arities(cx, &occ, ArityKind::Relation);
    arities(cx, &occ, ArityKind::Function);
    sentence_and_function(cx, &occ);
    undefined_and_unused(cx, &occ);
    unusual_names(cx, &occ);
    case_variants(cx, &occ);
}

/// Which arities [`arities`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ArityKind {
    Relation,
    Function,
}

impl ArityKind {
    fn arity(self, usage: Use) -> Option<usize> {
        match (self, usage) {
            (ArityKind::Relation, u) => u.relation_arity(),
            (ArityKind::Function, Use::Function { arity }) => Some(arity),
            (ArityKind::Function, _) => None,
        }
    }
}

/// How often a name is used with one arity, and where first.
#[derive(Clone, Copy, Debug)]
struct AritySeen {
    arity: usize,
    count: usize,
    first: Span,
}

/// One name, one arity (keywords have their own check).
fn arities(cx: &mut Context<'_>, occ: &[Occurrence], kind: ArityKind) {
    let mut by_name: HashMap<Sym, Vec<AritySeen>> = HashMap::new();
    let mut order = Vec::new();
    for o in occ {
        let Some(arity) = kind.arity(o.usage) else {
            continue;
        };
        if Symbols::is_keyword(o.name) {
            continue;
        }
        let seen = by_name.entry(o.name).or_insert_with(|| {
            order.push(o.name);
            Vec::new()
        });
        match seen.iter_mut().find(|s| s.arity == arity) {
            Some(s) => s.count += 1,
            None => seen.push(AritySeen {
                arity,
                count: 1,
                first: o.span,
            }),
        }
    }
    for name in order {
        match by_name.get(&name) {
            Some(seen) if seen.len() > 1 => report_arities(cx, name, seen, kind),
            _ => {}
        }
    }
}

fn report_arities(cx: &mut Context<'_>, name: Sym, seen: &[AritySeen], kind: ArityKind) {
    // The arity used most often is taken as the intended one (the first one on a tie).
    let Some(reference) = seen
        .iter()
        .copied()
        .reduce(|a, b| if b.count > a.count { b } else { a })
    else {
        return;
    };
    let name = cx.name(name).to_string();
    let (code, what) = match kind {
        ArityKind::Relation => (codes::RELATION_ARITY, "relation"),
        ArityKind::Function => (codes::FUNCTION_ARITY, "function"),
    };
    let counts: Vec<String> = seen
        .iter()
        .map(|s| {
            format!(
                "{} ({})",
                plural(s.arity, "argument", "arguments"),
                plural(s.count, "time", "times")
            )
        })
        .collect();
    for s in seen.iter().filter(|s| s.arity != reference.arity) {
        cx.report_arity(
            Diagnostic::error(
                code,
                s.first,
                format!(
                    "the {what} `{name}` is used here with {}, elsewhere with {}",
                    plural(s.arity, "argument", "arguments"),
                    reference.arity
                ),
            )
            .with_label(
                reference.first,
                format!(
                    "first used with {} here",
                    plural(reference.arity, "argument", "arguments")
                ),
            )
            .with_note(format!("`{name}` is used with {}", counts.join(", "))),
        );
    }
}

/// A name used both as a relation and as a function or constant.
fn sentence_and_function(cx: &mut Context<'_>, occ: &[Occurrence]) {
    let mut first_relation: HashMap<Sym, Occurrence> = HashMap::new();
    let mut first_term: HashMap<Sym, Occurrence> = HashMap::new();
    let mut order = Vec::new();
    for o in occ.iter().filter(|o| !Symbols::is_keyword(o.name)) {
        let map = match o.usage {
            u if u.relation_arity().is_some() => &mut first_relation,
            u if u.is_term() => &mut first_term,
            _ => continue,
        };
        map.entry(o.name).or_insert(*o);
        order.push(o.name);
    }
    let mut done = HashSet::new();
    for name in order {
        if !done.insert(name) {
            continue;
        }
        let (Some(rel), Some(term)) = (first_relation.get(&name), first_term.get(&name)) else {
            continue;
        };
        let shown = cx.name(name).to_string();
        let as_term = match term.usage {
            Use::Function { arity } => {
                format!("a function of {}", plural(arity, "argument", "arguments"))
            }
            _ => "a constant".to_string(),
        };
        let arity = rel.usage.relation_arity().unwrap_or(0);
        cx.report(
            Diagnostic::warning(
                codes::SENTENCE_AND_FUNCTION,
                term.span,
                format!("`{shown}` is used here as {as_term}, elsewhere as a relation"),
            )
            .with_label(
                rel.span,
                format!(
                    "used as a relation of {} here",
                    plural(arity, "argument", "arguments")
                ),
            )
            .with_note("a name is used both as a sentence and as a function"),
        );
    }
}

/// Relations used but never defined, defined but never used.
fn undefined_and_unused(cx: &mut Context<'_>, occ: &[Occurrence]) {
    let defined: HashSet<Sym> = occ
        .iter()
        .filter(|o| matches!(o.usage, Use::Head { .. }))
        .map(|o| o.name)
        .collect();
    let heads: Vec<(Sym, usize)> = occ
        .iter()
        .filter_map(|o| match o.usage {
            Use::Head { arity } => Some((o.name, arity)),
            _ => None,
        })
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let used: HashSet<Sym> = occ
        .iter()
        .filter(|o| matches!(o.usage, Use::Body { .. }))
        .map(|o| o.name)
        .collect();
    let mut reported = HashSet::new();
    for o in occ {
        if Symbols::is_keyword(o.name) || reported.contains(&o.name) {
            continue;
        }
        let name = cx.name(o.name).to_string();
        match o.usage {
            Use::Body { arity } if !defined.contains(&o.name) => {
                reported.insert(o.name);
                let mut d = Diagnostic::warning(
                    codes::UNDEFINED_RELATION,
                    o.span,
                    format!("the relation `{name}` is used but never defined"),
                )
                .with_note("no rule or fact concludes it, so it is always false");
                if let Some(s) =
                    super::produced::suggest(cx, (o.name, arity), heads.iter().copied())
                {
                    d = d.with_note(format!("did you mean `{s}`?"));
                }
                cx.report(d);
            }
            Use::Head { .. } if !used.contains(&o.name) => {
                reported.insert(o.name);
                cx.report(
                    Diagnostic::warning(
                        codes::UNUSED_RELATION,
                        o.span,
                        format!("the relation `{name}` is defined but never used"),
                    )
                    .with_note("it is not a game relation and no rule body mentions it"),
                );
            }
            _ => {}
        }
    }
}

/// Whether `name` is written as a number: an optional sign, digits, an optional fraction.
fn is_number(name: &str) -> bool {
    let digits = name.strip_prefix(['-', '+']).unwrap_or(name);
    let (int, frac) = digits.split_once('.').unwrap_or((digits, "0"));
    !int.is_empty()
        && !frac.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

fn is_plain(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Names with characters other GDL systems may not accept.
fn unusual_names(cx: &mut Context<'_>, occ: &[Occurrence]) {
    let mut reported = HashSet::new();
    for o in occ {
        if Symbols::is_keyword(o.name) || reported.contains(&o.name) {
            continue;
        }
        let name = cx.name(o.name);
        if is_plain(name) || is_number(name) {
            continue;
        }
        let shown = match o.usage {
            Use::Variable => format!("?{name}"),
            _ => name.to_string(),
        };
        reported.insert(o.name);
        cx.report(
            Diagnostic::warning(
                codes::UNUSUAL_NAME,
                o.span,
                format!("the name `{shown}` has characters outside `[A-Za-z0-9_-]`"),
            )
            .with_note("some GDL systems do not accept such names"),
        );
    }
}

/// One name spelled in different cases: they are different names, which is easy to miss.
fn case_variants(cx: &mut Context<'_>, occ: &[Occurrence]) {
    let mut first: HashMap<Sym, Span> = HashMap::new();
    let mut spellings: HashMap<String, Vec<Sym>> = HashMap::new();
    for o in occ
        .iter()
        .filter(|o| o.usage != Use::Variable && !Symbols::is_keyword(o.name))
    {
        if first.contains_key(&o.name) {
            continue;
        }
        first.insert(o.name, o.span);
        let lower = cx.name(o.name).to_lowercase();
        let group = spellings.entry(lower).or_default();
        for &other in group.iter() {
            let (this, that) = (cx.name(o.name).to_string(), cx.name(other).to_string());
            let Some(&other_span) = first.get(&other) else {
                continue;
            };
            cx.diagnostics.push(
                Diagnostic::warning(
                    codes::CASE_VARIANT,
                    o.span,
                    format!("`{this}` differs from `{that}` only in case"),
                )
                .with_label(other_span, format!("`{that}` is used here"))
                .with_note("names are case-sensitive: these are two different names"),
            );
        }
        group.push(o.name);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{GAME, at, error_codes, with_code};
    use super::is_number;

    #[test]
    fn relation_arities_differ() {
        let src = format!("{GAME}(foo bar)\n(foo bar bar)\n(<= (legal r ?x) (foo ?x))");
        assert_eq!(at(&src, "relation-arity"), ["3:2"]);
        let d = &with_code(&src, "relation-arity")[0];
        assert!(d.is_error());
        assert_eq!(d.labels[0].0.start, src.find("foo bar)").unwrap() as u32);
    }

    #[test]
    fn function_arities_differ() {
        let src = format!("{GAME}(legal r (a 1))\n(legal r (a 2 3))");
        assert_eq!(at(&src, "function-arity"), ["3:10"]);
    }

    #[test]
    fn sentence_and_function() {
        let src = format!(
            "{GAME}(<= (legal r (cell 1)) (cell 1 2))\n(<= (legal r x) over)\n(<= over (true over))"
        );
        assert_eq!(at(&src, "sentence-and-function"), ["2:14", "4:16"]);
        assert!(error_codes(&src).is_empty());
    }

    #[test]
    fn undefined_and_unused_relations() {
        let src =
            format!("{GAME}(<= (legal r x) (nowhere 1))\n(<= (legal r y) (nowhere 2))\n(helper 1)");
        assert_eq!(at(&src, "undefined-relation"), ["2:18"]);
        let typo = format!("{GAME}(helper 1)\n(<= (legal r x) (helpr 1))");
        let d = with_code(&typo, "undefined-relation");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].notes[1], "did you mean `helper`?");
        assert_eq!(at(&src, "unused-relation"), ["4:2"]);
    }

    #[test]
    fn unusual_names_once_each() {
        let src = format!("{GAME}(<= (legal r (m ?x+)) (+ 1 2 ?x+) (+ -3 2.5 ?x+))");
        assert_eq!(at(&src, "unusual-name"), ["2:17", "2:24"]);
    }

    #[test]
    fn numbers() {
        assert!(is_number("12") && is_number("-3") && is_number("2.5"));
        assert!(!is_number("-") && !is_number("+") && !is_number("1.") && !is_number("a1"));
    }

    #[test]
    fn case_variants_once_per_pair() {
        let src = format!("{GAME}(p nextFile)\n(p nextfile)\n(p NEXTFILE)\n(p nextfile)");
        assert_eq!(at(&src, "case-variant"), ["3:4", "4:4", "4:4"]);
    }
}
