//! Open S3 "files": an object written in parts ([`ObjectWriter`]), an
//! object read by ranged GETs ([`ObjectReader`]), and fragments, one object
//! per transfer ([`Fragments`]).

use std::collections::HashMap;
use std::io;
use std::sync::Arc;

use super::client::Client;
use super::parts::Plan;
use super::Target;
use crate::backend::File;

/// An object being written. Transfers that make up a whole part are sent
/// as they come; smaller ones are gathered in the part's buffer first. A
/// multipart upload this writer started is completed at close, or aborted
/// when the writer is dropped without closing (a failure, a signal).
pub struct ObjectWriter {
    client: Arc<Client>,
    target: Target,
    plan: Plan,
    /// The multipart upload; `None`: the object is one PUT.
    upload: Option<String>,
    /// The upload belongs to every task of a shared file: the tasks' closing
    /// rendezvous completes it, not this writer.
    shared: bool,
    partial: HashMap<u64, (Vec<u8>, u64)>,
    parts: Vec<(u32, String)>,
    done: bool,
}

impl ObjectWriter {
    pub fn new(
        client: Arc<Client>,
        target: Target,
        plan: Plan,
        upload: Option<String>,
        shared: bool,
    ) -> ObjectWriter {
        ObjectWriter {
            client,
            target,
            plan,
            upload,
            shared,
            partial: HashMap::new(),
            parts: Vec::new(),
            done: false,
        }
    }

    /// Part `index` (0-based): its first byte and its length.
    fn span(&self, index: u64) -> (u64, u64) {
        let start = index * self.plan.part;
        (start, self.plan.part.min(self.plan.size - start))
    }

    fn send(&mut self, index: u64, data: &[u8]) -> io::Result<()> {
        let Target { bucket, key } = &self.target;
        match &self.upload {
            None => self.client.put(bucket, key, data),
            Some(id) => {
                let number = index as u32 + 1;
                let etag = self.client.upload_part(bucket, key, id, number, data)?;
                self.parts.push((number, etag));
                Ok(())
            }
        }
    }

    /// Sends the parts not yet complete, their missing bytes as zeros (a
    /// phase stopped early leaves them), so the object keeps its offsets.
    fn flush(&mut self) -> io::Result<()> {
        let mut left: Vec<u64> = self.partial.keys().copied().collect();
        left.sort_unstable();
        for index in left {
            let (data, _) = self.partial.remove(&index).expect("a partial part");
            self.send(index, &data)?;
        }
        Ok(())
    }
}

impl File for ObjectWriter {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        if offset >= self.plan.size {
            return Err(io::Error::other(format!(
                "offset {offset} is beyond the object's planned {} bytes",
                self.plan.size
            )));
        }
        let index = offset / self.plan.part;
        let (start, len) = self.span(index);
        let within = offset - start;
        let take = (buf.len() as u64).min(len - within) as usize;
        if within == 0 && take as u64 == len {
            self.send(index, &buf[..take])?;
            return Ok(take);
        }
        let (data, filled) = self
            .partial
            .entry(index)
            .or_insert_with(|| (vec![0; len as usize], 0));
        data[within as usize..within as usize + take].copy_from_slice(&buf[..take]);
        *filled += take as u64;
        if *filled >= len {
            let (data, _) = self.partial.remove(&index).expect("a partial part");
            self.send(index, &data)?;
        }
        Ok(take)
    }

    fn read_at(&mut self, _buf: &mut [u8], _offset: u64) -> io::Result<usize> {
        Err(io::Error::other(
            "an object opened for writing cannot be read",
        ))
    }

    /// Nothing to flush before close: a part is durable once sent, and the
    /// object exists only when its upload completes.
    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        self.flush()?;
        if let (Some(id), false) = (&self.upload, self.shared) {
            self.parts.sort_by_key(|p| p.0);
            let Target { bucket, key } = &self.target;
            self.client.complete_upload(bucket, key, id, &self.parts)?;
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        if let (Some(id), false) = (&self.upload, self.done) {
            let _ = self
                .client
                .abort_upload(&self.target.bucket, &self.target.key, id);
        }
    }
}

/// An object read by ranged GETs, any size, any order.
pub struct ObjectReader {
    pub client: Arc<Client>,
    pub target: Target,
}

impl File for ObjectReader {
    fn write_at(&mut self, _buf: &[u8], _offset: u64) -> io::Result<usize> {
        Err(io::Error::other(
            "an object opened for reading cannot be written",
        ))
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.client
            .get(&self.target.bucket, &self.target.key, offset, buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        Ok(())
    }
}

/// How the fragments of a file are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// pario: `KEY~` and the offset in 20 digits, so a listing of the
    /// prefix is in offset order. Not `KEY/`: on servers backed by a file
    /// system (SeaweedFS) that makes KEY a directory, which then keeps an
    /// object of that name from being written.
    Pario,
    /// IOR's S3-libs3: `KEY` at offset 0, `KEY-OFFSET-LENGTH` elsewhere.
    Ior,
}

impl Naming {
    pub fn key(self, file: &str, offset: u64, len: usize) -> String {
        match self {
            Naming::Pario => format!("{file}~{offset:020}"),
            Naming::Ior if offset == 0 => file.to_string(),
            Naming::Ior => format!("{file}-{offset}-{len}"),
        }
    }

    /// The prefix every fragment key of `file` starts with.
    pub fn prefix(self, file: &str) -> String {
        match self {
            Naming::Pario => format!("{file}~"),
            Naming::Ior => file.to_string(),
        }
    }

    /// Whether `key` is a fragment of `file` (a listing of the prefix may
    /// hold other files' keys under IOR's naming), and where it starts.
    pub fn offset_of(self, file: &str, key: &str) -> Option<u64> {
        let rest = key.strip_prefix(file)?;
        match self {
            Naming::Pario => {
                let digits = rest.strip_prefix('~')?;
                (digits.len() == 20).then(|| digits.parse().ok())?
            }
            Naming::Ior if rest.is_empty() => Some(0),
            Naming::Ior => {
                let (offset, len) = rest.strip_prefix('-')?.split_once('-')?;
                len.parse::<u64>().ok()?;
                offset.parse().ok()
            }
        }
    }
}

/// A file as one object per transfer.
pub struct Fragments {
    pub client: Arc<Client>,
    pub target: Target,
    pub naming: Naming,
}

impl File for Fragments {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let key = self.naming.key(&self.target.key, offset, buf.len());
        self.client.put(&self.target.bucket, &key, buf)?;
        Ok(buf.len())
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let key = self.naming.key(&self.target.key, offset, buf.len());
        self.client.get(&self.target.bucket, &key, 0, buf)
    }

    fn sync(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_names_round_trip() {
        let k = Naming::Pario.key("d/f", 4096, 10);
        assert_eq!(k, "d/f~00000000000000004096");
        assert_eq!(Naming::Pario.offset_of("d/f", &k), Some(4096));
        assert_eq!(Naming::Ior.key("f", 0, 10), "f");
        assert_eq!(Naming::Ior.key("f", 47008, 47008), "f-47008-47008");
        assert_eq!(Naming::Ior.offset_of("f", "f-47008-47008"), Some(47008));
        assert_eq!(Naming::Ior.offset_of("f", "fb"), None);
    }
}
