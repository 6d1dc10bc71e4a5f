//! What the server answers to its listings, read from the text alone:
//! ListObjectsV2's pages, ListBuckets, ListMultipartUploads and ListParts
//! (the requests are the client's and `list.rs`'s).

use super::xml;

/// One object as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub key: String,
    pub size: u64,
    /// `LastModified`, as the server wrote it (ISO 8601).
    pub modified: Option<String>,
}

impl Listed {
    /// The object a listing's `<Contents>` describes; `None` without a key.
    fn parse(contents: &str) -> Option<Listed> {
        let (mut key, mut size, mut modified) = (None, 0, None);
        for (name, text) in xml::leaves(contents) {
            match name {
                "Key" => key = Some(xml::unescape(text)),
                "Size" => size = text.trim().parse().unwrap_or(0),
                "LastModified" => modified = Some(xml::unescape(text)),
                _ => {}
            }
        }
        Some(Listed {
            key: key?,
            size,
            modified,
        })
    }
}

/// One page of a listing: its objects, its common prefixes, and the token
/// of the next page.
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub objects: Vec<Listed>,
    pub prefixes: Vec<String>,
    pub next: Option<String>,
}

impl Page {
    /// A ListObjectsV2 answer: entries without a key are passed over, a
    /// size that is no number counts 0.
    pub fn parse(text: &str) -> Page {
        let mut page = Page::default();
        for c in xml::elements(text, "Contents") {
            page.objects.extend(Listed::parse(c));
        }
        for p in xml::elements(text, "CommonPrefixes") {
            page.prefixes.extend(xml::first(p, "Prefix"));
        }
        if xml::first(text, "IsTruncated").as_deref() == Some("true") {
            page.next = xml::first(text, "NextContinuationToken");
        }
        page
    }
}

/// A ListBuckets answer: the buckets' names.
pub fn buckets(text: &str) -> Vec<String> {
    xml::elements(text, "Bucket")
        .filter_map(|b| xml::first(b, "Name"))
        .collect()
}

/// A ListMultipartUploads answer: (key, UploadId) of each upload.
pub fn uploads(text: &str) -> Vec<(String, String)> {
    xml::elements(text, "Upload")
        .filter_map(|u| Some((xml::first(u, "Key")?, xml::first(u, "UploadId")?)))
        .collect()
}

/// A part as ListParts shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedPart {
    pub number: u32,
    pub etag: String,
    /// `Size`; `None` when the server gave none that reads as a number.
    pub size: Option<u64>,
}

/// A ListParts answer: each part, and the marker of the next page when
/// the list goes on. Entries without a number or an ETag are passed over.
pub fn parts(text: &str) -> (Vec<ListedPart>, Option<String>) {
    let mut parts = Vec::new();
    for part in xml::elements(text, "Part") {
        let number = xml::first(part, "PartNumber").and_then(|n| n.parse().ok());
        let etag = xml::first(part, "ETag");
        if let (Some(number), Some(etag)) = (number, etag) {
            let size = xml::first(part, "Size").and_then(|s| s.trim().parse().ok());
            parts.push(ListedPart { number, etag, size });
        }
    }
    let next = match xml::first(text, "IsTruncated").as_deref() {
        Some("true") => xml::first(text, "NextPartNumberMarker"),
        _ => None,
    };
    (parts, next)
}

#[cfg(test)]
mod tests {
    use super::{parts, uploads, Listed, ListedPart, Page};

    #[test]
    fn a_page_of_objects_and_prefixes_is_read() {
        let text = "<ListBucketResult><IsTruncated>true</IsTruncated>\
             <Contents><Key>d/a&amp;b</Key><Size>7</Size><LastModified>T</LastModified></Contents>\
             <Contents><Size>1</Size></Contents><Contents><Key>d/c</Key><Size>-1</Size></Contents>\
             <CommonPrefixes><Prefix>d/e/</Prefix></CommonPrefixes>\
             <NextContinuationToken>tok</NextContinuationToken></ListBucketResult>";
        let page = Page::parse(text);
        let listed = |key: &str, size, modified: Option<&str>| Listed {
            key: key.into(),
            size,
            modified: modified.map(str::to_string),
        };
        let want = [listed("d/a&b", 7, Some("T")), listed("d/c", 0, None)];
        assert_eq!(page.objects, want);
        assert_eq!(page.prefixes, ["d/e/"]);
        assert_eq!(page.next.as_deref(), Some("tok"));
        let last = text.replace("<IsTruncated>true", "<IsTruncated>false");
        assert_eq!(Page::parse(&last).next, None);
    }

    #[test]
    fn uploads_and_parts_are_read() {
        let text = "<Upload><Key>k</Key><UploadId>1</UploadId></Upload>\
                    <Upload><Key>no id</Key></Upload>";
        assert_eq!(uploads(text), [("k".to_string(), "1".to_string())]);
        let text = "<IsTruncated>true</IsTruncated><NextPartNumberMarker>2</NextPartNumberMarker>\
                    <Part><PartNumber>2</PartNumber><ETag>&quot;e&quot;</ETag></Part>\
                    <Part><PartNumber>3</PartNumber><ETag>g</ETag><Size>7</Size></Part>\
                    <Part><PartNumber>x</PartNumber><ETag>f</ETag></Part>";
        let (got, next) = parts(text);
        let part = |number, etag: &str, size| ListedPart {
            number,
            etag: etag.into(),
            size,
        };
        assert_eq!(got, [part(2, "\"e\"", None), part(3, "g", Some(7))]);
        assert_eq!(next.as_deref(), Some("2"));
        assert_eq!(parts("<IsTruncated>false</IsTruncated>"), (vec![], None));
    }
}
