//! Strings for `pattern` and `format`: matching ones, and near misses that just fail.
//!
//! `proptest::string::string_regex` was the first choice and does not fit: it refuses anchors
//! (`^`, `$`), which nearly every `pattern` in a tool schema carries, it draws from all of Unicode
//! (so `\d` yields Arabic-Indic digits that ECMA-262 `\d` rejects), and it builds a boxed strategy
//! tree per draw, which costs more than validating the result. So patterns are parsed with
//! `regex-syntax` (the parser proptest uses) and walked directly: anchors match the ends of the
//! drawn string, classes draw their printable ASCII members, unbounded repetitions stay short.
//!
//! Nothing here has to be exact. A pattern `regex-syntax` cannot parse (look-ahead, ECMA-only
//! syntax) yields an ordinary string; a class that means something else in ECMA-262 may yield a
//! character that does not match. Each draw is checked against every `pattern` of its node with
//! jsonschema's own matcher and redrawn a few times if it fails (that also meets a second
//! `pattern` from an `allOf`); what still fails is judged by the validator like any draw: a wasted
//! candidate, never a false witness.

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use serde_json::Value;

use super::dice::Dice;

/// Longest string (in bytes) a pattern draw grows to: repetitions, literals and concatenations
/// beyond it stop early. This also bounds what each draw costs to check: the regex engine's time
/// grows with the pattern times the text, and a 64 KB literal drawn whole took seconds per check
/// (225 s for one trial, far past its time budget); cut at the bound, the draw no longer matches
/// and is rejected at once, a wasted candidate.
const MAX_PATTERN_BYTES: usize = 1024;

/// Draws a string may take to meet every pattern of its node.
const PATTERN_TRIES: usize = 4;

/// The `pattern`s of one node prepared for drawing: the ones the parser reads are walked in turn,
/// and every one of them checks the result with the real (ECMA-262) matcher, so a parse that
/// differs from ECMA-262 or a second `pattern` from an `allOf` costs a redraw, not a wasted
/// candidate.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// The parsed patterns; none when `regex-syntax` reads none (draws are ordinary strings then).
    walks: Vec<Walk>,
    /// `{"pattern": p}` for each pattern that compiles, to check draws with.
    checks: Vec<jsonschema::Validator>,
}

#[derive(Debug)]
struct Walk {
    re: Re,
    /// Unanchored at the start: the pattern is searched for, so text may precede a match.
    open_start: bool,
    open_end: bool,
}

/// A parsed pattern reduced to what drawing needs, classes already narrowed to the characters
/// drawn from (so a draw does no set arithmetic).
#[derive(Debug, Clone)]
enum Re {
    Empty,
    Literal(String),
    Class { ranges: Vec<(u32, u32)>, total: u64 },
    Repeat { min: u32, extra: u32, sub: Box<Re> },
    Concat(Vec<Re>),
    Alternation(Vec<Re>),
}

impl Pattern {
    pub(crate) fn new(sources: &[&str]) -> Self {
        let walks = sources
            .iter()
            .filter_map(|source| parse(source))
            .map(|hir| {
                let props = hir.properties();
                Walk { re: reduce(&hir), open_start: !props.look_set_prefix().contains(Look::Start), open_end: !props.look_set_suffix().contains(Look::End) }
            })
            .collect();
        let checks = sources.iter().filter_map(|p| jsonschema::draft202012::new(&serde_json::json!({ "pattern": p })).ok()).collect();
        Self { walks, checks }
    }

    /// A string every pattern matches, when one of a few draws does; else the last draw.
    pub(crate) fn draw(&self, rng: &mut Dice) -> String {
        let mut candidate = Value::String(self.draw_once(0, rng));
        for attempt in 1..PATTERN_TRIES {
            if self.checks.iter().all(|check| check.is_valid(&candidate)) {
                break;
            }
            candidate = Value::String(self.draw_once(attempt, rng));
        }
        match candidate {
            Value::String(s) => s,
            _ => String::new(),
        }
    }

    /// A string the walked pattern matches (when the parse was faithful), sometimes with text
    /// around the match where it is unanchored: a translator that anchors it is caught narrowing.
    fn draw_once(&self, attempt: usize, rng: &mut Dice) -> String {
        let mut out = String::new();
        if self.walks.is_empty() {
            plain(rng, 0, 8, &mut out);
            return out;
        }
        let w = &self.walks[attempt % self.walks.len()];
        if w.open_start && rng.random_ratio(1, 4) {
            plain(rng, 1, 3, &mut out);
        }
        walk(&w.re, rng, &mut out);
        if w.open_end && rng.random_ratio(1, 4) {
            plain(rng, 1, 3, &mut out);
        }
        out
    }
}

/// ASCII classes first: they are what ECMA-262 means by `\d` and `\w`, and a Unicode `\W` is an
/// interval set thousands of ranges long.
fn parse(source: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(source)
        .ok()
        .or_else(|| regex_syntax::ParserBuilder::new().build().parse(source).ok())
}

