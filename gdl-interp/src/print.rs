//! Printers: KIF (prefix) and infix text of terms, literals, rules and whole programs.
//!
//! The `write_*_kif` functions print on one line (used to compare and show programs). The
//! pretty-printers lay a program out like the ggp.org files: facts on one line; rules as
//! `(<= head` with each body literal on its own indented line; a blank line between rules of
//! different head relations and around rules that take several lines. Long `or`/`and`
//! literals fold one branch per line (KIF); long infix bodies fold one conjunct per line.
//!
//! Infix names and variables are spelled so that [`crate::infix::parse_infix`] reads back
//! exactly the same program: see [`infix_name`] and [`infix_var`].
//!
//! The pretty-printers keep the program's comments ([`Program::comments`]), each on a line of
//! its own, written `;` + text in KIF and `%` + text in infix (the text is what followed the
//! first marker, so `;; x` becomes `%; x` and back `;; x`, and `// x` becomes `; x`). A
//! comment is printed before the rule it belongs to: the comments above a rule, those inside
//! it (between its literals) and the one at the end of its last line all come, in source
//! order, right before the rule; comments after the last rule stay at the end. A blank line
//! between a comment and what follows it is kept.

use std::borrow::Cow;

use crate::ast::{Atom, Comment, Literal, Program, Rule, RuleKind, Symbols, Term};
use crate::ast::{is_name_char, is_plain_name};

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
        Literal::Distinct {
            lhs, rhs, negated, ..
        } => {
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
        Literal::Or {
            branches: parts, ..
        }
        | Literal::And {
            conjuncts: parts, ..
        } => {
            out.push_str(if matches!(lit, Literal::Or { .. }) {
                "(or"
            } else {
                "(and"
            });
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

/// Layout options of the pretty-printers.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The line width past which bodies and long literals fold.
    pub width: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Layout { width: 80 }
    }
}

/// The whole program in KIF, laid out for reading, with its comments and the default
/// [`Layout`].
pub fn pretty_kif(program: &Program) -> String {
    let mut out = String::new();
    write_program_kif(
        &program.symbols,
        &program.rules,
        &program.comments,
        &Layout::default(),
        &mut out,
    );
    out
}

/// The whole program in infix syntax, with its comments and the default [`Layout`].
pub fn pretty_infix(program: &Program) -> String {
    let mut out = String::new();
    write_program_infix(
        &program.symbols,
        &program.rules,
        &program.comments,
        &Layout::default(),
        &mut out,
    );
    out
}

/// Appends `rules` in KIF, laid out for reading, with `comments` (which refer to `rules` by
/// index, see [`Comment::rule`]); each rule and comment ends with a new line.
pub fn write_program_kif(
    symbols: &Symbols,
    rules: &[Rule],
    comments: &[Comment],
    layout: &Layout,
    out: &mut String,
) {
    write_program(rules, comments, ";", out, |rule, text| {
        write_rule_kif_pretty(symbols, rule, layout, text)
    });
}

/// Appends `rules` in infix syntax with `comments`; each rule and comment ends with a new line.
pub fn write_program_infix(
    symbols: &Symbols,
    rules: &[Rule],
    comments: &[Comment],
    layout: &Layout,
    out: &mut String,
) {
    write_program(rules, comments, "%", out, |rule, text| {
        write_rule_infix(symbols, rule, layout, text)
    });
}

/// Prints each rule with `write`, with a blank line between rules of different head relations
/// and around rules that take several lines, and each comment (written `marker` + text) before
/// its rule or, past the last rule, at the end.
fn write_program(
    rules: &[Rule],
    comments: &[Comment],
    marker: &str,
    out: &mut String,
    mut write: impl FnMut(&Rule, &mut String),
) {
    let mut text = String::new();
    let mut previous: Option<(&Rule, bool)> = None;
    let mut comments = comments.iter().peekable();
    for (i, rule) in rules.iter().enumerate() {
        text.clear();
        write(rule, &mut text);
        let multi_line = text.contains('\n');
        if let Some((prev, prev_multi)) = previous
            && (prev.head.name != rule.head.name || prev_multi || multi_line)
        {
            out.push('\n');
        }
        while let Some(comment) = comments.next_if(|c| c.rule <= i) {
            write_comment(comment, marker, out);
        }
        out.push_str(&text);
        out.push('\n');
        previous = Some((rule, multi_line));
    }
    for (k, comment) in comments.enumerate() {
        if k == 0 && !rules.is_empty() {
            out.push('\n');
        }
        write_comment(comment, marker, out);
    }
}

fn write_comment(comment: &Comment, marker: &str, out: &mut String) {
    out.push_str(marker);
    out.push_str(&comment.text);
    out.push('\n');
    if comment.blank_line_after {
        out.push('\n');
    }
}

