use super::*;

#[test]
fn joins_read_tables_calls_and_signals() {
    // mark(i, m): rows (1, 5) node 0, (1, 6) node 1, (2, 5) node 2.
    let marks = Table {
        width: 2,
        rows: vec![1, 5, 1, 6, 2, 5],
        signals: vec![0 << 1, 1 << 1, 2 << 1],
    };
    // Lazy big(m): holds for m = 6 (a rule whose head is the constant 6).
    let big = vec![Rule {
        vars: 0,
        head: vec![Arg::Const(6)],
        steps: Vec::new(),
    }];
    // row_has_big(i) :- mark(i, m), big(m).
    let rule = Rule {
        vars: 2,
        head: vec![Arg::Var(0)],
        steps: vec![
            Step::Scan {
                table: 0,
                cols: vec![0, 1],
                bound: 0,
            },
            Step::Call {
                relation: 0,
                args: vec![Arg::Var(1)],
                negated: false,
            },
        ],
    };
    let p = JoinProgram::new(vec![marks], vec![big], vec![(rule, vec![vec![1], vec![2]])]);
    assert!(p.validate(3));
    assert_eq!(p.evaluate(0, &|_| true), vec![true, false]);
    assert_eq!(p.evaluate(0, &|n| n != 1), vec![false, false]);
}

#[test]
fn recursive_lazy_relations_end_on_cycles() {
    // edge(x, y), node n holds edge n: 1->2 (0), 2->1 (1), 1->4 (2), 4->3 (3). Asked
    // first, path(1, 3) meets path(2, 3) while path(1, 3) is on the stack: that failure
    // must not be kept, since path(2, 3) holds by 2->1->4->3 when asked later.
    let edges = Table {
        width: 2,
        rows: vec![1, 2, 2, 1, 1, 4, 4, 3],
        signals: vec![0 << 1, 1 << 1, 2 << 1, 3 << 1],
    };
    // path(x, y) :- edge(x, y).  path(x, z) :- edge(x, y), path(y, z).
    let path = vec![
        Rule {
            vars: 2,
            head: vec![Arg::Var(0), Arg::Var(1)],
            steps: vec![Step::Scan {
                table: 0,
                cols: vec![0, 1],
                bound: 0b11,
            }],
        },
        Rule {
            vars: 3,
            head: vec![Arg::Var(0), Arg::Var(2)],
            steps: vec![
                Step::Scan {
                    table: 0,
                    cols: vec![0, 1],
                    bound: 0b01,
                },
                Step::Call {
                    relation: 0,
                    args: vec![Arg::Var(1), Arg::Var(2)],
                    negated: false,
                },
            ],
        },
    ];
    // Outputs: the pairs of the static table `pairs`, those with a path.
    let all: Vec<(Value, Value)> = (1..=4).flat_map(|x| (1..=4).map(move |y| (x, y))).collect();
    let pairs = Table {
        width: 2,
        rows: all.iter().flat_map(|&(x, y)| [x, y]).collect(),
        signals: vec![ALWAYS; all.len()],
    };
    let rule = Rule {
        vars: 2,
        head: vec![Arg::Var(0), Arg::Var(1)],
        steps: vec![
            Step::Scan {
                table: 1,
                cols: vec![0, 1],
                bound: 0,
            },
            Step::Call {
                relation: 0,
                args: vec![Arg::Var(0), Arg::Var(1)],
                negated: false,
            },
        ],
    };
    let outputs = all.iter().map(|&(x, y)| vec![x, y]).collect();
    let p = JoinProgram::new(vec![edges, pairs], vec![path], vec![(rule, outputs)]);
    assert!(p.validate(4));
    // The transitive closure, by hand, for a set of edges that hold.
    let closure = |holds: &[bool]| {
        let e = [(1, 2), (2, 1), (1, 4), (4, 3)];
        let mut reach: Vec<(Value, Value)> = e
            .iter()
            .zip(holds)
            .filter(|(_, h)| **h)
            .map(|(p, _)| *p)
            .collect();
        loop {
            let n = reach.len();
            for (a, b) in reach.clone() {
                for (c, d) in reach.clone() {
                    if b == c && !reach.contains(&(a, d)) {
                        reach.push((a, d));
                    }
                }
            }
            if reach.len() == n {
                return reach;
            }
        }
    };
    for mask in 0..16u32 {
        let holds: Vec<bool> = (0..4).map(|n| mask >> n & 1 == 1).collect();
        let got = p.evaluate(0, &|n| holds[n as usize]);
        let want = closure(&holds);
        for (i, pair) in all.iter().enumerate() {
            assert_eq!(got[i], want.contains(pair), "{pair:?} with {holds:?}");
        }
    }
}
