//! Stable names for rows: the anchor a link points at and the citation the CLI prints.
//!
//! An issue links `reports/openai-strict.md#pattern`; a comment cites `openai-strict/pattern`.
//! Both must survive regeneration, so they depend only on the translator, the keyword and the
//! refinement, never on line numbers or order.
//!
//! Keyword rows are headed ``### `additionalProperties` (false)``, whose GitHub heading anchor is
//! `additionalproperties-false`, the same string [`anchor`] computes, so the anchors work on a
//! code host without any HTML. Extension rows get an `ext-` prefix (an extension `id` must not
//! collide with the keyword `$id`, whose anchor is `id`) and an explicit `<a id>`, because a glob
//! such as `x-*` has no readable heading anchor.

use schema_fidelity_translators::vocabulary::{self, BOOLEAN_SUBSCHEMAS};

/// The refinement a row makes, as a table names it.
pub const AT_ROOT: &str = "at_root";

/// Whether a table key names an extension (not a draft 2020-12 keyword or boolean subschema).
#[must_use]
pub fn is_extension(key: &str) -> bool {
    !vocabulary::is_keyword(key) && !BOOLEAN_SUBSCHEMAS.contains(&key)
}

/// The anchor of a row on its translator's page.
#[must_use]
pub fn anchor(key: &str, refinement: Option<&str>) -> String {
    let mut out = if is_extension(key) { format!("ext-{}", github_slug(&key.replace('*', "star"))) } else { github_slug(key) };
    match refinement {
        None => {}
        Some(AT_ROOT) => out.push_str("-at-root"),
        Some(form) => {
            out.push('-');
            out.push_str(&github_slug(form));
        }
    }
    out
}

/// The heading of a row on its translator's page. For keyword rows its GitHub anchor is
/// [`anchor`].
#[must_use]
pub fn heading(key: &str, refinement: Option<&str>) -> String {
    let mut out = if is_extension(key) { format!("Extension `{key}`") } else { format!("`{key}`") };
    match refinement {
        None => {}
        Some(AT_ROOT) => out.push_str(" at root"),
        Some(form) => out.push_str(&format!(" ({form})")),
    }
    out
}

/// How the CLI cites a row: `openai-strict/pattern`, `anthropic/anyOf:at_root`.
#[must_use]
pub fn citation(translator: &str, key: &str, refinement: Option<&str>) -> String {
    match refinement {
        None => format!("{translator}/{key}"),
        Some(r) => format!("{translator}/{key}:{r}"),
    }
}

/// The anchor GitHub gives a heading: lower case, punctuation other than `-` and `_` dropped,
/// each space a `-` (the github-slugger rules, for the ASCII that headings here use).
#[must_use]
pub fn github_slug(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use schema_fidelity_translators::form;

    #[test]
    fn keyword_headings_have_the_anchor_github_gives_them() {
        let keys = vocabulary::DRAFT_2020_12.iter().map(|k| k.name).chain(BOOLEAN_SUBSCHEMAS.iter().copied());
        for key in keys {
            let refinements = std::iter::once(None).chain(std::iter::once(Some(AT_ROOT))).chain(form::ALL.iter().map(|f| Some(f.name())));
            for r in refinements {
                assert_eq!(github_slug(&heading(key, r)), anchor(key, r), "{key} {r:?}");
            }
        }
    }

    #[test]
    fn anchors_read_as_the_issue_asks() {
        assert_eq!(anchor("pattern", None), "pattern");
        assert_eq!(anchor("additionalProperties", Some("false")), "additionalproperties-false");
        assert_eq!(anchor("anyOf", Some(AT_ROOT)), "anyof-at-root");
        assert_eq!(anchor("$ref", Some("uri")), "ref-uri");
        assert_eq!(anchor("x-*", None), "ext-x-star");
        assert_eq!(anchor("id", None), "ext-id");
        assert_ne!(anchor("id", None), anchor("$id", None));
        assert_eq!(citation("openai-strict", "pattern", None), "openai-strict/pattern");
        assert_eq!(citation("anthropic", "anyOf", Some(AT_ROOT)), "anthropic/anyOf:at_root");
    }
}