/// Appends a fact on one line, or a rule as `(<= head` with one body literal per line.
pub fn write_rule_kif_pretty(symbols: &Symbols, rule: &Rule, layout: &Layout, out: &mut String) {
    if rule.kind == RuleKind::Fact || rule.body.is_empty() {
        write_rule_kif(symbols, rule, out);
        return;
    }
    out.push_str("(<= ");
    write_atom_kif(symbols, &rule.head, out);
    for lit in &rule.body {
        out.push_str("\n    ");
        write_literal_kif_folded(symbols, lit, 4, layout, out);
    }
    out.push(')');
}

/// Appends a literal starting at column `indent`; an `or`/`and` too long for the line gets one
/// part per line, aligned after its keyword.
fn write_literal_kif_folded(
    symbols: &Symbols,
    lit: &Literal,
    indent: usize,
    layout: &Layout,
    out: &mut String,
) {
    let start = out.len();
    write_literal_kif(symbols, lit, out);
    let (keyword, parts) = match lit {
        Literal::Or { branches, .. } => ("(or ", branches),
        Literal::And { conjuncts, .. } => ("(and ", conjuncts),
        _ => return,
    };
    if indent + (out.len() - start) <= layout.width || parts.is_empty() {
        return;
    }
    out.truncate(start);
    out.push_str(keyword);
    let inner = indent + keyword.len();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', inner));
        }
        write_literal_kif_folded(symbols, part, inner, layout, out);
    }
    out.push(')');
}

/// How a constant, function or relation name is written in infix: plain (`cell`, `-3`) when
/// the infix reader reads it back as that name, otherwise quoted (`'B'`, `'++'`, `'it\'s'`).
pub fn infix_name(name: &str) -> Cow<'_, str> {
    if is_plain_name(name) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(quote(name))
    }
}

/// How a variable (KIF `?name`) is written in infix: `X` for `?x`, `XIg` for `?xIg`, `_y` for
/// `?_y`; a name that does not start with a lower-case letter or `_` keeps its KIF spelling
/// (`?X`, `?1`), quoted if needed (`?'x++'`).
pub fn infix_var(name: &str) -> String {
    let b = name.as_bytes();
    let plain_rest = b.iter().all(|&c| is_name_char(c));
    match b.first() {
        Some(c) if plain_rest && (c.is_ascii_lowercase() || *c == b'_') => {
            let mut s = name.to_string();
            s[..1].make_ascii_uppercase();
            s
        }
        Some(_) if plain_rest => format!("?{name}"),
        _ => format!("?{}", quote(name)),
    }
}

fn quote(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 2);
    s.push('\'');
    for c in name.chars() {
        if c == '\'' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('\'');
    s
}

/// Appends the infix text of a term: `cell(1,1,b)`, `X`, `noop`.
pub fn write_term_infix(symbols: &Symbols, term: &Term, out: &mut String) {
    match term {
        Term::Var { name, .. } => out.push_str(&infix_var(symbols.name(*name))),
        Term::Const { name, .. } => out.push_str(&infix_name(symbols.name(*name))),
        Term::Func { name, args, .. } => {
            out.push_str(&infix_name(symbols.name(*name)));
            write_args_infix(symbols, args, out);
        }
    }
}

fn write_args_infix(symbols: &Symbols, args: &[Term], out: &mut String) {
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_term_infix(symbols, a, out);
    }
    out.push(')');
}

/// Appends the infix text of a sentence: `cell(1,1,b)`, `terminal`.
pub fn write_atom_infix(symbols: &Symbols, atom: &Atom, out: &mut String) {
    out.push_str(&infix_name(symbols.name(atom.name)));
    if !atom.args.is_empty() {
        write_args_infix(symbols, &atom.args, out);
    }
}

/// Where a literal is printed, which decides the parentheses an `or`/`and` needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A conjunct of a rule body (or of an `&` chain).
    Conjunct,
    /// A branch of an `|` chain.
    Branch,
    /// An argument of `or(...)`/`and(...)`, read as a whole disjunction.
    Argument,
}

/// Appends the infix text of a body literal: `~p(X)`, `~distinct(X,Y)`, `(a | b & c)`.
pub fn write_literal_infix(symbols: &Symbols, lit: &Literal, out: &mut String) {
    write_literal_at(symbols, lit, Place::Conjunct, out);
}

