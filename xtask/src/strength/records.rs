//! The match records `gdlc tournament --out DIR` writes (ggp.org JSON: `playerNamesFromHost`
//! gives each role's player address, `goalValues` the goals of a completed match, `errors` per
//! state and role `TO`, `CE` or `IL <move>`), read back as what each variant got.

use std::collections::HashMap;
use std::path::Path;

/// What one match gave the variants.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// Per variant: the goals of its seats (empty when the match did not complete).
    pub goals: Vec<Vec<i64>>,
    pub completed: bool,
    /// The variant in the first role (`None` when something else played it).
    pub first: Option<usize>,
    /// Per variant: its errors of this match.
    pub errors: Vec<Errors>,
}

/// Errors charged to a player: no reply in time, no connection, an illegal move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Errors {
    pub timeouts: u32,
    pub connections: u32,
    pub illegal: u32,
}

impl Errors {
    pub fn add(&mut self, other: Errors) {
        self.timeouts += other.timeouts;
        self.connections += other.connections;
        self.illegal += other.illegal;
    }

    pub fn total(&self) -> u32 {
        self.timeouts + self.connections + self.illegal
    }

    /// `0`, or `3 (2 TO, 1 IL)`.
    pub fn text(&self) -> String {
        if self.total() == 0 {
            return "0".into();
        }
        let kinds: Vec<String> = [
            (self.timeouts, "TO"),
            (self.connections, "CE"),
            (self.illegal, "IL"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, k)| format!("{n} {k}"))
        .collect();
        format!("{} ({})", self.total(), kinds.join(", "))
    }
}

/// Reads one record; `variant_of` maps a player address to its variant, `variants` is their
/// number. Roles played by something else (the manager's `random`) are left out.
pub fn parse(
    text: &str,
    variant_of: &HashMap<String, usize>,
    variants: usize,
) -> Result<MatchResult, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a match record: {e}"))?;
    let players: Vec<&str> = v["playerNamesFromHost"]
        .as_array()
        .ok_or("no playerNamesFromHost")?
        .iter()
        .map(|p| p.as_str().unwrap_or(""))
        .collect();
    let completed = v["isCompleted"].as_bool().unwrap_or(false);
    let goal_values: Vec<i64> = v["goalValues"]
        .as_array()
        .map(|g| g.iter().map(|x| x.as_i64().unwrap_or(0)).collect())
        .unwrap_or_default();
    if completed && goal_values.len() != players.len() {
        return Err(format!(
            "{} goal values for {} players",
            goal_values.len(),
            players.len()
        ));
    }
    let mut result = MatchResult {
        goals: vec![Vec::new(); variants],
        completed,
        first: players.first().and_then(|p| variant_of.get(*p).copied()),
        errors: vec![Errors::default(); variants],
    };
    for (role, player) in players.iter().enumerate() {
        let Some(&k) = variant_of.get(*player) else {
            continue;
        };
        if completed {
            result.goals[k].push(goal_values[role]);
        }
        for state in v["errors"].as_array().into_iter().flatten() {
            let e = state.get(role).and_then(|e| e.as_str()).unwrap_or("");
            let errors = &mut result.errors[k];
            match e {
                "" => {}
                "TO" => errors.timeouts += 1,
                "CE" => errors.connections += 1,
                _ => errors.illegal += 1,
            }
        }
    }
    Ok(result)
}

/// Every record (`*.json`) of `dir`, in the order of their names.
pub fn read_dir(
    dir: &Path,
    variant_of: &HashMap<String, usize>,
    variants: usize,
) -> Result<Vec<MatchResult>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f)
                .map_err(|e| format!("cannot read {}: {e}", f.display()))?;
            parse(&text, variant_of, variants).map_err(|e| format!("{}: {e}", f.display()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_each_variant_its_goals_and_errors() {
        let record = r#"{
            "playerNamesFromHost": ["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"],
            "errors": [["", "", ""], ["TO", "", ""], ["", "IL ( mark 1 1 )", "CE"]],
            "isCompleted": true,
            "goalValues": [100, 0, 50]
        }"#;
        let map: HashMap<String, usize> = [
            ("127.0.0.1:9001".to_string(), 0),
            ("127.0.0.1:9002".to_string(), 1),
            ("127.0.0.1:9003".to_string(), 0),
        ]
        .into_iter()
        .collect();
        let r = parse(record, &map, 2).unwrap();
        assert!(r.completed);
        assert_eq!(r.goals, vec![vec![100, 50], vec![0]]);
        assert_eq!(r.first, Some(0), "the first role's player is A's");
        assert_eq!(
            r.errors[0],
            Errors {
                timeouts: 1,
                connections: 1,
                illegal: 0
            }
        );
        assert_eq!(r.errors[1].illegal, 1);
        assert_eq!(r.errors[0].text(), "2 (1 TO, 1 CE)");
        assert_eq!(Errors::default().text(), "0");
    }

    #[test]
    fn an_aborted_record_has_no_goals_and_a_bad_one_is_an_error() {
        let map: HashMap<String, usize> = [("a:1".to_string(), 0)].into_iter().collect();
        let r = parse(
            r#"{"playerNamesFromHost": ["a:1", "random"], "errors": [["", ""]],
                "isCompleted": false, "isAborted": true}"#,
            &map,
            2,
        )
        .unwrap();
        assert!(!r.completed);
        assert_eq!(r.goals, vec![Vec::<i64>::new(), vec![]]);
        assert!(parse("{", &map, 2).is_err());
        assert!(
            parse(
                r#"{"playerNamesFromHost": ["a:1"], "isCompleted": true, "goalValues": []}"#,
                &map,
                2
            )
            .is_err()
        );
    }
}
