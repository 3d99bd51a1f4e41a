use super::*;
use crate::parse::parse_kif;
use crate::print::{pretty_infix, pretty_kif, same_rules, write_rule_kif};

fn kif_of(program: &Program) -> String {
    let mut out = String::new();
    for rule in &program.rules {
        write_rule_kif(&program.symbols, rule, &mut out);
        out.push('\n');
    }
    out
}

/// The infix text reads without errors as the KIF text.
#[track_caller]
fn same(infix: &str, kif: &str) {
    let (a, da) = parse_infix(infix);
    let (b, db) = parse_kif(kif);
    assert!(da.iter().all(|d| !d.is_error()), "{infix}: {da:?}");
    assert!(db.is_empty(), "{kif}: {db:?}");
    assert!(
        same_rules(&a, &b),
        "{infix}\nreads as\n{}instead of\n{}",
        kif_of(&a),
        kif_of(&b)
    );
}

/// The errors of `infix`, as (start, end, message).
fn errors(infix: &str) -> Vec<(u32, u32, String)> {
    let (_, diags) = parse_infix(infix);
    diags
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| (d.span.start, d.span.end, d.message))
        .collect()
}

#[test]
fn reads_rules_facts_and_negation() {
    same(
        "q(Y) :- p(a,Y) & ~r(Y)",
        "(<= (q ?y) (p a ?y) (not (r ?y)))",
    );
    same("role(x)\nterminal\n", "(role x) terminal");
    same("p(X) :- q(X), r(X).", "(<= (p ?x) (q ?x) (r ?x))");
    same("legal(r, noop) :- .", "(<= (legal r noop))");
    same(
        "p :- distinct(X, f(Y)) & ~distinct(X,Y)",
        "(<= p (distinct ?x (f ?y)) (not (distinct ?x ?y)))",
    );
    same(
        "p :- not(q(X)) & not(distinct(a,b)) & ~(r) & ~(distinct(a, b))",
        "(<= p (not (q ?x)) (not (distinct a b)) (not r) (not (distinct a b)))",
    );
    same(
        "p :- ~distinct & ~or & not",
        "(<= p (not distinct) (not or) not)",
    );
    same("or(a, b) :- and & distinct", "(<= (or a b) and distinct)");
    let (program, _) = parse_infix("p\nq :- .\n");
    let kinds: Vec<RuleKind> = program.rules.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RuleKind::Fact, RuleKind::Implication]);
}

#[test]
fn and_binds_tighter_than_or() {
    same("p :- a & b | c", "(<= p (or (and a b) c))");
    same("p :- a | b & c", "(<= p (or a (and b c)))");
    same("p :- a, b | c", "(<= p (or (and a b) c))");
    same("p :- (a | b) & c", "(<= p (or a b) c)");
    same("p :- (a & b) & c", "(<= p (and a b) c)");
    same("p :- ((a | b) | c)", "(<= p (or (or a b) c))");
    same("p :- (a | b | c)", "(<= p (or a b c))");
    same("p :- ((a)) & (~b)", "(<= p a (not b))");
    same(
        "p :- or(a, b & c, d | e) & and() & or(x)",
        "(<= p (or a (and b c) (or d e)) (and) (or x))",
    );
}

#[test]
fn names_and_variables_keep_their_kif_spelling() {
    same(
        "p('B', '++', 'speed+', 'it\\'s', 'a\\\\b', -3, 10, move-distinguished, nextFile)",
        "(p B ++ speed+ it's a\\b -3 10 move-distinguished nextFile)",
    );
    same(
        "p(X, XIg, _y, _, ?X, ?1, ?'x++', ?x)",
        "(p ?x ?xIg ?_y ?_ ?X ?1 ?x++ ?x)",
    );
    same(
        "'ROLE'(x) :- 'True'(y) & '<'(1, 2)",
        "(<= (role x) (true y) (< 1 2))",
    );
    same("'++'(X, Y) :- succ(X, Y)", "(<= (++ ?x ?y) (succ ?x ?y))");
}

