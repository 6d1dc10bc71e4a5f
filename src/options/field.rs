//! How an option's setting reaches a field of the tool's parameters, declared
//! once: most options set one field from one parser, and their default in the
//! help is that field's value in the tool's defaults, so it cannot drift.

use std::borrow::Cow;
use std::fmt::Display;

use super::{OptSpec, Setting, Store};

/// How a field option is set from a [`Setting`] (the general form).
pub type Setter<T> = fn(&mut T, Setting<'_>) -> Result<(), String>;

/// A field option's setter, boxed (it may hold the field's accessor).
pub type Set<T> = Box<dyn Fn(&mut T, Setting<'_>) -> Result<(), String> + Send + Sync>;
type Show<T> = Box<dyn Fn(&mut T) -> String + Send + Sync>;

/// What the help shows as an option's default.
pub enum Shown<T> {
    /// A fixed text: a placeholder (`FILE`), a default that is not a
    /// field's value, or one taken from another options type's defaults
    /// (a backend's, for the tools' help).
    Text(Cow<'static, str>),
    /// The field's value in the tool's defaults.
    Default(Show<T>),
}

impl<T: Default> Shown<T> {
    /// The text the help shows.
    pub fn text(&self) -> String {
        match self {
            Shown::Text(t) => t.to_string(),
            Shown::Default(show) => show(&mut T::default()),
        }
    }
}

/// A field option: how it is set, and what its default looks like.
pub struct Field<T> {
    pub(super) set: Set<T>,
    pub(super) shown: Shown<T>,
}

/// The field, with `text` shown as its default in the help instead (a
/// placeholder such as `FILE`, or what IOR's help shows). A function rather
/// than a method, so that the table's type reaches the field's closures.
pub fn shown<T>(text: &'static str, field: Field<T>) -> Field<T> {
    Field {
        shown: Shown::Text(text.into()),
        ..field
    }
}

impl<T> Field<T> {
    /// A field set by a closure that holds what it needs (an accessor).
    pub fn boxed(
        set: impl Fn(&mut T, Setting<'_>) -> Result<(), String> + Send + Sync + 'static,
    ) -> Field<T> {
        Field {
            set: Box::new(set),
            shown: Shown::Text(Cow::Borrowed("")),
        }
    }
}

/// A field set by a function of its own (checks across fields, several
/// fields, refusals).
pub fn set<T: 'static>(set: Setter<T>) -> Field<T> {
    Field {
        set: Box::new(set),
        shown: Shown::Text(Cow::Borrowed("")),
    }
}

/// A boolean switched on by a flag (`-w`, `-O writeFile=1`, `=0` off).
pub fn on<T: 'static>(get: fn(&mut T) -> &mut bool) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            *get(t) = s.flag_bool()?;
            Ok(())
        }),
        shown: Shown::Text(Cow::Borrowed("")),
    }
}

/// A boolean given as a number in a value option (`--progress=0`): the
/// default shows as 1 or 0.
pub fn on_value<T: 'static>(get: fn(&mut T) -> &mut bool) -> Field<T> {
    Field {
        shown: Shown::Default(Box::new(move |t| u8::from(*get(t)).to_string())),
        ..on(get)
    }
}

/// A count raised by each occurrence of a flag (`-v -v`, `-O verbose=2`).
pub fn count<T: 'static>(get: fn(&mut T) -> &mut u32) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            let field = get(t);
            *field = s.flag_count(*field)?;
            Ok(())
        }),
        shown: Shown::Text(Cow::Borrowed("")),
    }
}

/// A value read by `parse` (`parse_size`, `parse_positive`, ...); the help
/// shows the field's default.
pub fn parsed<T: 'static, V: Display + 'static>(
    get: fn(&mut T) -> &mut V,
    parse: fn(&str) -> Result<V, String>,
) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            *get(t) = parse(s.value())?;
            Ok(())
        }),
        shown: Shown::Default(Box::new(move |t| get(t).to_string())),
    }
}

/// An optional value read by `parse`: unset by default.
pub fn some<T: 'static, V: 'static>(
    get: fn(&mut T) -> &mut Option<V>,
    parse: fn(&str) -> Result<V, String>,
) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            *get(t) = Some(parse(s.value())?);
            Ok(())
        }),
        shown: Shown::Text(Cow::Borrowed("")),
    }
}

/// A text that must not be empty (a file or directory name, an API); `what`
/// names it in the refusal.
pub fn text<T: 'static>(get: fn(&mut T) -> &mut String, what: &'static str) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            *get(t) = non_empty(s.value(), what)?;
            Ok(())
        }),
        shown: Shown::Default(Box::new(move |t| get(t).clone())),
    }
}

/// An optional text that must not be empty when given.
pub fn some_text<T: 'static>(
    get: fn(&mut T) -> &mut Option<String>,
    what: &'static str,
) -> Field<T> {
    Field {
        set: Box::new(move |t, s| {
            *get(t) = Some(non_empty(s.value(), what)?);
            Ok(())
        }),
        shown: Shown::Text(Cow::Borrowed("")),
    }
}

/// A value as given, trimmed, refused when empty: the one rule for names.
pub fn non_empty(value: &str, what: &str) -> Result<String, String> {
    match value.trim() {
        "" => Err(format!("the {what} is empty")),
        v => Ok(v.to_string()),
    }
}

/// A text as given, without the spaces around it (a parser for
/// [`parsed`] and [`some`]).
pub fn trimmed(value: &str) -> Result<String, String> {
    Ok(value.trim().to_string())
}

/// The field, left as it is (its default) when the value is blank: IOR's
/// backends read an empty option as one not given.
pub fn blank_keeps<T: 'static>(field: Field<T>) -> Field<T> {
    let Field { set, shown } = field;
    Field {
        set: Box::new(move |t, s| match s {
            Setting::Value(v) if v.trim().is_empty() => Ok(()),
            _ => set(t, s),
        }),
        shown,
    }
}

/// An optional text, trimmed; a blank value leaves it unset.
pub fn given_text<T: 'static>(get: fn(&mut T) -> &mut Option<String>) -> Field<T> {
    blank_keeps(some(get, trimmed))
}

impl<T: 'static> OptSpec<T> {
    /// The option as one of a larger options type `U` that holds a `T`
    /// (`get`): a backend that takes another's options (AIO takes POSIX's)
    /// lists the other's table, lifted, instead of declaring them again.
    pub fn lifted<U: 'static>(self, get: fn(&mut U) -> &mut T) -> OptSpec<U> {
        let store = match self.store {
            Store::Field(set) => {
                Store::Field(Box::new(move |u: &mut U, s: Setting<'_>| set(get(u), s)))
            }
            Store::Module => Store::Module,
        };
        let shown = match self.shown {
            Shown::Text(t) => Shown::Text(t),
            Shown::Default(show) => Shown::Default(Box::new(move |u: &mut U| show(get(u)))),
        };
        OptSpec {
            short: self.short,
            names: self.names,
            kind: self.kind,
            shown,
            help: self.help,
            module: self.module,
            directive_only: self.directive_only,
            list: self.list,
            store,
        }
    }
}
