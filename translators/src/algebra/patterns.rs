//! Conjunction of two `pattern`s (openai-strict's merge engine uses it; an engine that cannot
//! combine two patterns leaves the second as its residue).

/// Two patterns as one: both must match somewhere in the string, which lookaheads anchored at the
/// start say exactly. Backreferences and named groups would be renumbered or clash; refused.
pub(crate) fn combine_patterns(a: &str, b: &str) -> Option<String> {
    if a == b {
        return Some(a.to_owned());
    }
    if has_group_references(a) || has_group_references(b) {
        return None;
    }
    Some(format!("^(?=[\\s\\S]*?(?:{a}))(?=[\\s\\S]*?(?:{b}))"))
}

fn has_group_references(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut in_class = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if !in_class && bytes.get(i + 1).is_some_and(|n| (b'1'..=b'9').contains(n) || *n == b'k') {
                    return true;
                }
                i += 2;
                continue;
            }
            b'[' => in_class = true,
            b']' => in_class = false,
            b'(' if !in_class => {
                let rest = &pattern[i..];
                if rest.starts_with("(?<") && !rest.starts_with("(?<=") && !rest.starts_with("(?<!") {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::combine_patterns;

    #[test]
    fn patterns_combine_unless_groups_are_referenced() {
        assert_eq!(combine_patterns("a", "a").as_deref(), Some("a"));
        assert_eq!(combine_patterns("^a", "b$").as_deref(), Some("^(?=[\\s\\S]*?(?:^a))(?=[\\s\\S]*?(?:b$))"));
        assert_eq!(combine_patterns("(a)\\1", "b"), None);
        assert_eq!(combine_patterns("(?<x>a)", "b"), None);
        assert!(combine_patterns("[\\1]", "(?<=a)b").is_some(), "a class escape and a lookbehind are no group references");
    }
}
