//! Numbers as the reports print them.

/// A rate with thousands separators, or 2 decimals below 10.
pub fn rate(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.2}")
    } else {
        thousands(x.round() as u64)
    }
}

/// An integer with thousands separators.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_well() {
        assert_eq!(rate(1234567.8), "1,234,568");
        assert_eq!(rate(999.4), "999");
        assert_eq!(rate(3.456), "3.46");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1000), "1,000");
    }
}
