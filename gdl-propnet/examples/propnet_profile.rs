//! Where the work of a network's engine goes: random playouts (as `propnet_bench` makes them),
//! every node evaluated afresh before and after each state change and joint move, and the
//! nodes that changed counted, with the out-edges a change visits:
//!
//! ```text
//! cargo run --release -p gdl-propnet --example propnet_profile -- NET_FILE [PLAYOUTS]
//! ```
//!
//! It prints, per state, the changes and visited edges by phase (0: the state change, with the
//! previous joint move still held; 1: the joint move), kind of node (state bit, `does` input,
//! gate, legal / next / goal / terminal output), whether the node depends on the moves, and
//! kind of gate; the edges visited by kind of target; how many move-dependent gates change in
//! phase 0 and back in phase 1; and the nodes whose changes visit the most edges. Networks
//! with recursive groups or joins are refused (the fresh evaluation is a plain pass in node
//! order).

use std::collections::BTreeMap;

use gdl_propnet::{Engine, Net};
use gdl_runtime::SplitMix64;

/// A key of the tables: phase, kind of node, whether it depends on the moves, kind of gate.
type Key = (usize, &'static str, bool, String);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: propnet_profile NET_FILE [PLAYOUTS]");
        std::process::exit(2);
    };
    let playouts: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let net = match std::fs::read_to_string(path).map(|t| Net::decode(&t)) {
        Ok(Ok(n)) => n,
        Ok(Err(e)) => fail(&format!("{path}: {}", e.0)),
        Err(e) => fail(&format!("{path}: {e}")),
    };
    if !net.groups.is_empty() {
        fail("networks with recursive groups or joins are not profiled");
    }
    let p = Profile::new(&net);
    p.run(playouts);
}

fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(1);
}

struct Profile<'n> {
    net: &'n Net,
    /// Per node, its input edges (source, negated).
    ins: Vec<Vec<(u32, bool)>>,
    /// Per node, whether a `does` input reaches it.
    dep: Vec<bool>,
    kind: Vec<&'static str>,
    first_gate: usize,
}

