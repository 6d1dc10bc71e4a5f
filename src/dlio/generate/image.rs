//! DLIO's image datasets (jpeg_generator.py, png_generator.py): one
//! greyscale 8-bit image a file, `dim1` rows of `dim2` pixels, its pixels
//! one numpy call (`randint(255, size=(dim1, dim2))`, as for the other
//! formats), saved as PIL saves `Image.fromarray(records)`: a baseline
//! JPEG (quality 75) or a PNG. The pixels equal DLIO's with
//! `pario.content=exact`; the compressed files are not PIL's byte for
//! byte (another encoder), so their sizes differ from DLIO's.

use std::io;

use super::content::Source;
use super::out::Out;
use crate::dlio::dataset::FileSpec;

/// PIL's default JPEG quality.
const JPEG_QUALITY: u8 = 75;

/// The image's pixels, row after row.
fn pixels(file: &FileSpec, src: &mut Source) -> Vec<u8> {
    let mut data = vec![0u8; file.record_bytes() as usize];
    src.call(file.index).fill(&mut data);
    data
}

/// The largest side a JPEG holds (its header's 16-bit fields).
pub const JPEG_MAX_SIDE: u64 = u16::MAX as u64;

/// `img.save(path, format='JPEG')` of the file's image.
pub fn write_jpeg(out: &mut dyn Out, file: &FileSpec, src: &mut Source) -> io::Result<()> {
    let side = |d: u64| {
        u16::try_from(d).map_err(|_| {
            io::Error::other(format!(
                "a JPEG side is at most {JPEG_MAX_SIDE} pixels, not {d}"
            ))
        })
    };
    let (width, height) = (side(file.dim2)?, side(file.dim1)?);
    let data = pixels(file, src);
    let mut bytes = Vec::with_capacity(data.len() + 1024);
    jpeg_encoder::Encoder::new(&mut bytes, JPEG_QUALITY)
        .encode(&data, width, height, jpeg_encoder::ColorType::Luma)
        .map_err(|e| io::Error::other(format!("JPEG encoder: {e}")))?;
    out.put(&bytes)
}

/// `img.save(path, format='PNG')` of the file's image (the pixels are
/// random: deflate's fastest level loses nothing against PIL's).
pub fn write_png(out: &mut dyn Out, file: &FileSpec, src: &mut Source) -> io::Result<()> {
    let data = pixels(file, src);
    let mut bytes = Vec::with_capacity(data.len() + data.len() / 64 + 1024);
    let to_io = |e: png::EncodingError| io::Error::other(format!("PNG encoder: {e}"));
    let side = |d: u64| u32::try_from(d).map_err(|_| io::Error::other("a PNG side over 2^32"));
    let (width, height) = (side(file.dim2)?, side(file.dim1)?);
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(to_io)?;
    writer.write_image_data(&data).map_err(to_io)?;
    writer.finish().map_err(to_io)?;
    out.put(&bytes)
}