fn write_literal_at(symbols: &Symbols, lit: &Literal, place: Place, out: &mut String) {
    match lit {
        Literal::Pos(atom) => write_atom_infix(symbols, atom, out),
        Literal::Not { atom, .. } => {
            out.push('~');
            write_atom_infix(symbols, atom, out);
        }
        Literal::Distinct {
            lhs, rhs, negated, ..
        } => {
            if *negated {
                out.push('~');
            }
            out.push_str("distinct(");
            write_term_infix(symbols, lhs, out);
            out.push(',');
            write_term_infix(symbols, rhs, out);
            out.push(')');
        }
        Literal::Or {
            branches: parts, ..
        }
        | Literal::And {
            conjuncts: parts, ..
        } => {
            let is_or = matches!(lit, Literal::Or { .. });
            if parts.len() < 2 {
                out.push_str(if is_or { "or(" } else { "and(" });
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_literal_at(symbols, p, Place::Argument, out);
                }
                out.push(')');
                return;
            }
            let bare = place == Place::Argument || (!is_or && place == Place::Branch);
            let (separator, inner) = if is_or {
                (" | ", Place::Branch)
            } else {
                (" & ", Place::Conjunct)
            };
            if !bare {
                out.push('(');
            }
            for (i, p) in parts.iter().enumerate() {
                if i > 0 {
                    out.push_str(separator);
                }
                write_literal_at(symbols, p, inner, out);
            }
            if !bare {
                out.push(')');
            }
        }
    }
}

/// Appends a fact or rule in infix: `head`, `head :- .` for an empty body, `head :- a & b`
/// on one line when it fits, else one conjunct per line.
pub fn write_rule_infix(symbols: &Symbols, rule: &Rule, layout: &Layout, out: &mut String) {
    let start = out.len();
    write_atom_infix(symbols, &rule.head, out);
    if rule.kind == RuleKind::Fact {
        return;
    }
    if rule.body.is_empty() {
        out.push_str(" :- .");
        return;
    }
    out.push_str(" :- ");
    let body_start = out.len();
    for (i, lit) in rule.body.iter().enumerate() {
        if i > 0 {
            out.push_str(" & ");
        }
        write_literal_infix(symbols, lit, out);
    }
    if out.len() - start <= layout.width {
        return;
    }
    out.truncate(body_start - 1);
    for (i, lit) in rule.body.iter().enumerate() {
        out.push_str(if i == 0 { "\n  " } else { " &\n  " });
        write_literal_infix(symbols, lit, out);
    }
}