impl<'n> Profile<'n> {
    fn new(net: &'n Net) -> Profile<'n> {
        let nodes = net.nodes as usize;
        let mut ins: Vec<Vec<(u32, bool)>> = vec![Vec::new(); nodes];
        for n in 0..nodes {
            for &e in fan(net, n) {
                ins[(e >> 2) as usize].push((n as u32, e & 1 != 0));
            }
        }
        let first_gate = net.first_gate() as usize;
        let mut kind = vec!["gate"; nodes];
        let mut dep = vec![false; nodes];
        kind[..net.bits as usize].fill("bit");
        for (&b, &m) in net.does_base.iter().zip(&net.moves) {
            kind[b as usize..(b + m) as usize].fill("does");
            dep[b as usize..(b + m) as usize].fill(true);
        }
        for n in first_gate..nodes {
            dep[n] = ins[n].iter().any(|&(s, _)| dep[s as usize]);
        }
        for (&b, &m) in net.legal_base.iter().zip(&net.moves) {
            kind[b as usize..(b + m) as usize].fill("legal");
        }
        let next = net.next_base as usize;
        kind[next..next + net.bits as usize].fill("next");
        kind[net.terminal as usize] = "terminal";
        for &(_, g) in net.goals.iter().flatten() {
            kind[g as usize] = "goal";
        }
        Profile {
            net,
            ins,
            dep,
            kind,
            first_gate,
        }
    }

    /// Every node's value for a state and joint move.
    fn eval(&self, state: &[u64], joint: &[u32]) -> Vec<bool> {
        let net = self.net;
        let mut v = vec![false; net.nodes as usize];
        for (b, x) in v.iter_mut().enumerate().take(net.bits as usize) {
            *x = state[b / 64] >> (b % 64) & 1 != 0;
        }
        for (r, &m) in joint.iter().enumerate() {
            if m != u32::MAX {
                v[(net.does_base[r] + m) as usize] = true;
            }
        }
        for n in self.first_gate..v.len() {
            let t = net.thresh[n];
            if t != u32::MAX {
                let c = self.ins[n].iter().filter(|&&(s, neg)| v[s as usize] != neg);
                v[n] = c.count() as u32 >= t;
            }
        }
        v
    }

    fn gate_kind(&self, n: usize) -> String {
        let (t, k) = (self.net.thresh[n], self.ins[n].len() as u32);
        match t {
            _ if n < self.first_gate => "-".into(),
            u32::MAX => "never".into(),
            0 => "true".into(),
            1 if k == 1 => "buf".into(),
            1 => "or".into(),
            _ if t == k => "and".into(),
            _ => format!("{t}of{k}"),
        }
    }

    fn run(&self, playouts: u64) {
        let net = self.net;
        let nodes = net.nodes as usize;
        let roles = net.moves.len();
        let mut rng = SplitMix64::new(1);
        let mut e = Engine::new(net);
        let mut by: BTreeMap<Key, (u64, u64)> = BTreeMap::new();
        let mut changes = vec![[0u64; 2]; nodes];
        let (mut back, mut states) = (0u64, 0u64);
        let mut joint = vec![u32::MAX; roles];
        let mut prev = self.eval(&net.init, &joint);
        let mut moves = Vec::new();
        let mut count = |phase: usize, n: usize, by: &mut BTreeMap<Key, (u64, u64)>| {
            changes[n][phase] += 1;
            let k = (phase, self.kind[n], self.dep[n], self.gate_kind(n));
            let x = by.entry(k).or_default();
            x.0 += 1;
            x.1 += fan(net, n).len() as u64;
        };
        for _ in 0..playouts {
            let mut state = net.init.clone();
            loop {
                states += 1;
                let v0 = self.eval(&state, &joint);
                e.set_state(&state);
                let terminal = e.terminal();
                if !terminal {
                    for (r, j) in joint.iter_mut().enumerate() {
                        moves.clear();
                        e.legal(r, &mut moves);
                        *j = moves
                            .get(rng.below(moves.len().max(1)))
                            .copied()
                            .unwrap_or(0);
                    }
                }
                let v1 = if terminal {
                    v0.clone()
                } else {
                    self.eval(&state, &joint)
                };
                for n in 0..nodes {
                    if v0[n] != prev[n] {
                        count(0, n, &mut by);
                    }
                    if v1[n] != v0[n] {
                        count(1, n, &mut by);
                        back += u64::from(v0[n] != prev[n]);
                    }
                }
                prev = v1;
                if terminal {
                    break;
                }
                e.set_joint(&joint);
                let mut next = state.clone();
                e.next(&mut next);
                state = next;
            }
        }
        let s = states as f64;
        println!("{states} states; per state:");
        println!("phase kind     moves gate: changes edges");
        for ((p, k, d, t), (c, v)) in &by {
            if *c as f64 / s >= 0.05 {
                println!(
                    "{p} {k:8} {d:5} {t:6}: {:7.1} {:7.1}",
                    *c as f64 / s,
                    *v as f64 / s
                );
            }
        }
        let mut targets: BTreeMap<(usize, &str, bool), u64> = BTreeMap::new();
        for (n, c) in changes.iter().enumerate() {
            for (phase, &k) in c.iter().enumerate().filter(|&(_, &k)| k > 0) {
                for &x in fan(net, n) {
                    let t = (x >> 2) as usize;
                    *targets
                        .entry((phase, self.kind[t], self.dep[t]))
                        .or_default() += k;
                }
            }
        }
        println!("edges visited by target: phase kind moves");
        for ((p, k, d), c) in &targets {
            println!("{p} {k:8} {d:5} {:7.1}", *c as f64 / s);
        }
        println!(
            "move-dependent nodes changed by the state change and back by the joint move: {:.1}",
            back as f64 / s
        );
        let mut top: Vec<usize> = (0..nodes).collect();
        let cost = |n: usize| (changes[n][0] + changes[n][1]) * fan(net, n).len() as u64;
        top.sort_by_key(|&n| std::cmp::Reverse(cost(n)));
        println!("nodes visiting the most edges: node kind moves gate inputs fan changes(0, 1)");
        for &n in top.iter().take(30) {
            println!(
                "{n:6} {:8} {:5} {:6} {:4} {:4} {:.2} {:.2}",
                self.kind[n],
                self.dep[n],
                self.gate_kind(n),
                self.ins[n].len(),
                fan(net, n).len(),
                changes[n][0] as f64 / s,
                changes[n][1] as f64 / s,
            );
        }
    }
}

/// The out-edges of node `n`.
fn fan(net: &Net, n: usize) -> &[u32] {
    net.fan
        .get(net.fan_start[n] as usize..net.fan_start[n + 1] as usize)
        .unwrap_or(&[])
}
