//! The analyses of a complete graph: weak winnability, goals that decrease along a move,
//! cycles (with the nearest state on one and the moves round it), and retrograde analysis —
//! which roles can force a win, and the value of a two-player zero-sum turn-taking game.

use super::checks::is_proper;
use super::explore::{Findings, Graph, Site};
use super::{Kind, Report};

/// Fixpoint passes over the states that can reach a cycle before giving up on an answer.
const MAX_PASSES: usize = 100;

pub(super) fn analyse<S: Clone + Eq + std::hash::Hash>(
    g: &Graph<S>,
    findings: &mut Findings,
    report: &mut Report,
) {
    let len = g.len() as u32;
    for r in 0..g.roles {
        let terminal_goals = (0..len).filter(|&s| g.terminal[s as usize]);
        let best = terminal_goals
            .map(|s| g.goal(s, r))
            .filter(|&v| is_proper(v))
            .max();
        let won = best == Some(100);
        report.roles[r].weakly_winnable = Some(won);
        if !won {
            findings.add(
                Kind::NotWeaklyWinnable,
                Some(r),
                Site::Graph,
                || match best {
                    Some(b) => format!("no reachable terminal state gives it 100 (at best {b})"),
                    None => {
                        "no reachable terminal state gives it one goal value in 0..100".to_string()
                    }
                },
            );
        }
    }
    for s in 0..len {
        for (j, &t) in g.successors(s).iter().enumerate() {
            for r in 0..g.roles {
                let (a, b) = (g.goal(s, r), g.goal(t, r));
                if is_proper(a) && is_proper(b) && b < a {
                    findings.add(
                        Kind::GoalDecreases,
                        Some(r),
                        Site::Edge(s, j as u32),
                        || format!("goal value {a} before the last move, {b} after it"),
                    );
                }
            }
        }
    }
    let order = sinks_first(g);
    let mut in_order = vec![false; len as usize];
    for &s in &order {
        in_order[s as usize] = true;
    }
    if order.len() < len as usize {
        if let Some((at, round)) = nearest_cycle(g, &in_order) {
            let stuck = len as usize - order.len();
            findings.add(Kind::Cycle, None, Site::Cycle(at, round), || {
                format!("{stuck} reachable states can reach a cycle: the game need not end")
            });
        }
    }
    for r in 0..g.roles {
        let won = strongly_winnable(g, r, &order, &in_order);
        report.roles[r].strongly_winnable = won;
        if g.roles == 1 && won == Some(false) {
            findings.add(Kind::NotStronglyWinnable, Some(r), Site::Graph, || {
                "the single role cannot force a terminal state that gives it 100".to_string()
            });
        }
    }
    match value(g, &order, &in_order) {
        Ok(v) => report.value = Some(v),
        Err(why) => report.value_note = why,
    }
}

/// The states from which every path ends, each after all its successors (sinks first: the
/// order of retrograde analysis). States that can reach a cycle are not in it.
fn sinks_first<S: Clone + Eq + std::hash::Hash>(g: &Graph<S>) -> Vec<u32> {
    let len = g.len();
    let mut out_degree: Vec<usize> = (0..len as u32).map(|s| g.successors(s).len()).collect();
    let mut pred_start = vec![0usize; len + 1];
    for &t in &g.edges {
        pred_start[t as usize + 1] += 1;
    }
    for i in 0..len {
        pred_start[i + 1] += pred_start[i];
    }
    let mut fill = pred_start.clone();
    let mut preds = vec![0u32; g.edges.len()];
    for s in 0..len as u32 {
        for &t in g.successors(s) {
            preds[fill[t as usize]] = s;
            fill[t as usize] += 1;
        }
    }
    let mut order: Vec<u32> = (0..len as u32)
        .filter(|&s| out_degree[s as usize] == 0)
        .collect();
    let mut next = 0;
    while let Some(&t) = order.get(next) {
        next += 1;
        for &p in &preds[pred_start[t as usize]..pred_start[t as usize + 1]] {
            out_degree[p as usize] -= 1;
            if out_degree[p as usize] == 0 {
                order.push(p);
            }
        }
    }
    order
}

/// The first state (in breadth-first order, so one of the nearest) that lies on a cycle, and
/// the shortest round of (state, joint move) edges from it back to it. `done` marks the
/// states that cannot reach a cycle.
fn nearest_cycle<S: Clone + Eq + std::hash::Hash>(
    g: &Graph<S>,
    done: &[bool],
) -> Option<(u32, Vec<(u32, u32)>)> {
    let comp = components(g, done);
    let len = g.len();
    let mut size = vec![0u32; len];
    for &c in comp.iter().filter(|&&c| c != u32::MAX) {
        size[c as usize] += 1;
    }
    let on_cycle = |s: u32| {
        let c = comp[s as usize];
        c != u32::MAX && (size[c as usize] > 1 || g.successors(s).contains(&s))
    };
    let at = (0..len as u32).find(|&s| on_cycle(s))?;
    // Breadth-first within the component from `at` back to `at`.
    let mut from: Vec<Option<(u32, u32)>> = vec![None; len];
    let mut queue = std::collections::VecDeque::from([at]);
    while let Some(s) = queue.pop_front() {
        for (j, &t) in g.successors(s).iter().enumerate() {
            if comp[t as usize] != comp[at as usize] || from[t as usize].is_some() {
                continue;
            }
            from[t as usize] = Some((s, j as u32));
            if t == at {
                let mut round = Vec::new();
                let mut x = at;
                while let Some((p, j)) = from[x as usize] {
                    round.push((p, j));
                    x = p;
                    if x == at {
                        break;
                    }
                }
                round.reverse();
                return Some((at, round));
            }
            queue.push_back(t);
        }
    }
    None
}

