//! The text form of a [`Net`]: numbers in a 64-digit alphabet, so that generated code holds
//! a network as one string literal (which rustc reads in no time, unlike array literals).

use super::{NONE, Net, NextRows, RowEntry};

/// A malformed network text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub &'static str);

/// The version of the text format of [`Net::encode`]: the first number of every encoded
/// network. Generated code asserts at compile time that the runtime it is built with reads the
/// version it was written in, so a mismatched runtime is a compile error, never a wrong game.
pub const FORMAT_VERSION: u32 = 4;

/// Reads the numbers of [`Net::encode`]'s text.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// The 64 digits of the text encoding, each six bits: the low five bits are payload, the
/// high bit says another digit follows.
const DIGITS: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuvWXYZwxyz_.";

impl Reader<'_> {
    pub(super) fn next(&mut self) -> Result<u32, DecodeError> {
        let mut v: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(&c) = self.bytes.get(self.pos) else {
                return Err(DecodeError("truncated"));
            };
            self.pos += 1;
            if c.is_ascii_whitespace() {
                continue;
            }
            let d = LOOKUP[c as usize];
            if d == 0xff {
                return Err(DecodeError("bad digit"));
            }
            v |= u64::from(d & 31) << shift;
            shift += 5;
            if d & 32 == 0 {
                break;
            }
            if shift > 35 {
                return Err(DecodeError("number too long"));
            }
        }
        u32::try_from(v).map_err(|_| DecodeError("number too large"))
    }

    /// Whether nothing but whitespace is left.
    pub(super) fn at_end(&self) -> bool {
        self.bytes[self.pos.min(self.bytes.len())..]
            .iter()
            .all(u8::is_ascii_whitespace)
    }

    pub(super) fn vec(&mut self, n: usize) -> Result<Vec<u32>, DecodeError> {
        (0..n).map(|_| self.next()).collect()
    }

    pub(super) fn len(&mut self, max: usize) -> Result<usize, DecodeError> {
        let n = self.next()? as usize;
        if n > max {
            return Err(DecodeError("length too large"));
        }
        Ok(n)
    }
}

