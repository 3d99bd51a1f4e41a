//! Case folding, for managers that upper-case the whole message (the Dresden GameController):
//! with [`ServerOptions::case_fold`](super::ServerOptions::case_fold) the rules, the role and
//! the moves of a match are lower-cased before use; the engine reads the moves of PLAY
//! without regard to case ([`GameEngine`](super::GameEngine)), and sends its own as the game
//! spells them. Folding merges constants that differ only in case (and variables of one rule):
//! [`folding_merges`] names them, for a warning at START.

use std::collections::{BTreeMap, BTreeSet};

use gdl_runtime::sexpr;

/// The GDL keywords, which are read without regard to case anyway.
const KEYWORDS: [&str; 14] = [
    "role", "init", "true", "next", "legal", "does", "goal", "terminal", "distinct", "not", "or",
    "base", "input", "sees",
];

/// The groups of distinct constants of `rules` that folding to lower case makes one (each
/// group sorted, e.g. `["nextFile", "nextfile"]`), and of distinct variables of one rule
/// (`?P` / `?p`: ggp-base tells them apart too); GDL keywords are read without regard to case
/// anyway, and are left out.
pub fn folding_merges(rules: &str) -> Vec<Vec<String>> {
    let tree = sexpr::read(rules);
    let mut constants: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut merges: BTreeSet<Vec<String>> = BTreeSet::new();
    for &rule in tree.top_level() {
        let mut variables: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        let mut stack = vec![rule];
        while let Some(id) = stack.pop() {
            match tree.atom(rules, id) {
                Some(a) => {
                    let spellings = match a.starts_with('?') {
                        true => &mut variables,
                        false => &mut constants,
                    };
                    spellings
                        .entry(a.to_ascii_lowercase())
                        .or_default()
                        .insert(a);
                }
                None => stack.extend_from_slice(tree.children(id)),
            }
        }
        merges.extend(groups(variables));
    }
    constants.retain(|folded, _| !KEYWORDS.contains(&folded.as_str()));
    merges.extend(groups(constants));
    merges.into_iter().collect()
}

/// The spellings that are more than one.
fn groups(spellings: BTreeMap<String, BTreeSet<&str>>) -> impl Iterator<Item = Vec<String>> {
    spellings
        .into_values()
        .filter(|s| s.len() > 1)
        .map(|s| s.into_iter().map(str::to_string).collect())
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
        let rules = "(role white) (<= (next (nextFile ?x)) (true (nextfile ?x)) (true (NEXTFILE ?x)))\
                     (init (cell a)) (<= (legal ?r (move ?x)) (true (cell ?x)))";
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
        // Keywords in two cases, variables in two cases in two rules: nothing merges.
        let apart = "(ROLE x) (role y) (<= (legal ?X a) (true (p ?X))) (<= (q ?x) (p ?x))";
        assert!(folding_merges(apart).is_empty());
        // Two variables of one rule do.
        assert_eq!(
            folding_merges("(<= (q ?P) (p ?P ?p))"),
            vec![vec!["?P".to_string(), "?p".into()]]
        );
        assert!(merge_warning("(role x)").is_none());
    }
}