/// Strongly connected components (Tarjan's, with an explicit stack) of the states not `done`:
/// per state its component's number, `u32::MAX` for states done.
fn components<S: Clone + Eq + std::hash::Hash>(g: &Graph<S>, done: &[bool]) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let len = g.len();
    let mut index = vec![NONE; len];
    let mut low = vec![0u32; len];
    let mut on_stack = vec![false; len];
    let mut stack = Vec::new();
    let mut comp = vec![NONE; len];
    let (mut next_index, mut next_comp) = (0u32, 0u32);
    for root in 0..len as u32 {
        if done[root as usize] || index[root as usize] != NONE {
            continue;
        }
        let mut calls = vec![(root, 0usize)];
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let succ = g.successors(v);
            if let Some(&w) = succ.get(*pos) {
                *pos += 1;
                if done[w as usize] {
                    continue;
                }
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[w as usize] = next_comp;
                    if w == v {
                        break;
                    }
                }
                next_comp += 1;
            }
        }
    }
    comp
}

/// Whether `role` can force a terminal state that gives it 100 from the initial state,
/// whatever the others play: the least fixpoint, in one pass over `order` and then passes
/// over the states that can reach a cycle. `None` when those passes did not settle.
fn strongly_winnable<S: Clone + Eq + std::hash::Hash>(
    g: &Graph<S>,
    role: usize,
    order: &[u32],
    done: &[bool],
) -> Option<bool> {
    let len = g.len();
    let mut win = vec![false; len];
    let mut ok = Vec::new();
    let mut forced = |s: u32, win: &[bool]| -> bool {
        if g.terminal[s as usize] {
            return g.goal(s, role) == 100;
        }
        let succ = g.successors(s);
        if succ.is_empty() {
            return false;
        }
        ok.clear();
        ok.resize(g.count(s, role) as usize, true);
        for (j, &t) in succ.iter().enumerate() {
            if !win[t as usize] {
                ok[g.digit(s, j as u32, role) as usize] = false;
            }
        }
        ok.contains(&true)
    };
    for &s in order {
        win[s as usize] = forced(s, &win);
    }
    let rest: Vec<u32> = (0..len as u32).filter(|&s| !done[s as usize]).collect();
    let mut settled = rest.is_empty();
    for _ in 0..MAX_PASSES {
        if settled {
            break;
        }
        settled = true;
        for &s in &rest {
            if !win[s as usize] && forced(s, &win) {
                win[s as usize] = true;
                settled = false;
            }
        }
    }
    match (win[0], settled) {
        (true, _) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
    }
}

/// The goal values of the initial state under optimal play (minimax), when the game is a
/// two-player zero-sum turn-taking game whose initial state cannot reach a cycle; otherwise
/// why not.
fn value<S: Clone + Eq + std::hash::Hash>(
    g: &Graph<S>,
    order: &[u32],
    done: &[bool],
) -> Result<Vec<i32>, String> {
    if g.roles != 2 {
        return Err(format!("not a two-player game ({} roles)", g.roles));
    }
    if !done[0] {
        return Err("the initial state can reach a cycle".to_string());
    }
    for &s in order {
        let (a, b) = (g.goal(s, 0), g.goal(s, 1));
        if g.terminal[s as usize] {
            if !is_proper(a) || !is_proper(b) {
                return Err("a terminal state without proper goal values".to_string());
            }
            if a + b != 100 {
                return Err(format!("not zero-sum (a terminal state gives {a} and {b})"));
            }
        } else {
            let (c0, c1) = (g.count(s, 0), g.count(s, 1));
            if c0 == 0 || c1 == 0 {
                return Err("a non-terminal state where a role has no legal move".to_string());
            }
            if c0 > 1 && c1 > 1 {
                return Err("not turn-taking (both roles choose in some state)".to_string());
            }
        }
    }
    let mut v = vec![0i32; g.len()];
    for &s in order {
        let succ = g.successors(s);
        let values = succ.iter().map(|&t| v[t as usize]);
        v[s as usize] = if g.terminal[s as usize] {
            g.goal(s, 0)
        } else if g.count(s, 0) > 1 {
            values.max().unwrap_or(0)
        } else {
            values.min().unwrap_or(0)
        };
    }
    Ok(vec![v[0], 100 - v[0]])
}