const LOOKUP: [u8; 256] = {
    let mut t = [0xffu8; 256];
    let mut i = 0;
    while i < 64 {
        t[DIGITS[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Writes numbers in the text encoding.
#[derive(Default)]
pub(super) struct Writer {
    out: String,
}

impl Writer {
    pub(super) fn put(&mut self, mut v: u32) {
        loop {
            let low = v & 31;
            v >>= 5;
            if v == 0 {
                self.out.push(DIGITS[low as usize] as char);
                break;
            }
            self.out.push(DIGITS[(low | 32) as usize] as char);
        }
    }

    pub(super) fn all(&mut self, vs: &[u32]) {
        for &v in vs {
            self.put(v);
        }
    }
}

impl Net {
    /// The network as text: numbers in a 64-digit alphabet, lists delta-encoded where they
    /// ascend. [`Net::decode`] reads it back.
    pub fn encode(&self) -> String {
        let mut w = Writer::default();
        w.put(FORMAT_VERSION);
        w.put(self.nodes);
        w.put(self.bits);
        w.put(self.does_base.len() as u32);
        w.all(&self.does_base);
        w.all(&self.moves);
        // Thresholds: u32::MAX is written as 0, others as value + 1.
        for &t in &self.thresh {
            w.put(t.wrapping_add(1));
        }
        for n in 0..self.nodes as usize {
            let edges = &self.fan[self.fan_start[n] as usize..self.fan_start[n + 1] as usize];
            w.put(edges.len() as u32);
            let mut prev = 0u32;
            for &e in edges {
                // Edges of a node ascend by target: the target's delta, then the flags.
                let t = e >> 2;
                w.put(((t - prev) << 2) | (e & 3));
                prev = t;
            }
        }
        w.put(self.groups.len() as u32);
        for &(a, b) in &self.groups {
            w.put(a);
            w.put(b - a);
            for n in a..b {
                let edges = &self.inner[self.inner_start[n as usize] as usize
                    ..self.inner_start[n as usize + 1] as usize];
                w.put(edges.len() as u32);
                w.all(edges);
            }
        }
        w.all(&self.legal_base);
        for g in &self.legal_guard {
            w.put(g.len() as u32);
            for &x in g {
                w.put(x.wrapping_add(1));
            }
        }
        w.put(self.next_base);
        w.put(self.terminal);
        for goals in &self.goals {
            w.put(goals.len() as u32);
            for &(v, node) in goals {
                match v {
                    Some(v) => {
                        w.put(1);
                        w.put(v as u32);
                    }
                    None => w.put(0),
                }
                w.put(node);
            }
        }
        w.put(self.init.len() as u32);
        for &x in &self.init {
            w.put(x as u32);
            w.put((x >> 32) as u32);
        }
        for &j in &self.group_join {
            w.put(j.wrapping_add(1));
        }
        self.joins.encode(&mut w);
        w.put(self.stuck.len() as u32);
        for st in &self.stuck {
            w.put(st.guard);
            w.put(st.role);
            w.put(st.moves.len() as u32);
            for &x in &st.moves {
                w.put(x as u32);
                w.put((x >> 32) as u32);
            }
        }
        let rows = &self.rows;
        w.put(rows.frame.len() as u32);
        for &x in &rows.frame {
            w.put(x as u32);
            w.put((x >> 32) as u32);
        }
        w.put(rows.start.len() as u32);
        for start in &rows.start {
            w.put(start.len().saturating_sub(1) as u32);
            for k in start.windows(2) {
                w.put(k[1] - k[0]);
            }
        }
        for e in &rows.entries {
            w.put(e.cond.wrapping_add(1));
            w.put(e.at);
            w.put(e.mask as u32);
            w.put((e.mask >> 32) as u32);
        }
        // GDL-II percepts last, and only when there are some: a network without them reads
        // the same as before they existed.
        if self.sees.iter().any(|s| !s.is_empty()) {
            for s in &self.sees {
                w.put(s.len() as u32);
                w.all(s);
            }
        }
        w.out
    }

    /// Reads a network from [`Net::encode`]'s text (whitespace is ignored) and checks that
    /// every node it names exists.
    pub fn decode(text: &str) -> Result<Net, DecodeError> {
        let mut r = Reader {
            bytes: text.as_bytes(),
            pos: 0,
        };
        if r.next()? != FORMAT_VERSION {
            return Err(DecodeError(
                "written in another version of the network format",
            ));
        }
        let limit = text.len() + 64;
        let nodes = r.len(limit)?;
        let bits = r.len(nodes)?;
        let roles = r.len(limit)?;
        let does_base = r.vec(roles)?;
        let moves = r.vec(roles)?;
        let thresh: Vec<u32> = r
            .vec(nodes)?
            .into_iter()
            .map(|t| t.wrapping_sub(1))
            .collect();
        let mut fan_start = Vec::with_capacity(nodes + 1);
        let mut fan = Vec::new();
        fan_start.push(0);
        for _ in 0..nodes {
            let n = r.len(limit)?;
            let mut prev = 0u32;
            for _ in 0..n {
                let e = r.next()?;
                let t = prev
                    .checked_add(e >> 2)
                    .ok_or(DecodeError("edge target overflow"))?;
                if t as usize >= nodes {
                    return Err(DecodeError("edge target out of range"));
                }
                fan.push((t << 2) | (e & 3));
                prev = t;
            }
            fan_start.push(fan.len() as u32);
        }
        let ngroups = r.len(limit)?;
        let mut groups = Vec::with_capacity(ngroups);
        let mut group_of = vec![NONE; nodes];
        let mut inner_start = vec![0u32; nodes + 1];
        let mut inner_lists: Vec<(u32, Vec<u32>)> = Vec::new();
        for g in 0..ngroups {
            let a = r.next()?;
            let len = r.next()?;
            let b = a.checked_add(len).ok_or(DecodeError("group overflow"))?;
            if b as usize > nodes {
                return Err(DecodeError("group out of range"));
            }
            for n in a..b {
                group_of[n as usize] = g as u32;
                let k = r.len(limit)?;
                let list = r.vec(k)?;
                if list.iter().any(|&t| t < a || t >= b) {
                    return Err(DecodeError("inner edge leaves its group"));
                }
                inner_lists.push((n, list));
            }
            groups.push((a, b));
        }
        // Inner edges, in node order.
        inner_lists.sort_by_key(|x| x.0);
        let mut inner = Vec::new();
        let mut li = 0;
        for (n, start) in inner_start.iter_mut().enumerate().take(nodes) {
            *start = inner.len() as u32;
            if li < inner_lists.len() && inner_lists[li].0 as usize == n {
                inner.extend_from_slice(&inner_lists[li].1);
                li += 1;
            }
        }
        inner_start[nodes] = inner.len() as u32;
        let legal_base = r.vec(roles)?;
        let mut legal_guard = Vec::with_capacity(roles);
        for _ in 0..roles {
            let k = r.len(limit)?;
            let g: Vec<u32> = r.vec(k)?.into_iter().map(|x| x.wrapping_sub(1)).collect();
            if g.iter().any(|&x| x != NONE && (x >> 1) as usize >= nodes) {
                return Err(DecodeError("guard out of range"));
            }
            legal_guard.push(g);
        }
        let next_base = r.next()?;
        let terminal = r.next()?;
        let mut goals = Vec::with_capacity(roles);
        for _ in 0..roles {
            let k = r.len(limit)?;
            let mut gs = Vec::with_capacity(k);
            for _ in 0..k {
                let v = match r.next()? {
                    0 => None,
                    _ => Some(r.next()? as i32),
                };
                gs.push((v, r.next()?));
            }
            goals.push(gs);
        }
        let words = r.len(limit)?;
        let mut init = Vec::with_capacity(words);
        for _ in 0..words {
            let lo = r.next()?;
            let hi = r.next()?;
            init.push(u64::from(lo) | (u64::from(hi) << 32));
        }
        let group_join: Vec<u32> = r
            .vec(ngroups)?
            .into_iter()
            .map(|j| j.wrapping_sub(1))
            .collect();
        let joins = super::JoinProgram::decode(&mut r, limit)?;
        if !joins.validate(nodes as u32)
            || group_join
                .iter()
                .any(|&j| j != NONE && j as usize >= joins.joins.len())
        {
            return Err(DecodeError("bad join program"));
        }
        let stuck_count = r.len(limit)?;
        let mut stuck = Vec::with_capacity(stuck_count);
        for _ in 0..stuck_count {
            let guard = r.next()?;
            let role = r.next()?;
            let words = r.len(limit)?;
            let mut moves = Vec::with_capacity(words);
            for _ in 0..words {
                let lo = r.next()?;
                let hi = r.next()?;
                moves.push(u64::from(lo) | (u64::from(hi) << 32));
            }
            if guard >> 1 >= bits as u32 || role as usize >= roles {
                return Err(DecodeError("bad stuck disjunct"));
            }
            stuck.push(super::Stuck { guard, role, moves });
        }
        let rows = read_rows(&mut r, limit)?;
        if !rows.fits(bits as u32, &moves) {
            return Err(DecodeError("bad next-state rows"));
        }
        let mut sees = Vec::new();
        if !r.at_end() {
            for _ in 0..roles {
                let k = r.len(limit)?;
                let nodes_of = r.vec(k)?;
                if nodes_of.iter().any(|&n| n as usize >= nodes) {
                    return Err(DecodeError("percept node out of range"));
                }
                sees.push(nodes_of);
            }
        }
        if !r.at_end() {
            return Err(DecodeError("trailing data"));
        }
        let net = Net {
            nodes: nodes as u32,
            bits: bits as u32,
            does_base,
            moves,
            thresh,
            fan_start,
            fan,
            group_of,
            groups,
            inner_start,
            inner,
            legal_base,
            legal_guard,
            next_base,
            terminal,
            goals,
            init,
            group_join,
            joins,
            sees,
            stuck,
            rows,
        };
        net.validate()?;
        Ok(net)
    }

    fn validate(&self) -> Result<(), DecodeError> {
        let n = u64::from(self.nodes);
        let inside = |a: u32, len: u32| u64::from(a) + u64::from(len) <= n;
        for (r, (&base, &m)) in self.does_base.iter().zip(&self.moves).enumerate() {
            if !inside(base, m) || !inside(self.legal_base[r], m) || self.legal_base[r] & 63 != 0 {
                return Err(DecodeError("move nodes out of range"));
            }
        }
        if !inside(self.next_base, self.bits) || self.next_base & 63 != 0 {
            return Err(DecodeError("next nodes out of range"));
        }
        if u64::from(self.terminal) >= n
            || self.goals.iter().flatten().any(|&(_, g)| u64::from(g) >= n)
        {
            return Err(DecodeError("output node out of range"));
        }
        if self.init.len() != (self.bits as usize).div_ceil(64).max(1) {
            return Err(DecodeError("initial state of the wrong size"));
        }
        Ok(())
    }

    /// The number of state words.
    pub fn words(&self) -> usize {
        (self.bits as usize).div_ceil(64).max(1)
    }
}

/// Reads the per-move tables of [`Net::encode`] (see [`NextRows`]).
fn read_rows(r: &mut Reader<'_>, limit: usize) -> Result<NextRows, DecodeError> {
    let word = |r: &mut Reader<'_>| -> Result<u64, DecodeError> {
        let lo = r.next()?;
        let hi = r.next()?;
        Ok(u64::from(lo) | (u64::from(hi) << 32))
    };
    let words = r.len(limit)?;
    let frame = (0..words).map(|_| word(r)).collect::<Result<Vec<_>, _>>()?;
    let roles = r.len(limit)?;
    let mut start = Vec::with_capacity(roles);
    let mut total = 0u32;
    for _ in 0..roles {
        let moves = r.len(limit)?;
        let mut s = Vec::with_capacity(moves + 1);
        s.push(total);
        for _ in 0..moves {
            total = total
                .checked_add(r.len(limit)? as u32)
                .ok_or(DecodeError("too many row entries"))?;
            s.push(total);
        }
        start.push(s);
    }
    if total as usize > limit {
        return Err(DecodeError("too many row entries"));
    }
    let mut entries = Vec::with_capacity(total as usize);
    for _ in 0..total {
        let cond = r.next()?.wrapping_sub(1);
        let at = r.next()?;
        let mask = word(r)?;
        entries.push(RowEntry { cond, at, mask });
    }
    Ok(NextRows {
        frame,
        start,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_of_another_format_version_does_not_decode() {
        let text = Net::default().encode();
        // Whatever else is wrong with it, the current version is not.
        assert!(Net::decode(&text).is_err_and(|e| !e.0.contains("another version")));
        // The first number is the format version.
        let mut w = Writer::default();
        w.put(FORMAT_VERSION + 1);
        let first = DIGITS[(FORMAT_VERSION & 31) as usize] as char;
        assert!(text.starts_with(first));
        let other = format!("{}{}", w.out, &text[1..]);
        let e = Net::decode(&other).unwrap_err();
        assert!(e.0.contains("another version"), "{}", e.0);
    }
}
