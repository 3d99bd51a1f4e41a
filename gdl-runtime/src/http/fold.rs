//! Case folding, for managers that upper-case the whole message (the Dresden GameController):
//! with [`ServerOptions::case_fold`](super::ServerOptions::case_fold) the rules, the role and
//! the moves of a match are lower-cased before use; the engine reads the moves of PLAY
//! without regard to case ([`GameEngine`](super::GameEngine)), and sends its own as the game
//! spells them. Folding merges constants that differ only in case: [`folding_merges`] names
//! them, for a warning at START.

use std::collections::{BTreeMap, BTreeSet};

use crate::sexpr;

/// The GDL keywords, which are read without regard to case anyway.
const KEYWORDS: [&str; 14] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or",
    "base", "input", "sees",
];

/// The groups of distinct constants of `rules` that folding to lower case makes one (each
/// group sorted, e.g. `["nextFile", "nextfile"]`); variables and GDL keywords are not
/// constants.
pub fn folding_merges(rules: &str) -> Vec<Vec<String>> {
    let tree = sexpr::read(rules);
    let mut spellings: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut stack: Vec<sexpr::NodeId> = tree.top_level().to_vec();
    while let Some(id) = stack.pop() {
        match tree.atom(rules, id) {
            Some(a) if !a.starts_with('?') => {
                spellings
                    .entry(a.to_ascii_lowercase())
                    .or_default()
                    .insert(a);
            }
            Some(_) => {}
            None => stack.extend_from_slice(tree.children(id)),
        }
    }
    spellings
        .into_iter()
        .filter(|(folded, s)| s.len() > 1 && !KEYWORDS.contains(&folded.as_str()))
        .map(|(_, s)| s)
        .map(|s| s.into_iter().map(str::to_string).collect())
        .collect()
}

/// The warning for the merges of [`folding_merges`], if any.
pub(super) fn merge_warning(rules: &str) -> Option<String> {
    let merges = folding_merges(rules);
    (!merges.is_empty()).then(|| {
        let groups: Vec<String> = merges.iter().map(|g| g.join(" / ")).collect();
        format!(
            "warning: case folding makes distinct constants one: {}",
            groups.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_are_named() {
        let rules = "(role white) (<= (next (nextFile ?x)) (true (nextfile ?x)) (true (NEXTFILE ?X)))\
                     (init (cell a)) (<= (legal ?X (move ?x)) (true (cell ?x)))";
        assert_eq!(
            folding_merges(rules),
            vec![vec![
                "NEXTFILE".to_string(),
                "nextFile".into(),
                "nextfile".into()
            ]]
        );
        let w = merge_warning(rules).expect("a warning");
        assert!(w.contains("NEXTFILE / nextFile / nextfile"), "{w}");
        // Variables in two cases, keywords spelled once: nothing merges.
        assert!(folding_merges("(ROLE x) (role y) (<= (legal ?X a) (true (p ?x)))").is_empty());
        assert!(merge_warning("(role x)").is_none());
    }
}
