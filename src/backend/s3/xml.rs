//! The little XML S3 speaks: the text of elements in a response, and
//! escaping for the bodies pario sends. S3's responses are flat enough that
//! a tag search is exact (no attributes on the elements read, no nesting of
//! an element inside one of the same name).

/// The text of every `<tag>` in `xml`, in order, unescaped.
pub fn all(xml: &str, tag: &str) -> Vec<String> {
    elements(xml, tag).map(unescape).collect()
}

/// The text of the first `<tag>`, unescaped.
pub fn first(xml: &str, tag: &str) -> Option<String> {
    elements(xml, tag).next().map(unescape)
}

/// The raw contents of every `<tag>...</tag>` (`<tag/>` gives ""). One
/// pass over `xml`: a listing page holds a thousand keys.
pub fn elements<'a>(xml: &'a str, tag: &str) -> impl Iterator<Item = &'a str> + 'a {
    let start = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut rest = xml;
    std::iter::from_fn(move || loop {
        let after = &rest[rest.find(&start)? + start.len()..];
        if let Some(body) = after.strip_prefix('>') {
            let end = body.find(&close)?;
            rest = &body[end + close.len()..];
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

pub fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let end = after.find(';').unwrap_or(after.len() - 1);
        let entity = &after[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32),
            e if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
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
        assert_eq!(all(x, "Key"), ["a&b", "", "cA"]);
        assert_eq!(first(x, "KeyCount").as_deref(), Some("3"));
        assert_eq!(first(x, "IsTruncated").as_deref(), Some("false"));
        assert_eq!(first(x, "Nope"), None);
        assert_eq!(escape("<a&'>"), "&lt;a&amp;&apos;&gt;");
    }
}
