//! [`Dictionary`]: a dictionary-encoded text column built from keys. A string is interned once
//! (hashed with foldhash) and its rows take its key, so a value that waits before it becomes a
//! row (the name of an open slice) is held as a key, not copied.
//!
//! Each batch has a dictionary of its own (what a batch's rows use), so a capture whose names
//! never repeat holds at most a batch's worth of them. A key taken before a batch was handed
//! over is moved into the next batch's dictionary with [`Dictionary::carry`].

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, DictionaryArray, Int32Array, StringArray};
use arrow_schema::ArrowError;
use tracecap::timeline::{ByNameId, NameId};

/// A key of the batch being built.
pub(crate) type Key = i32;

/// The rows of a dictionary-encoded text column being built, and the batch's values.
#[derive(Default)]
pub(crate) struct Dictionary {
    keys: Vec<Key>,
    values: StringBuilder,
    index: HashMap<Box<str>, Key, foldhash::fast::RandomState>,
    /// The key interned last: names and categories often repeat row after row.
    last: Option<Key>,
    /// The key of each numbered name met in the batch being built.
    by_id: ByNameId<Key>,
    /// The values of the batch handed over last (what [`Dictionary::carry`] reads).
    previous: Option<StringArray>,
    /// Rows a batch holds (room made for them up front).
    room: usize,
}

impl Dictionary {
    /// An empty column with room for `rows` rows a batch.
    pub(crate) fn with_room(rows: usize) -> Self {
        Dictionary {
            keys: Vec::with_capacity(rows),
            room: rows,
            ..Dictionary::default()
        }
    }

    /// The key of `value` in the batch being built (added to its values if new).
    pub(crate) fn intern(&mut self, value: &str) -> Key {
        if let Some(key) = self.last {
            if self.value(key) == Some(value.as_bytes()) {
                return key;
            }
        }
        let key = match self.index.get(value) {
            Some(&key) => key,
            None => {
                let key = Key::try_from(self.index.len()).unwrap_or(Key::MAX);
                self.values.append_value(value);
                self.index.insert(value.into(), key);
                key
            }
        };
        self.last = Some(key);
        key
    }

    /// [`Dictionary::intern`] for a name that may carry a number: a numbered name is found by
    /// its number once the batch has it.
    #[inline]
    pub(crate) fn intern_named(&mut self, id: Option<NameId>, value: &str) -> Key {
        if let Some(key) = self.by_id.get(id) {
            return key;
        }
        let key = self.intern(value);
        self.by_id.insert(id, key);
        key
    }

    /// The bytes of `key`'s value in the batch being built.
    fn value(&self, key: Key) -> Option<&[u8]> {
        let i = usize::try_from(key).ok()?;
        let offsets = self.values.offsets_slice();
        let start = usize::try_from(*offsets.get(i)?).ok()?;
        let end = usize::try_from(*offsets.get(i + 1)?).ok()?;
        self.values.values_slice().get(start..end)
    }

    /// A row holding `key` (from [`Dictionary::intern`] in this batch).
    pub(crate) fn push_key(&mut self, key: Key) {
        self.keys.push(key);
    }

    /// A row holding `value`.
    pub(crate) fn push(&mut self, value: &str) {
        let key = self.intern(value);
        self.keys.push(key);
    }

    /// A row holding `value`, numbered `id` or not (see [`Dictionary::intern_named`]).
    pub(crate) fn push_named(&mut self, id: Option<NameId>, value: &str) {
        let key = self.intern_named(id, value);
        self.keys.push(key);
    }

    /// `key` of the batch handed over last, as a key of the batch being built.
    pub(crate) fn carry(&mut self, key: Key) -> Key {
        let previous = self.previous.take();
        let moved = match &previous {
            Some(values) => match usize::try_from(key) {
                Ok(i) if i < values.len() => self.intern(values.value(i)),
                _ => key,
            },
            None => key,
        };
        self.previous = previous;
        moved
    }

    /// The rows so far as a column; the next batch starts with an empty dictionary.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let keys = Int32Array::from(std::mem::replace(
            &mut self.keys,
            Vec::with_capacity(self.room),
        ));
        let values = self.values.finish();
        self.index.clear();
        self.last = None;
        self.by_id.clear();
        self.previous = Some(values.clone());
        let column = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values))?;
        Ok(Arc::new(column))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;

    fn texts(column: &ArrayRef) -> Vec<String> {
        let dict = column.as_dictionary::<Int32Type>();
        let values = dict.values().as_string::<i32>();
        dict.keys()
            .iter()
            .map(|k| values.value(k.unwrap() as usize).to_string()) // ok: test code, a failure is the test failing
            .collect()
    }

    #[test]
    fn rows_read_back_and_values_are_stored_once() {
        let mut d = Dictionary::default();
        for v in ["a", "b", "a", "a", "c", "b"] {
            d.push(v);
        }
        let column = d.finish().unwrap(); // ok: test code, a failure is the test failing
        assert_eq!(texts(&column), ["a", "b", "a", "a", "c", "b"]);
        assert_eq!(column.as_dictionary::<Int32Type>().values().len(), 3);
    }

    #[test]
    fn a_key_carried_into_the_next_batch_names_the_same_value() {
        let mut d = Dictionary::default();
        d.push("x");
        let open = d.intern("kept");
        d.finish().unwrap(); // ok: test code, a failure is the test failing
        d.push("y");
        let moved = d.carry(open);
        d.push_key(moved);
        assert_eq!(texts(&d.finish().unwrap()), ["y", "kept"]); // ok: test code, a failure is the test failing
    }

    #[test]
    fn each_batch_holds_only_its_own_values() {
        let mut d = Dictionary::default();
        for i in 0..100 {
            d.push(&format!("name {i}"));
        }
        d.finish().unwrap(); // ok: test code, a failure is the test failing
        d.push("alone");
        let column = d.finish().unwrap(); // ok: test code, a failure is the test failing
        assert_eq!(column.as_dictionary::<Int32Type>().values().len(), 1);
        assert_eq!(texts(&column), ["alone"]);
    }

    #[test]
    fn a_numbered_name_takes_the_key_of_its_text_in_each_batch() {
        let mut d = Dictionary::default();
        d.push("first");
        d.push_named(Some(NameId(7)), "seven");
        d.push_named(Some(NameId(7)), "seven");
        d.push("seven");
        d.push_named(Some(NameId(NameId::DENSE)), "far");
        d.push_named(Some(NameId(NameId::DENSE)), "far");
        let column = d.finish().unwrap();
        assert_eq!(
            texts(&column),
            ["first", "seven", "seven", "seven", "far", "far"]
        );
        assert_eq!(column.as_any_dictionary().values().len(), 3);
        // A new batch starts without the numbers of the last one.
        d.push("other");
        d.push_named(Some(NameId(7)), "seven");
        let column = d.finish().unwrap();
        assert_eq!(texts(&column), ["other", "seven"]);
        assert_eq!(column.as_any_dictionary().values().len(), 2);
    }
}
