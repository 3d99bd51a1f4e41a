use super::*;
use crate::normalize::text::rule;
use crate::normalize::{NormalizeOptions, normalize};

/// The rules of `src` with inert positions dropped, as sorted text (`None`: none dropped).
fn dropped(src: &str) -> Option<String> {
    let (program, diags) = crate::frontend::Syntax::Kif.parse(src);
    assert!(diags.is_empty(), "{diags:?}");
    let n = normalize(&program, NormalizeOptions::default()).expect("normalises");
    let p = drop_inert(&n)?;
    let mut lines: Vec<String> = p.rules.iter().map(|r| rule(r, &p)).collect();
    lines.sort();
    Some(lines.join("\n"))
}

const GAME: &str = "(role r) (init (step 1)) (legal r wait) (goal r 0) \
     (<= (next (step 2)) (true (step 1))) (<= terminal (true (step 2))) (bit 0) (bit 1)";

#[test]
fn a_chain_of_bits_loses_its_arguments() {
    let text = dropped(&format!(
        "{GAME}
         (<= (legal r go) (p1 0))
         (<= (p1 ?a) (bit ?a) (true (step 1)))
         (<= (p1 ?a) (bit ?a) (not (true (step 1))) (p2 ?a 0) (p2 ?a 1))
         (<= (p2 ?a ?b) (bit ?a) (bit ?b) (true (step 2)))"
    ))
    .expect("p1 and p2 have inert positions");
    let expected = "\
(<= (bit 0) )
(<= (bit 1) )
(<= (goal r 0) )
(<= (init (step 1)) )
(<= (legal r go) (p1 ~1) (bit 0))
(<= (legal r wait) )
(<= (next (step 2)) (true (step 1)))
(<= (p1 ~1) (not (true (step 1))) (p2 ~2) (bit 0) (bit 1))
(<= (p1 ~1) (true (step 1)))
(<= (p2 ~2) (true (step 2)))
(<= (role r) )
(<= (terminal) (true (step 2)))";
    assert_eq!(text, expected, "{text}");
}

#[test]
fn a_variable_bound_elsewhere_is_tested_against_the_domain() {
    let text = dropped(&format!(
        "{GAME}
         (<= (legal r (go ?x)) (near ?x ?y) (p ?y))
         (<= (near ?x ?y) (bit ?x) (bit ?y) (distinct ?x ?y))
         (<= (p ?a) (bit ?a) (true (step 1)))"
    ))
    .expect("p has an inert position");
    // `near` keeps both positions: `distinct` reads them.
    assert!(
        text.contains("(<= (legal r (go ?0)) (near ?0 ?1) (p ~1) (bit ?1))"),
        "{text}"
    );
    assert!(
        text.contains("(<= (near ?0 ?1) (bit ?0) (bit ?1) (distinct ?0 ?1))"),
        "{text}"
    );
}

#[test]
fn positions_that_are_not_inert_are_kept() {
    // Read negatively; read by `distinct`; a domain that differs between rules; a relation of
    // the game; a variable twice in the head; a domain literal of two variables.
    for rules in [
        "(<= (legal r go) (not (p 0))) (<= (p ?a) (bit ?a) (true (step 1)))",
        "(<= (legal r go) (p 0)) (<= (p ?a) (bit ?a) (distinct ?a 1) (true (step 1)))",
        "(<= (legal r go) (p 0)) (<= (p ?a) (bit ?a) (true (step 1))) \
         (<= (p ?a) (other ?a) (true (step 2))) (other 0)",
        "(<= (legal r (go ?a)) (bit ?a) (true (step 1)))",
        "(<= (legal r go) (p 0 0)) (<= (p ?a ?a) (bit ?a) (true (step 1)))",
        "(<= (legal r go) (p 0)) (<= (p ?a) (pair ?a ?b) (true (step 1))) (pair 0 1)",
        "(<= (legal r go) (p 0)) (<= (p ?a) (bit ?a) (true (step ?a)))",
        // A static relation: computed once, kept as it is.
        "(<= (legal r go) (p 0)) (<= (p ?a) (bit ?a) (other 1)) (other 1)",
    ] {
        assert_eq!(dropped(&format!("{GAME} {rules}")), None, "{rules}");
    }
}
