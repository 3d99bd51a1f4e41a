//! `gdlc tournament`: four tic-tac-toe matches between `random` and `mcts` in process, two at
//! a time; the roles rotate (each player plays each role twice), every record is written and
//! keeps the invariants, and the score table agrees with the records. With a remote player,
//! matches run one at a time.

mod support;

use std::net::TcpListener;

use gdl_tests::example;
use support::{assert_record, gdlc, read_record, scratch};

/// The table's lines after the header, split into words.
fn rows(table: &str) -> Vec<Vec<String>> {
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
    assert_eq!(
        header,
        [
            "player",
            "matches",
            "wins",
            "draws",
            "losses",
            "mean-goal",
            "x",
            "o"
        ]
    );
    lines
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn four_matches_rotate_the_roles_and_score_them() {
    let dir = scratch("tournament-cli", "records");
    let result = gdlc()
        .args(["tournament", &example("ticTacToe.kif")])
        .args(["--player", "random", "--player", "mcts"])
        .args(["--matches", "4", "--parallel", "2"])
        .args(["--startclock", "0.2", "--playclock", "0.2"])
        .arg("--out")
        .arg(&dir)
        .output()
        .expect("gdlc tournament runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(stderr.contains("4 of 4 matches completed"), "{stderr}");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let rows = rows(&stdout);
    assert_eq!(rows.len(), 2, "{stdout}");
    assert_eq!(rows[0][0], "1:random");
    assert_eq!(rows[1][0], "2:mcts");
    let num = |row: &[String], k: usize| -> f64 { row[k].parse().expect("a number") };
    for row in &rows {
        assert_eq!(num(row, 1), 4.0, "{stdout}");
        assert_eq!(num(row, 2) + num(row, 3) + num(row, 4), 4.0, "{stdout}");
        assert_eq!(
            (num(row, 6), num(row, 7)),
            (2.0, 2.0),
            "each role twice: {stdout}"
        );
    }
    // One's win is the other's loss; draws are shared.
    assert_eq!(num(&rows[0], 2), num(&rows[1], 4), "{stdout}");
    assert_eq!(num(&rows[0], 3), num(&rows[1], 3), "{stdout}");

    // The records: four, complete, each player twice in each role, goals as the table says.
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the records")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");
    let mut as_x = [0; 2];
    let mut goal_sums = [0i64; 2];
    for f in &files {
        let record = read_record(f);
        assert_record(&record);
        assert_eq!(record["isCompleted"], true);
        let id = record["matchId"].as_str().unwrap();
        assert!(f.ends_with(format!("{id}.json")), "{f:?}");
        let names = &record["playerNamesFromHost"];
        for role in 0..2 {
            let who = usize::from(names[role] == "mcts");
            if role == 0 {
                as_x[who] += 1;
            }
            goal_sums[who] += record["goalValues"][role].as_i64().unwrap();
        }
    }
    assert_eq!(as_x, [2, 2]);
    for (who, row) in rows.iter().enumerate() {
        assert_eq!(num(row, 5), goal_sums[who] as f64 / 4.0, "{stdout}");
    }
}

#[test]
fn with_a_remote_player_matches_run_one_at_a_time() {
    // Nothing listens there: every move of that player is CE, and the matches go on.
    let addr = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    let result = gdlc()
        .args(["tournament", &example("ticTacToe.kif")])
        .args(["--player", &addr.to_string(), "--player", "random"])
        .args(["--matches", "2", "--parallel", "2"])
        .args(["--startclock", "0.2", "--playclock", "0.2"])
        .output()
        .expect("gdlc tournament runs");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{stderr}");
    assert!(stderr.contains("one after another"), "{stderr}");
    // One at a time: a step line of match 2 never comes before match 1 ends.
    let first_end = stderr.find("match 1/2").expect("match 1 ends");
    let second_start = stderr.find(".2: x = ").expect("match 2 starts");
    assert!(first_end < second_start, "{stderr}");
    let rows = rows(&String::from_utf8_lossy(&result.stdout));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][1], "2");
}

#[test]
fn a_remote_player_given_twice_is_refused() {
    let result = gdlc()
        .args(["tournament", &example("ticTacToe.kif")])
        .args(["--player", "127.0.0.1:9", "--player", "127.0.0.1:9"])
        .args(["--matches", "2"])
        .output()
        .expect("gdlc tournament runs");
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("given twice"));
}
