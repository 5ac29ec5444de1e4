//! The last few expressions parsed on this thread, by their text. An application sends the same
//! handful of expression texts again and again (`pk = :p`, `SET #n = :v`), and lexing and parsing
//! one costs several times what finding it here does (a third of a Query's expression work, in
//! instructions). Only the syntax is kept: names and values are resolved again for every request,
//! so a kept parse never carries one request's placeholders into another.

use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;

/// Texts kept per expression grammar: more than a service's distinct expressions of one kind
/// usually are, few enough that a miss (every text compared, by length first) stays cheap.
const KEPT: usize = 16;

/// Longer texts are parsed every time (DynamoDB allows 4 KB; a cache of those would hold 64 KB).
const LONGEST_KEPT: usize = 512;

/// Parses, most recently used first.
pub struct Recent<T> {
    entries: Vec<(Box<str>, Rc<T>)>,
}

impl<T> Recent<T> {
    pub const fn new() -> Self {
        Self { entries: Vec::new() }
    }

    fn find(&mut self, text: &str) -> Option<Rc<T>> {
        let at = self.entries.iter().position(|(kept, _)| **kept == *text)?;
        self.entries.get_mut(..=at)?.rotate_right(1);
        self.entries.first().map(|(_, parsed)| Rc::clone(parsed))
    }

    fn keep(&mut self, text: &str, parsed: &Rc<T>) {
        if self.entries.len() == KEPT {
            self.entries.pop();
        }
        self.entries.insert(0, (text.into(), Rc::clone(parsed)));
    }
}

/// `text` parsed by `parse`, from `cache` when it was parsed lately. Errors are not kept: a text
/// that does not parse is rare, and its message is made again.
pub fn parsed<T: 'static, E>(
    cache: &'static LocalKey<RefCell<Recent<T>>>,
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Rc<T>, E> {
    if text.len() > LONGEST_KEPT {
        return parse(text).map(Rc::new);
    }
    let found = cache.with(|recent| recent.try_borrow_mut().ok().and_then(|mut r| r.find(text)));
    if let Some(parsed) = found {
        return Ok(parsed);
    }
    let parsed = Rc::new(parse(text)?);
    cache.with(|recent| {
        if let Ok(mut recent) = recent.try_borrow_mut() {
            recent.keep(text, &parsed);
        }
    });
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static LENGTHS: RefCell<Recent<usize>> = const { RefCell::new(Recent::new()) };
    }

    fn length_of(text: &str, calls: &Cell<usize>) -> Result<Rc<usize>, String> {
        parsed(&LENGTHS, text, |t| {
            calls.set(calls.get() + 1);
            if t.contains('!') {
                Err(format!("refused {t}"))
            } else {
                Ok(t.len())
            }
        })
    }

    #[test]
    fn a_text_parsed_lately_is_not_parsed_again_and_the_least_recent_goes_first() {
        let calls = Cell::new(0);
        assert_eq!(*length_of("a = :v", &calls).unwrap(), 6);
        assert_eq!(*length_of("a = :v", &calls).unwrap(), 6);
        assert_eq!(calls.get(), 1, "the second ask is answered from the cache");
        // Same length, other text: parsed, not confused with the kept one.
        assert_eq!(*length_of("b = :v", &calls).unwrap(), 6);
        assert_eq!(calls.get(), 2);
        // Fill past the limit while asking for "a = :v" now and then: it stays, "b = :v" goes.
        for n in 0..KEPT * 2 {
            length_of(&format!("c{n} = :v"), &calls).unwrap();
            length_of("a = :v", &calls).unwrap();
        }
        let before = calls.get();
        length_of("a = :v", &calls).unwrap();
        assert_eq!(calls.get(), before, "the text in use is kept");
        length_of("b = :v", &calls).unwrap();
        assert_eq!(calls.get(), before + 1, "the one not used since went");
    }

    #[test]
    fn errors_and_long_texts_are_parsed_every_time() {
        let calls = Cell::new(0);
        assert_eq!(length_of("x !", &calls).unwrap_err(), "refused x !");
        assert_eq!(length_of("x !", &calls).unwrap_err(), "refused x !");
        assert_eq!(calls.get(), 2);
        let long = "a".repeat(LONGEST_KEPT + 1);
        length_of(&long, &calls).unwrap();
        length_of(&long, &calls).unwrap();
        assert_eq!(calls.get(), 4);
    }
}