fn reduce(hir: &Hir) -> Re {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Re::Empty,
        // A byte-mode literal may be part of a UTF-8 sequence; a lossy decode keeps the string
        // valid (and the validator judges it).
        HirKind::Literal(lit) => Re::Literal(String::from_utf8_lossy(&lit.0).into_owned()),
        HirKind::Class(Class::Unicode(class)) => class_of(class.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end())))),
        HirKind::Class(Class::Bytes(class)) => class_of(class.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end().min(0x7f)))).filter(|(a, b)| a <= b)),
        HirKind::Repetition(rep) => {
            let extra = match rep.max {
                Some(max) => max.saturating_sub(rep.min).min(3),
                None => 3,
            };
            Re::Repeat { min: rep.min, extra, sub: Box::new(reduce(&rep.sub)) }
        }
        HirKind::Capture(capture) => reduce(&capture.sub),
        HirKind::Concat(parts) => Re::Concat(parts.iter().map(reduce).collect()),
        HirKind::Alternation(branches) => Re::Alternation(branches.iter().map(reduce).collect()),
    }
}

/// A class's drawable characters: its printable ASCII members when it has any (`\d` and `\w` are
/// ASCII in ECMA-262 but Unicode in `regex-syntax`), else all of them.
fn class_of(ranges: impl Iterator<Item = (u32, u32)>) -> Re {
    let all: Vec<(u32, u32)> = ranges.collect();
    let ascii: Vec<(u32, u32)> = all.iter().filter(|(a, _)| *a <= 0x7e).map(|&(a, b)| (a.max(0x20), b.min(0x7e))).filter(|(a, b)| a <= b).collect();
    let ranges = if ascii.is_empty() { all } else { ascii };
    let total = ranges.iter().map(|(a, b)| u64::from(b - a) + 1).sum();
    Re::Class { ranges, total }
}

fn walk(re: &Re, rng: &mut Dice, out: &mut String) {
    if out.len() >= MAX_PATTERN_BYTES {
        return;
    }
    match re {
        Re::Empty => {}
        Re::Literal(text) => {
            let room = MAX_PATTERN_BYTES - out.len();
            let cut = if text.len() <= room { text.len() } else { (0..=room).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0) };
            out.push_str(&text[..cut]);
        }
        Re::Class { ranges, total } => {
            if let Some(c) = pick_char(ranges, *total, rng) {
                out.push(c);
            }
        }
        Re::Repeat { min, extra, sub } => {
            let count = min.saturating_add(rng.random_range(0..=*extra));
            for _ in 0..count {
                if out.len() >= MAX_PATTERN_BYTES {
                    break;
                }
                walk(sub, rng, out);
            }
        }
        Re::Concat(parts) => {
            for part in parts {
                walk(part, rng, out);
            }
        }
        Re::Alternation(branches) => {
            if !branches.is_empty() {
                walk(&branches[rng.random_range(0..branches.len())], rng, out);
            }
        }
    }
}

fn pick_char(ranges: &[(u32, u32)], total: u64, rng: &mut Dice) -> Option<char> {
    if total == 0 {
        return None;
    }
    let mut k = rng.random_range(0..total);
    for &(a, b) in ranges {
        let width = u64::from(b - a) + 1;
        if k < width {
            // Surrogates are not chars; fall back to the range start.
            let code = a + u32::try_from(k).unwrap_or(0);
            return char::from_u32(code).or_else(|| char::from_u32(a));
        }
        k -= width;
    }
    None
}

/// The alphabet of unconstrained strings: mostly ASCII, with a few characters whose UTF-8 and
/// UTF-16 lengths differ from their code-point count (translators that count bytes get caught).
const ALPHABET: &[char] = &['a', 'b', 'c', 'x', 'y', 'z', 'A', 'Q', '0', '1', '7', '9', '-', '_', ' ', '.', 'é', 'ß', '日', '😀'];

/// Append `min..=max` characters from [`ALPHABET`].
pub(crate) fn plain(rng: &mut Dice, min: usize, max: usize, out: &mut String) {
    let n = rng.random_range(min..=max.max(min));
    out.reserve(n);
    // A long string is a short random head and one character repeated: its length is what the
    // schema constrains, and drawing thousands of characters one by one would cost more than
    // validating them.
    let head = n.min(16);
    for _ in 0..head {
        // Mostly the first twelve (ASCII letters and digits).
        let i = if rng.random_ratio(4, 5) { rng.random_range(0usize..12) } else { rng.random_range(0..ALPHABET.len()) };
        out.push(ALPHABET[i]);
    }
    if n > head {
        let fill = ALPHABET[rng.random_range(0usize..12)];
        // `repeat` copies in doubling blocks: a 100,000-character string costs a few copies,
        // not 100,000 pushes.
        out.push_str(&fill.to_string().repeat(n - head));
    }
}

