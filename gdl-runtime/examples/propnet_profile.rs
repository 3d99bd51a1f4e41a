//! Analysis: where the visits of a propnet go (temporary).
use gdl_runtime::SplitMix64;
use gdl_runtime::propnet::{Engine, Net};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let playouts: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let net = Net::decode(&text).unwrap();
    let nodes = net.nodes as usize;
    assert!(net.groups.is_empty(), "groups not handled");
    let fan = |n: usize| &net.fan[net.fan_start[n] as usize..net.fan_start[n + 1] as usize];
    let mut ins: Vec<Vec<(u32, bool)>> = vec![Vec::new(); nodes];
    for n in 0..nodes {
        for &e in fan(n) {
            ins[(e >> 2) as usize].push((n as u32, e & 1 != 0));
        }
    }
    let first_gate = net
        .does_base
        .iter()
        .zip(&net.moves)
        .map(|(&b, &m)| b + m)
        .max()
        .unwrap()
        .max(net.bits) as usize;
    // does-dependence
    let mut dep = vec![false; nodes];
    for (r, &b) in net.does_base.iter().enumerate() {
        for m in 0..net.moves[r] {
            dep[(b + m) as usize] = true;
        }
    }
    for n in first_gate..nodes {
        if ins[n].iter().any(|&(s, _)| dep[s as usize]) {
            dep[n] = true;
        }
    }
    // kinds
    let mut kind = vec!["gate"; nodes];
    for n in 0..net.bits as usize {
        kind[n] = "bit";
    }
    for (r, &b) in net.does_base.iter().enumerate() {
        for m in 0..net.moves[r] {
            kind[(b + m) as usize] = "does";
        }
    }
    for (r, &b) in net.legal_base.iter().enumerate() {
        for m in 0..net.moves[r] {
            kind[(b + m) as usize] = "legal";
        }
    }
    for b in 0..net.bits {
        kind[(net.next_base + b) as usize] = "next";
    }
    kind[net.terminal as usize] = "terminal";
    for g in net.goals.iter().flatten() {
        kind[g.1 as usize] = "goal";
    }
    let eval = |state: &[u64], joint: &[u32]| -> Vec<bool> {
        let mut v = vec![false; nodes];
        for b in 0..net.bits as usize {
            v[b] = state[b / 64] >> (b % 64) & 1 != 0;
        }
        for (r, &m) in joint.iter().enumerate() {
            if m != u32::MAX {
                v[(net.does_base[r] + m) as usize] = true;
            }
        }
        for n in first_gate..nodes {
            let t = net.thresh[n];
            if t == u32::MAX {
                continue;
            }
            let c = ins[n]
                .iter()
                .filter(|&&(s, neg)| v[s as usize] != neg)
                .count() as u32;
            v[n] = c >= t;
        }
        v
    };
    let roles = net.moves.len();
    let mut rng = SplitMix64::new(1);
    let mut e = Engine::new(&net);
    // stats
    use std::collections::BTreeMap;
    let mut by: BTreeMap<(u8, &str, bool, String), (u64, u64)> = BTreeMap::new(); // (phase, kind, dep, thr) -> (changes, visits)
    let mut node_changes = vec![[0u64; 2]; nodes];
    let mut back = 0u64;
    let mut deferred = 0u64;
    let mut total = 0u64; // D nodes changed in phase 0 and back in phase 1
    let mut states = 0u64;
    let mut joint = vec![u32::MAX; roles];
    let mut prev = eval(&net.init, &joint);
    let mut moves = Vec::new();
    for _ in 0..playouts {
        let mut state = net.init.clone();
        loop {
            states += 1;
            let v0 = eval(&state, &joint);
            e.set_state(&state);
            if e.terminal() {
                for n in 0..nodes {
                    if v0[n] != prev[n] {
                        node_changes[n][0] += 1;
                        let k = (0u8, kind[n], dep[n], thr(&net, &ins, n));
                        let x = by.entry(k).or_default();
                        x.0 += 1;
                        x.1 += fan(n).len() as u64;
                    }
                }
                prev = v0;
                break;
            }
            for r in 0..roles {
                moves.clear();
                e.legal(r, &mut moves);
                joint[r] = moves[rng.below(moves.len())];
            }
            let v1 = eval(&state, &joint);
            for n in 0..nodes {
                if v0[n] != prev[n] {
                    node_changes[n][0] += 1;
                    let k = (0u8, kind[n], dep[n], thr(&net, &ins, n));
                    let x = by.entry(k).or_default();
                    x.0 += 1;
                    x.1 += fan(n).len() as u64;
                }
                if v1[n] != v0[n] {
                    node_changes[n][1] += 1;
                    let k = (1u8, kind[n], dep[n], thr(&net, &ins, n));
                    let x = by.entry(k).or_default();
                    x.0 += 1;
                    x.1 += fan(n).len() as u64;
                }
                if v0[n] != prev[n] && v1[n] != v0[n] {
                    back += 1;
                }
                let f = fan(n).len() as u64;
                if kind[n] == "does" {
                    if v1[n] != v0[n] {
                        deferred += f;
                    }
                } else if dep[n] {
                    if v1[n] != prev[n] {
                        deferred += f;
                    }
                } else if v0[n] != prev[n] {
                    deferred += f;
                }
                if v0[n] != prev[n] {
                    total += f;
                }
                if v1[n] != v0[n] {
                    total += f;
                }
            }
            e.set_joint(&joint);
            let mut next = state.clone();
            e.next(&mut next);
            state = next;
            prev = v1;
        }
    }
    let s = states as f64;
    let mut tk: BTreeMap<(usize, &str, bool), u64> = BTreeMap::new();
    for n in 0..nodes {
        for ph in 0..2 {
            if node_changes[n][ph] == 0 {
                continue;
            }
            for &ed in fan(n) {
                let t = (ed >> 2) as usize;
                *tk.entry((ph, kind[t], dep[t])).or_default() += node_changes[n][ph];
            }
        }
    }
    println!("visits by target kind: phase kind dep visits/state");
    for ((p, k, d), c) in &tk {
        println!("{p} {k:8} {d:5} {:7.1}", *c as f64 / s);
    }
    println!(
        "edge visits of changed nodes/state: now {:.1}, deferred {:.1}",
        total as f64 / s,
        deferred as f64 / s
    );
    println!(
        "states {states}; D nodes flipped in state phase and back in joint phase: {:.1}/state",
        back as f64 / s
    );
    println!("phase kind dep thr: changes/state visits/state");
    for ((p, k, d, t), (c, v)) in &by {
        if *c as f64 / s >= 0.2 {
            println!(
                "{p} {k:8} {d:5} {t:10}: {:7.1} {:7.1}",
                *c as f64 / s,
                *v as f64 / s
            );
        }
    }
    let mut top: Vec<usize> = (0..nodes).collect();
    top.sort_by_key(|&n| {
        std::cmp::Reverse((node_changes[n][0] + node_changes[n][1]) * fan(n).len() as u64)
    });
    println!("top nodes by visits: node kind dep thr ins fan changes/state(phase0,1)");
    for &n in top.iter().take(40) {
        println!(
            "{n:6} {:8} {:5} {:10} ins={:4} fan={:4} {:.2} {:.2} {}",
            kind[n],
            dep[n],
            thr(&net, &ins, n),
            ins[n].len(),
            fan(n).len(),
            node_changes[n][0] as f64 / s,
            node_changes[n][1] as f64 / s,
            describe(&net, n)
        );
    }
}

