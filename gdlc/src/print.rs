//! Printers: KIF (prefix) text of terms, literals and rules.

use crate::ast::{Atom, Literal, Rule, RuleKind, Symbols, Term};

/// Appends the KIF text of a term: `(cell 1 1 b)`, `?x`, `noop`.
pub fn write_term_kif(symbols: &Symbols, term: &Term, out: &mut String) {
    match term {
        Term::Var { name, .. } => {
            out.push('?');
            out.push_str(symbols.name(*name));
        }
        Term::Const { name, .. } => out.push_str(symbols.name(*name)),
        Term::Func { name, args, .. } => {
            out.push('(');
            out.push_str(symbols.name(*name));
            for a in args {
                out.push(' ');
                write_term_kif(symbols, a, out);
            }
            out.push(')');
        }
    }
}

/// Appends the KIF text of a sentence.
pub fn write_atom_kif(symbols: &Symbols, atom: &Atom, out: &mut String) {
    if atom.args.is_empty() {
        out.push_str(symbols.name(atom.name));
        return;
    }
    out.push('(');
    out.push_str(symbols.name(atom.name));
    for a in &atom.args {
        out.push(' ');
        write_term_kif(symbols, a, out);
    }
    out.push(')');
}

/// Appends the KIF text of a body literal.
pub fn write_literal_kif(symbols: &Symbols, lit: &Literal, out: &mut String) {
    match lit {
        Literal::Pos(a) => write_atom_kif(symbols, a, out),
        Literal::Not { atom, .. } => {
            out.push_str("(not ");
            write_atom_kif(symbols, atom, out);
            out.push(')');
        }
        Literal::Distinct { lhs, rhs, negated, .. } => {
            if *negated {
                out.push_str("(not ");
            }
            out.push_str("(distinct ");
            write_term_kif(symbols, lhs, out);
            out.push(' ');
            write_term_kif(symbols, rhs, out);
            out.push(')');
            if *negated {
                out.push(')');
            }
        }
        Literal::Or { branches: parts, .. } | Literal::And { conjuncts: parts, .. } => {
            out.push_str(if matches!(lit, Literal::Or { .. }) { "(or" } else { "(and" });
            for p in parts {
                out.push(' ');
                write_literal_kif(symbols, p, out);
            }
            out.push(')');
        }
    }
}

/// Appends the KIF text of a fact or rule, on one line.
pub fn write_rule_kif(symbols: &Symbols, rule: &Rule, out: &mut String) {
    if rule.kind == RuleKind::Fact {
        write_atom_kif(symbols, &rule.head, out);
        return;
    }
    out.push_str("(<= ");
    write_atom_kif(symbols, &rule.head, out);
    for l in &rule.body {
        out.push(' ');
        write_literal_kif(symbols, l, out);
    }
    out.push(')');
}
