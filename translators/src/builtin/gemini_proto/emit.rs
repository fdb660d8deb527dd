//! Normal form to proto: writing a disjunction as the proto `Schema` (one branch a typed
//! `Schema`; several an `anyOf` alone on its node, a `null` branch folded into `nullable`), the
//! root as one `OBJECT`, and "any value" as the widest finite proto form.
//!
//! Separate from [`super::lower`] because the proto's own rules (upper-case `type` on every node,
//! `items` required on `ARRAY`, counts as strings, `anyOf` alone) live only here.

use serde_json::{Map, Value, json};

use super::normal_form::{Branch, Disj, Ty, any, simplify};
use super::{ANY_NESTING, Build, MAX_COUNT};
use crate::model::Refusal;
use crate::walk;

/// The proto schema that accepts nothing.
pub(super) fn never() -> Value {
    json!({"type": "NUMBER", "description": "No value is valid here.", "minimum": 1, "maximum": 0})
}

impl Build<'_> {

    pub(super) fn emit_root(&mut self, root: Disj) -> Result<Value, Refusal> {
        let mut objects: Vec<Branch> = root.into_iter().filter(|b| b.ty == Ty::Object).collect();
        match objects.len() {
            0 => Ok(json!({
                "type": "OBJECT",
                "description": "No arguments are valid: the source schema accepts no object.",
                "properties": {"never": never()},
                "required": ["never"],
            })),
            1 => {
                let only = objects.remove(0);
                self.emit_branch(&only, false, "")
            }
            _ => {
                let merged = widen_objects(&objects);
                self.emit_branch(&merged, false, "")
            }
        }
    }

    fn emit(&mut self, d: &Disj, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        if d.is_empty() {
            return Ok(never());
        }
        let nullable = d.iter().any(|b| b.ty == Ty::Null);
        let others: Vec<&Branch> = d.iter().filter(|b| b.ty != Ty::Null).collect();
        match others.as_slice() {
            [] => self.emit_branch(&d[0], false, pointer),
            [only] => self.emit_branch(only, nullable, pointer),
            many => {
                let mut branches = Vec::new();
                for (i, b) in many.iter().enumerate() {
                    branches.push(self.emit_branch(b, nullable && i == 0, &format!("{pointer}/anyOf/{i}"))?);
                }
                Ok(json!({ "anyOf": branches }))
            }
        }
    }

    fn emit_branch(&mut self, b: &Branch, nullable: bool, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        let mut m = Map::new();
        m.insert("type".to_owned(), Value::from(b.ty.proto()));
        if let Some(title) = &b.title {
            m.insert("title".to_owned(), Value::from(title.clone()));
        }
        let mut notes = b.notes.clone();
        if nullable {
            m.insert("nullable".to_owned(), Value::Bool(true));
        }
        match b.ty {
            Ty::String => match (&b.strings, b.date_time) {
                (Some(strings), date_time) => {
                    m.insert("format".to_owned(), Value::from("enum"));
                    m.insert("enum".to_owned(), json!(strings));
                    if date_time {
                        notes.push("Each value is also a date-time (format: \"date-time\").".to_owned());
                    }
                }
                (None, true) => {
                    m.insert("format".to_owned(), Value::from("date-time"));
                }
                (None, false) => {}
            },
            Ty::Number | Ty::Integer => {
                if let Some(v) = &b.minimum {
                    m.insert("minimum".to_owned(), v.clone());
                }
                if let Some(v) = &b.maximum {
                    m.insert("maximum".to_owned(), v.clone());
                }
            }
            Ty::Array => {
                let items = match &b.items {
                    // This array is the first level of nesting.
                    None => self.emit_any(ANY_NESTING - 1, &format!("{pointer}/items"))?,
                    Some(d) => self.emit(d, &format!("{pointer}/items"))?,
                };
                m.insert("items".to_owned(), items);
                if let Some(n) = b.min_items {
                    m.insert("minItems".to_owned(), Value::from(n.min(MAX_COUNT).to_string()));
                }
                if let Some(n) = b.max_items {
                    m.insert("maxItems".to_owned(), Value::from(n.min(MAX_COUNT).to_string()));
                }
            }
            Ty::Object => {
                let mut properties = Map::new();
                for (name, d) in &b.properties {
                    let child = format!("{pointer}/properties/{}", walk::escape(name));
                    properties.insert(name.clone(), self.emit(d, &child)?);
                }
                for name in &b.required {
                    if !properties.contains_key(name) {
                        // The proto lists only declared properties as required; an undeclared one
                        // may hold any value.
                        let child = format!("{pointer}/properties/{}", walk::escape(name));
                        properties.insert(name.clone(), self.emit_any(ANY_NESTING, &child)?);
                    }
                }
                if !properties.is_empty() {
                    m.insert("properties".to_owned(), Value::Object(properties));
                }
                if !b.required.is_empty() {
                    m.insert("required".to_owned(), json!(b.required));
                }
            }
            Ty::Boolean | Ty::Null => {}
        }
        if !notes.is_empty() {
            m.insert("description".to_owned(), Value::from(notes.join("\n\n")));
        }
        if let Some(default) = &b.default {
            m.insert("default".to_owned(), default.clone());
        }
        Ok(Value::Object(m))
    }

    /// The widest finite proto schema: every type, arrays nesting at most `nesting` levels.
    fn emit_any(&mut self, nesting: usize, pointer: &str) -> Result<Value, Refusal> {
        self.count(pointer)?;
        let mut branches = vec![json!({"type": "STRING", "nullable": true}), json!({"type": "NUMBER"}), json!({"type": "BOOLEAN"}), json!({"type": "OBJECT"})];
        if nesting > 0 {
            let items = self.emit_any(nesting - 1, &format!("{pointer}/anyOf/4/items"))?;
            branches.push(json!({"type": "ARRAY", "items": items}));
        }
        Ok(json!({ "anyOf": branches }))
    }
}

/// One `OBJECT` accepting every object any of `objects` accepts: a property keeps the union of its
/// schemas (any value where a branch leaves it open), and only what every branch requires stays
/// required. The root must be a single `OBJECT`, so this is the root's named widening.
fn widen_objects(objects: &[Branch]) -> Branch {
    let mut merged = Branch::new(Ty::Object);
    let mut names: Vec<&String> = Vec::new();
    for b in objects {
        for (name, _) in &b.properties {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    for name in names {
        let mut union = Vec::new();
        let mut open = false;
        for b in objects {
            match b.properties.iter().find(|(n, _)| n == name) {
                Some((_, d)) => union.extend(d.iter().cloned()),
                None => open = true,
            }
        }
        merged.properties.push((name.clone(), if open { any() } else { simplify(union) }));
    }
    merged.required = objects[0].required.iter().filter(|r| objects.iter().all(|b| b.required.contains(r))).cloned().collect();
    merged.title = objects.iter().find_map(|b| b.title.clone());
    for b in objects {
        for n in &b.notes {
            merged.note(n.clone());
        }
    }
    merged.note(format!("The arguments take one of {} shapes; they are merged here and the choice between them is not enforced.", objects.len()));
    merged
}