fn thr(net: &Net, ins: &[Vec<(u32, bool)>], n: usize) -> String {
    let t = net.thresh[n];
    let k = ins[n].len() as u32;
    if t == u32::MAX {
        return "-".into();
    }
    if t == 1 && k == 1 {
        return "buf".into();
    }
    if t == 1 {
        return "or".into();
    }
    if t == k {
        return "and".into();
    }
    if t == 0 {
        return "true".into();
    }
    format!("{t}of{k}")
}
#[allow(dead_code)]
pub fn describe(net: &Net, n: usize) -> String {
    let fan = |n: usize| &net.fan[net.fan_start[n] as usize..net.fan_start[n + 1] as usize];
    let mut by = std::collections::BTreeMap::<String, usize>::new();
    for &e in fan(n) {
        let t = (e >> 2) as usize;
        let k = if net
            .legal_base
            .iter()
            .zip(&net.moves)
            .any(|(&b, &m)| t >= b as usize && t < (b + m) as usize)
        {
            "legal"
        } else if t >= net.next_base as usize && t < (net.next_base + net.bits) as usize {
            "next"
        } else {
            "gate"
        };
        *by.entry(format!(
            "{k}/t{}{}",
            net.thresh[t],
            if e & 1 != 0 { "neg" } else { "" }
        ))
        .or_default() += 1;
    }
    format!("{by:?}")
}