/// One edit to a string: a character dropped, inserted or replaced. The result usually fails
/// the `pattern` or `format` the original matched: a near miss.
pub(crate) fn perturb(s: &str, rng: &mut Dice) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    const INSERTS: &[char] = &['x', '0', ' ', '-', '!', 'Z', '/', ':'];
    let insert = INSERTS[rng.random_range(0..INSERTS.len())];
    match (chars.is_empty(), rng.random_range(0..3)) {
        (true, _) => chars.push(insert),
        (false, 0) => {
            chars.remove(rng.random_range(0..chars.len()));
        }
        (false, 1) => chars.insert(rng.random_range(0..=chars.len()), insert),
        (false, _) => {
            let i = rng.random_range(0..chars.len());
            chars[i] = if chars[i] == insert { '#' } else { insert };
        }
    }
    chars.into_iter().collect()
}

/// A string valid for `format` (the formats jsonschema asserts), or `None` for a format it does
/// not know (then any string is valid and the caller draws an ordinary one).
pub(crate) fn format(name: &str, rng: &mut Dice) -> Option<String> {
    let mut word = String::new();
    for _ in 0..rng.random_range(1..=6) {
        word.push(char::from(b'a' + rng.random_range(0..26u8)));
    }
    let d = |rng: &mut Dice, lo: u32, hi: u32| rng.random_range(lo..=hi);
    let date = |rng: &mut Dice| format!("{:04}-{:02}-{:02}", d(rng, 1970, 2099), d(rng, 1, 12), d(rng, 1, 28));
    let time = |rng: &mut Dice| format!("{:02}:{:02}:{:02}Z", d(rng, 0, 23), d(rng, 0, 59), d(rng, 0, 59));
    Some(match name {
        "date-time" => format!("{}T{}", date(rng), time(rng)),
        "date" => date(rng),
        "time" => time(rng),
        "duration" => match rng.random_range(0..3) {
            0 => format!("P{}D", d(rng, 0, 30)),
            1 => format!("PT{}H{}M", d(rng, 0, 23), d(rng, 0, 59)),
            _ => format!("P{}Y{}M", d(rng, 0, 9), d(rng, 1, 11)),
        },
        "email" | "idn-email" => format!("{word}@example.com"),
        "hostname" | "idn-hostname" => format!("{word}.example.com"),
        "ipv4" => format!("{}.{}.{}.{}", d(rng, 1, 255), d(rng, 0, 255), d(rng, 0, 255), d(rng, 0, 255)),
        "ipv6" => format!("2001:db8::{:x}", d(rng, 0, 0xffff)),
        "uri" | "iri" => format!("https://example.com/{word}"),
        "uri-reference" | "iri-reference" => format!("/{word}"),
        "uri-template" => format!("https://example.com/{{{word}}}"),
        "uuid" => {
            let mut hex = String::new();
            for _ in 0..32 {
                hex.push(char::from_digit(rng.random_range(0..16u32), 16).unwrap_or('0'));
            }
            format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
        }
        "json-pointer" => format!("/{word}/{}", d(rng, 0, 9)),
        "relative-json-pointer" => format!("{}/{word}", d(rng, 0, 3)),
        "regex" => format!("^{word}[0-9]*$"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    fn rng() -> Dice {
        Dice::new(1)
    }

    #[test]
    fn anchored_patterns_draw_whole_matches() {
        let mut rng = rng();
        let p = Pattern::new(&[r"^[a-z]{2,4}-\d{3}$"]);
        for _ in 0..50 {
            let s = p.draw(&mut rng);
            let (letters, digits) = s.split_once('-').expect("a dash");
            assert!((2..=4).contains(&letters.len()) && letters.chars().all(|c| c.is_ascii_lowercase()), "{s}");
            assert!(digits.len() == 3, "{s}");
        }
    }

    #[test]
    fn no_draw_grows_beyond_the_bound_whatever_the_pattern() {
        let mut rng = rng();
        let literal = "a".repeat(65_536);
        let classes = "[a-z]".repeat(10_000);
        for source in [literal.as_str(), classes.as_str(), "^(abc){5000}$"] {
            let p = Pattern::new(&[source]);
            for _ in 0..4 {
                let s = p.draw_once(0, &mut rng);
                assert!(s.len() <= MAX_PATTERN_BYTES + 32, "{} bytes from a pattern of {}", s.len(), source.len());
            }
        }
    }

    #[test]
    fn unparsable_patterns_still_draw() {
        let mut rng = rng();
        assert!(Pattern::new(&["(?=look-ahead)"]).draw(&mut rng).chars().count() <= 8);
    }

    #[test]
    fn perturbing_changes_the_string() {
        let mut rng = rng();
        for s in ["", "a", "abc-123"] {
            assert_ne!(perturb(s, &mut rng), s);
        }
    }
}
