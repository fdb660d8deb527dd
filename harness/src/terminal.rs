//! Text from outside (case names, schema keys, table notes, an adapter's stderr) shown safely on a
//! terminal.
//!
//! A property named `"\u001b[2J"` or a line an adapter writes to stderr can carry escape sequences
//! that clear the screen, rewrite earlier output or set the window title; bidirectional overrides
//! (U+202E) make text read differently from what it is. So everything the CLI prints, and every
//! message built from an adapter's output, goes through [`sanitize`]: such characters are shown
//! as escapes (`\x1b`, `\u{202e}`), and newlines and tabs are kept.

/// Whether `c` must not reach a terminal as it is: C0 controls (but newline and tab), DEL, C1
/// controls, and the bidirectional embeddings, overrides and isolates.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// `text` with every unsafe character shown as an escape: `\x1b` below U+0080, `\u{...}` above.
#[must_use]
pub fn sanitize(text: &str) -> String {
    if !text.chars().any(is_unsafe) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out
}

/// JSON text (already valid, with C0 controls escaped by the serializer) with every other unsafe
/// character written as a JSON `\uXXXX` escape: the same data, safe to print.
#[must_use]
pub fn sanitize_json(text: &str) -> String {
    if !text.chars().any(is_unsafe) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            // Unsafe characters are all in the basic multilingual plane: one escape each.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_sent() {
        assert_eq!(sanitize("plain\ttext\nnext"), "plain\ttext\nnext");
        assert_eq!(sanitize("\u{1b}[2Jcleared\r"), "\\x1b[2Jcleared\\x0d");
        assert_eq!(sanitize("a\u{9b}31m b\u{202e}c\u{7f}"), "a\\u{9b}31m b\\u{202e}c\\x7f");
    }

    #[test]
    fn json_stays_json_with_the_same_data() {
        let value = serde_json::json!({"k\u{202e}": "\u{1b}[31m\u{9b}"});
        let text = sanitize_json(&serde_json::to_string(&value).unwrap());
        assert!(!text.chars().any(is_unsafe), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