#[test]
fn rules_end_at_dots_or_new_lines_and_continue_on_operators() {
    let text = "a. b\nc(X) :-\n  d(X) &\n  e(X)\nf(X)\n  :- g(X)\n  & h(X)\n  | i\n\nj :- k , \n l";
    same(
        text,
        "a b (<= (c ?x) (d ?x) (e ?x)) (<= (f ?x) (or (and (g ?x) (h ?x)) i)) (<= j k l)",
    );
    same(
        "% comment\np(a) % after\n// other\nq(b,\n  c) // end",
        "(p a) (q b c)",
    );
    same("p(\n a\n ,\n b\n )", "(p a b)");
    same("..p..", "p");
}

#[test]
fn errors_have_spans_and_reading_goes_on() {
    // One error per broken rule; the rules around them are kept.
    let text = "role(x)\np(X) :- q(X) r(X)\ns(a, b\nt(c)\nu :- v & .\nw";
    let errs = errors(text);
    let starts: Vec<u32> = errs.iter().map(|e| e.0).collect();
    let at = |s: &str| text.find(s).unwrap() as u32;
    assert_eq!(starts, [at("r(X)"), at("t(c)"), at("& .") + 2], "{errs:?}");
    assert!(
        errs[0]
            .2
            .contains("expected `&`, `|`, `.` or a new line, found `r`"),
        "{errs:?}"
    );
    let (program, _) = parse_infix(text);
    let kif = kif_of(&program);
    assert_eq!(kif, "(role x)\n(t c)\nw\n");
}

#[test]
fn lexical_errors_are_all_reported() {
    let errs = errors("p(speed+) ; no\nq('abc\nr(?)\ns('') :- t(a;b)\n");
    let messages: Vec<&str> = errs.iter().map(|e| e.2.as_str()).collect();
    assert_eq!(errs.len(), 6, "{messages:?}");
    assert!(messages[0].contains("single quotes"));
    assert!(messages[1].contains("comment"));
    assert!(messages[2].contains("never closed"));
    assert_eq!((errs[2].0, errs[2].1), (17, 21));
    assert!(messages[3].contains("variable needs a name"));
    assert!(messages[4].contains("empty"));
    assert!(messages[5].contains("comment"));
    assert!(errors("p('a b')")[0].2.contains("cannot contain"));
    assert!(errors("p('?x')")[0].2.contains("cannot start with `?`"));
    assert!(errors("(<= p q)")[0].2.contains("prefix"));
}

#[test]
fn shape_errors() {
    let message = |text: &str| {
        errors(text)
            .first()
            .map(|e| e.2.clone())
            .unwrap_or_default()
    };
    assert!(message("X(a)").contains("variable cannot name the head"));
    assert!(message("p :- X").contains("variable cannot stand for a literal"));
    assert!(message("p(F(a))").contains("variable cannot name a function"));
    assert!(message("p :- distinct(a)").contains("`distinct` takes two terms, found 1"));
    assert!(message("p :- ~~q").contains("another negation"));
    assert!(message("p :- ~or(a, b)").contains("not to `or(...)`"));
    assert!(message("p :- ~(a | b)").contains("sentence or `distinct` only"));
    assert!(message("p :- (a, b)").contains("`&`, not `,`"));
    assert!(message("p :- q &").contains("found the end of the input"));
    assert!(message("p q").contains("after the head"));
    assert!(message("'<='(a, b)").contains("`<=`"));
    assert!(message("-(a)").contains("single quotes"));
    assert_eq!(errors("p :- (q & r)\n  & (s | t)"), []);
    let (_, diags) = parse_infix("p() :- q(f())");
    let warnings: Vec<&str> = diags.iter().map(|d| d.code).collect();
    assert_eq!(warnings, ["empty-parentheses", "empty-parentheses"]);
}