/// Structural equality of the rules of two programs, ignoring spans (names compared by
/// spelling, so two programs with their own interners compare).
pub fn same_rules(a: &Program, b: &Program) -> bool {
    let mut x = String::new();
    let mut y = String::new();
    a.rules.len() == b.rules.len()
        && a.rules.iter().zip(&b.rules).all(|(r, q)| {
            x.clear();
            y.clear();
            write_rule_kif(&a.symbols, r, &mut x);
            write_rule_kif(&b.symbols, q, &mut y);
            x == y
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_kif;

    fn kif(text: &str) -> Program {
        let (program, diags) = parse_kif(text);
        assert!(diags.is_empty(), "{diags:?}");
        program
    }

    #[test]
    fn infix_spelling_of_names_and_variables() {
        let names = [
            "cell",
            "1",
            "-3",
            "move-distinguished",
            "nextFile",
            "B",
            "++",
            "speed-",
            "-",
            "-x",
            "_a",
            "it's",
            "a\\b",
            "é",
        ];
        let spelled: Vec<Cow<str>> = names.iter().map(|n| infix_name(n)).collect();
        assert_eq!(
            spelled,
            [
                "cell",
                "1",
                "-3",
                "move-distinguished",
                "nextFile",
                "'B'",
                "'++'",
                "speed-",
                "'-'",
                "'-x'",
                "'_a'",
                "'it\\'s'",
                "'a\\\\b'",
                "'é'"
            ]
        );
        let vars = ["x", "xIg", "_y", "_", "X", "1", "x++", "x-1", "é"];
        let spelled: Vec<String> = vars.iter().map(|v| infix_var(v)).collect();
        assert_eq!(
            spelled,
            ["X", "XIg", "_y", "_", "?X", "?1", "?'x++'", "X-1", "?'é'"]
        );
    }

    const GAME: &str = "(role x) (role o) (index 1) (<= (legal ?w (mark ?x ?y)) (true (cell ?x ?y b)) \
        (true (control ?w))) (<= (legal o noop)) (<= terminal (or (line x) (line o) (not open))) \
        (<= (p ?x) (or (some-long-relation-name ?x ?x) (another-long-relation-name ?x) (and (q ?x) (r ?x))))";

    #[test]
    fn pretty_kif_layout() {
        let expected = "\
(role x)
(role o)

(index 1)

(<= (legal ?w (mark ?x ?y))
    (true (cell ?x ?y b))
    (true (control ?w)))

(<= (legal o noop))

(<= terminal
    (or (line x) (line o) (not open)))

(<= (p ?x)
    (or (some-long-relation-name ?x ?x)
        (another-long-relation-name ?x)
        (and (q ?x) (r ?x))))
";
        assert_eq!(pretty_kif(&kif(GAME)), expected);
    }

    #[test]
    fn pretty_infix_layout() {
        let expected = "\
role(x)
role(o)

index(1)

legal(W,mark(X,Y)) :- true(cell(X,Y,b)) & true(control(W))
legal(o,noop) :- .

terminal :- (line(x) | line(o) | ~open)

p(X) :-
  (some-long-relation-name(X,X) | another-long-relation-name(X) | q(X) & r(X))
";
        assert_eq!(pretty_infix(&kif(GAME)), expected);
        let narrow = Layout { width: 40 };
        let program = kif(GAME);
        let mut out = String::new();
        write_rule_infix(&program.symbols, &program.rules[3], &narrow, &mut out);
        assert_eq!(
            out,
            "legal(W,mark(X,Y)) :-\n  true(cell(X,Y,b)) &\n  true(control(W))"
        );
    }

    #[test]
    fn infix_parenthesises_nested_or_and() {
        let program =
            kif("(<= p (or (or a b) (and c (and d e) (or f g))) (and (and h i) j) (or k) (and))");
        let mut out = String::new();
        write_rule_infix(
            &program.symbols,
            &program.rules[0],
            &Layout { width: 200 },
            &mut out,
        );
        assert_eq!(
            out,
            "p :- ((a | b) | c & (d & e) & (f | g)) & ((h & i) & j) & or(k) & and()"
        );
    }

    const COMMENTED_KIF: &str = "\
; header
;; second line

; Roles.
(role x) ; the first player
(role o)
(<= (legal ?w noop) ; inside, after the head
    (true (control ?w))
    ; between literals
    (role ?w))
; before the end
(<= terminal (line x))

; trailing\r
;";

    /// Each comment's text and the index of the rule it belongs to.
    fn attached(program: &Program) -> Vec<(&str, usize)> {
        let comments = program.comments.iter();
        comments.map(|c| (c.text.as_str(), c.rule)).collect()
    }

    #[test]
    fn kif_comments_attach_to_the_rule_they_precede_or_end() {
        let program = kif(COMMENTED_KIF);
        assert_eq!(
            attached(&program),
            [
                (" header", 0),
                ("; second line", 0),
                (" Roles.", 0),
                (" the first player", 0),
                (" inside, after the head", 2),
                (" between literals", 2),
                (" before the end", 3),
                (" trailing", 4),
                ("", 4),
            ]
        );
        let blank: Vec<bool> = program
            .comments
            .iter()
            .map(|c| c.blank_line_after)
            .collect();
        let expected = [false, true, false, false, false, false, false, false, false];
        assert_eq!(blank, expected);
    }

    #[test]
    fn pretty_printers_keep_comments() {
        let program = kif(COMMENTED_KIF);
        let expected_kif = "\
; header
;; second line

; Roles.
; the first player
(role x)
(role o)

; inside, after the head
; between literals
(<= (legal ?w noop)
    (true (control ?w))
    (role ?w))

; before the end
(<= terminal
    (line x))

; trailing
;
";
        let expected_infix = "\
% header
%; second line

% Roles.
% the first player
role(x)
role(o)

% inside, after the head
% between literals
legal(W,noop) :- true(control(W)) & role(W)

% before the end
terminal :- line(x)

% trailing
%
";
        assert_eq!(pretty_kif(&program), expected_kif);
        assert_eq!(pretty_infix(&program), expected_infix);
        // Printed comments stand before their rules: reading and printing again is stable, in
        // both syntaxes and across them.
        assert_eq!(pretty_kif(&kif(expected_kif)), expected_kif);
        let (infix, diags) = crate::infix::parse_infix(expected_infix);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(attached(&infix), attached(&kif(expected_kif)));
        assert_eq!(pretty_infix(&infix), expected_infix);
        assert_eq!(pretty_kif(&infix), expected_kif);
    }

    #[test]
    fn infix_comments_are_kept_and_converted() {
        let source = "\
// header
role(x) % the first player
role(o).  % after a dot
legal(W,noop) :- true(control(W)) % inside
  & role(W)
%% trailing";
        let (program, diags) = crate::infix::parse_infix(source);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            attached(&program),
            [
                (" header", 0),
                (" the first player", 0),
                (" after a dot", 1),
                (" inside", 2),
                ("% trailing", 3),
            ]
        );
        let expected_kif = "\
; header
; the first player
(role x)
; after a dot
(role o)

; inside
(<= (legal ?w noop)
    (true (control ?w))
    (role ?w))

;% trailing
";
        assert_eq!(pretty_kif(&program), expected_kif);
        let back = pretty_infix(&kif(expected_kif));
        assert!(
            back.starts_with("% header\n% the first player\nrole(x)\n"),
            "{back}"
        );
        assert!(back.ends_with("\n\n%% trailing\n"), "{back}");
    }
}
