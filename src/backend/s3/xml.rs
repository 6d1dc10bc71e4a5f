//! The little XML S3 speaks: the text of elements in a response, and
//! escaping for the bodies pario sends. S3's responses are flat enough that
//! a tag search is exact (no attributes on the elements read, no nesting of
//! an element inside one of the same name).

use memchr::{memchr, memmem::Finder};

/// The text of the first `<tag>` that holds only text, unescaped. A byte
/// scan, nothing set up: it is called for each field of each entry of a
/// list (parts, uploads, prefixes, errors).
pub fn first(xml: &str, tag: &str) -> Option<String> {
    leaves(xml)
        .find(|&(name, _)| name == tag)
        .map(|(_, text)| unescape(text))
}

/// The raw contents of every `<tag>...</tag>` (`<tag/>` gives ""). One
/// pass over `xml`, with the two searches set up once: a listing page
/// holds a thousand entries.
pub fn elements<'a>(xml: &'a str, tag: &str) -> impl Iterator<Item = &'a str> + 'a {
    let start = Finder::new(format!("<{tag}").as_bytes()).into_owned();
    let close = Finder::new(format!("</{tag}>").as_bytes()).into_owned();
    let mut rest = xml;
    std::iter::from_fn(move || loop {
        let after = &rest[start.find(rest.as_bytes())? + start.needle().len()..];
        if let Some(body) = after.strip_prefix('>') {
            let end = close.find(body.as_bytes())?;
            rest = &body[end + close.needle().len()..];
            return Some(&body[..end]);
        }
        if let Some(next) = after.strip_prefix("/>") {
            rest = next;
            return Some("");
        }
        // Another tag that starts with this one's name (`<KeyCount>`).
        rest = after;
    })
}

/// `(name, raw text)` of each element of `xml` that holds only text
/// (`<Key>a</Key>`, `<Key/>`), in order, looking inside the others: every
/// field of a listing's entry in one pass, instead of a search per field
/// (which cost more than the rest of a listing's parse).
pub fn leaves(xml: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = xml;
    std::iter::from_fn(move || loop {
        let open = memchr(b'<', rest.as_bytes())?;
        let end = open + memchr(b'>', &rest.as_bytes()[open..])?;
        let name = &rest[open + 1..end];
        rest = &rest[end + 1..];
        if let Some(name) = name.strip_suffix('/') {
            return Some((name, ""));
        }
        let text = &rest[..memchr(b'<', rest.as_bytes())?];
        let closed = rest[text.len()..]
            .strip_prefix("</")
            .and_then(|t| t.strip_prefix(name))
            .and_then(|t| t.strip_prefix('>'));
        if let Some(after) = closed {
            rest = after;
            return Some((name, text));
        }
        // A close tag, or an element holding others (`<Owner>`).
    })
}

/// `s` with its entities (`&amp;`, `&#65;`, `&#x41;`) decoded. An `&`
/// that starts none (no `;` close after it, or an unknown name) is kept
/// as written: the text is the server's, and may hold anything.
pub fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match entity(after) {
            Some((c, tail)) => {
                out.push(c);
                rest = tail;
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character of the entity `text` starts with (after its `&`) and the
/// text after its `;`. The `;` is looked for among the next few bytes
/// only: a text of many `&` without one stays one pass.
fn entity(text: &str) -> Option<(char, &str)> {
    let window = &text.as_bytes()[..text.len().min(ENTITY_MAX)];
    let end = memchr(b';', window)?;
    let c = match &text[..end] {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        name => {
            let (digits, radix) = match name.strip_prefix("#x") {
                Some(hex) => (hex, 16),
                None => (name.strip_prefix('#')?, 10),
            };
            char::from_u32(u32::from_str_radix(digits, radix).ok()?)?
        }
    };
    Some((c, &text[end + 1..]))
}

/// The longest entity read, `;` included: `#x10FFFF;` with room for
/// leading zeros.
const ENTITY_MAX: usize = 16;

/// The server's `text` fit for one line of an error: its line breaks and
/// other control characters as blanks.
pub fn one_line(text: String) -> String {
    match text.contains(char::is_control) {
        true => text.replace(char::is_control, " "),
        false => text,
    }
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_elements_and_entities() {
        let x = "<R><KeyCount>3</KeyCount><Key>a&amp;b</Key><Key/><Keys>x</Keys>\
                 <Key>c&#x41;</Key><IsTruncated>false</IsTruncated></R>";
        let all = |x, tag| elements(x, tag).map(unescape).collect::<Vec<_>>();
        assert_eq!(all(x, "Key"), ["a&b", "", "cA"]);
        assert_eq!(first(x, "KeyCount").as_deref(), Some("3"));
        assert_eq!(first(x, "IsTruncated").as_deref(), Some("false"));
        assert_eq!(first(x, "Nope"), None);
        assert_eq!(all("<K>a</KK></K><K>b", "K"), ["a</KK>"]);
        assert_eq!(escape("<a&'>"), "&lt;a&amp;&apos;&gt;");
    }

    /// A server's text may end in `&` or hold one before a character of
    /// several bytes (these panicked); an `&` that starts no entity stays.
    #[test]
    fn an_ampersand_that_starts_no_entity_is_kept() {
        for (text, want) in [
            ("a&", "a&"),
            ("&", "&"),
            ("&é", "&é"),
            ("&é;", "&é;"),
            ("x&&amp;", "x&&"),
            ("&amp", "&amp"),
            ("&ampx", "&ampx"),
            ("&#xD800;", "&#xD800;"),
            ("&#1114112;", "&#1114112;"),
            ("&#x;&#;", "&#x;&#;"),
            ("&#0000000000000065;", "&#0000000000000065;"),
            ("&#00065;&#x00041;", "AA"),
        ] {
            assert_eq!(unescape(text), want, "{text:?}");
        }
    }

    #[test]
    fn reads_the_text_elements_of_an_entry_in_one_pass() {
        let x = "<Contents><Key>a&lt;b</Key><ETag/><Size>7</Size>\
                 <Owner><ID>me</ID></Owner><KeyX>1</KeyX></Contents>";
        let got: Vec<_> = leaves(x).collect();
        let want = [
            ("Key", "a&lt;b"),
            ("ETag", ""),
            ("Size", "7"),
            ("ID", "me"),
            ("KeyX", "1"),
        ];
        assert_eq!(got, want);
        assert_eq!(
            leaves("<?xml version=\"1.0\"?><R a=\"1\"><K>v</K>").count(),
            1
        );
    }
}