#[test]
fn nesting_is_limited_like_kif() {
    for n in [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1] {
        let infix = format!("p({}a{})", "f(".repeat(n), ")".repeat(n));
        let kif = format!("(p {}a{})", "(f ".repeat(n), ")".repeat(n));
        let infix_ok = errors(&infix).is_empty();
        let kif_ok = parse_kif(&kif).1.is_empty();
        assert_eq!(infix_ok, kif_ok, "depth {n}");
        let infix = format!("p :- {}a{}", "or(b, ".repeat(n), ")".repeat(n));
        let kif = format!("(<= p {}a{})", "(or b ".repeat(n), ")".repeat(n));
        assert_eq!(
            errors(&infix).is_empty(),
            parse_kif(&kif).1.is_empty(),
            "or depth {n}"
        );
    }
    // Far too deep: one error each, no stack overflow, and the next rule is read.
    let deep = 100_000;
    let text = format!(
        "p({}a{})\nq :- {}r{}\ns :- {}t{}\nu",
        "f(".repeat(deep),
        ")".repeat(deep),
        "(".repeat(deep),
        ")".repeat(deep),
        "(a & ".repeat(deep / 4) + "(b | c",
        ")".repeat(deep / 4 + 1),
    );
    let (program, diags) = parse_infix(&text);
    assert_eq!(diags.len(), 3, "{diags:?}");
    assert_eq!(kif_of(&program), "u\n");
    // Without parentheses, `&` inside `|` nests too: the same limit applies.
    let text = format!(
        "p :- {}z{}",
        "a | b & (".repeat(MAX_DEPTH / 2 + 1),
        ")".repeat(MAX_DEPTH / 2 + 1)
    );
    assert!(errors(&text)[0].2.contains("nested deeper"));
}

#[test]
fn reads_terms() {
    let mut symbols = Symbols::default();
    let term = parse_infix_term("mark(X, '++')", &mut symbols).map_err(|d| format!("{d:?}"));
    let mut out = String::new();
    crate::print::write_term_kif(
        &symbols,
        &term.unwrap_or(Term::Var {
            name: kw::OR,
            span: Span::default(),
        }),
        &mut out,
    );
    assert_eq!(out, "(mark ?x ++)");
    assert!(parse_infix_term("a b", &mut symbols).is_err());
    assert!(parse_infix_term("f(", &mut symbols).is_err());
}

#[test]
fn printed_programs_read_back() {
    let kif = "(role x) (<= (p ?x ?X ?x++ ?_ ?1) (or (or a b) (and c (or d (and e f)))) (and (and g)) \
               (or) (and) (or (not (distinct ?x B)) (distinct ?X b)) (not (++ 1 -3)))";
    let (program, diags) = parse_kif(kif);
    assert!(diags.is_empty(), "{diags:?}");
    for text in [pretty_infix(&program), pretty_kif(&program)] {
        let reread = if text.starts_with('(') {
            parse_kif(&text)
        } else {
            parse_infix(&text)
        };
        assert!(reread.1.is_empty(), "{text}: {:?}", reread.1);
        assert!(same_rules(&program, &reread.0), "{text}");
    }
}

#[test]
fn never_panics_on_mangled_text() {
    let text = "p(X) :- q(X, 'a\\'b') & ~distinct(X, -3) | (r & or(s, t)) .\n% c\n?'é'(a) :- ~(";
    let mut seed: u64 = 1;
    for end in 0..=text.len() {
        if text.is_char_boundary(end) {
            let _ = parse_infix(&text[..end]);
        }
    }
    let pieces = [
        "(", ")", "&", "|", "~", ",", ".", ":-", "'", "?", "\\", "X", "a", "\n", " ", "é", "-", "%",
    ];
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..12 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
        }
        let (program, _) = parse_infix(&s);
        // Whatever reads also prints and reads back the same.
        let (again, diags) = parse_infix(&pretty_infix(&program));
        assert!(
            diags.iter().all(|d| !d.is_error()) && same_rules(&program, &again),
            "{s:?}"
        );
    }
}
