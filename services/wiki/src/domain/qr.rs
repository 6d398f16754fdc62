//! QR codes of instructions: `PORTAL_PUBLIC_URL/short-instruction/{model id}` as
//! a PNG, drawn from the code's module matrix (black on white, with the quiet
//! zone of four modules the standard asks for).
//!
//! A code depends on nothing but the public URL (fixed for the process) and
//! the model id, so each is drawn once and kept in a bounded cache: every
//! model read carries one, and a label sheet one per unit.

use std::sync::Arc;

use portal_kit::ServiceError;
use qrcode::{Color, EcLevel, QrCode};
use quick_cache::sync::Cache;

/// Pixels per module: a typical URL gives 33 modules, about 400 px in all,
/// the size the model page shows.
const SCALE: usize = 10;
const QUIET_ZONE: usize = 4;

/// How many models' codes are kept: a PNG is a few KB, so a few MB at most.
const KEPT: usize = 1024;

/// The QR codes of this portal's instructions, each drawn once per process.
pub struct QrCodes {
    public_url: String,
    drawn: Cache<i64, Arc<[u8]>>,
}

impl QrCodes {
    pub fn new(public_url: &str) -> QrCodes {
        QrCodes::with_capacity(public_url, KEPT)
    }

    fn with_capacity(public_url: &str, capacity: usize) -> QrCodes {
        QrCodes {
            public_url: public_url.to_owned(),
            drawn: Cache::new(capacity),
        }
    }

    /// What model `model_id`'s code opens.
    pub fn url(&self, model_id: i64) -> String {
        instruction_url(&self.public_url, model_id)
    }

    /// The PNG of model `model_id`'s code. Two first reads at once may both
    /// draw it, rather than one wait on the other's thread.
    pub fn png(&self, model_id: i64) -> Result<Vec<u8>, ServiceError> {
        if let Some(drawn) = self.drawn.get(&model_id) {
            return Ok(drawn.to_vec());
        }
        let drawn = png(&self.url(model_id))?;
        self.drawn.insert(model_id, Arc::from(drawn.as_slice()));
        Ok(drawn)
    }
}

/// The public page of a model's instruction.
fn instruction_url(public_url: &str, model_id: i64) -> String {
    format!(
        "{}/short-instruction/{model_id}",
        public_url.trim_end_matches('/')
    )
}

/// A PNG of a QR code (error correction M) that reads as `text`.
fn png(text: &str) -> Result<Vec<u8>, ServiceError> {
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .map_err(ServiceError::internal)?;
    let modules = code.width();
    let colors = code.to_colors();
    let side = (modules + 2 * QUIET_ZONE) * SCALE;
    let mut pixels = vec![255u8; side * side];
    for (index, color) in colors.iter().enumerate() {
        if *color != Color::Dark {
            continue;
        }
        let (row, column) = (index / modules + QUIET_ZONE, index % modules + QUIET_ZONE);
        for y in row * SCALE..(row + 1) * SCALE {
            pixels[y * side + column * SCALE..y * side + (column + 1) * SCALE].fill(0);
        }
    }
    let side = u32::try_from(side).map_err(ServiceError::internal)?;
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(ServiceError::internal)?;
    writer
        .write_image_data(&pixels)
        .map_err(ServiceError::internal)?;
    writer.finish().map_err(ServiceError::internal)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_is_the_public_page_of_the_model() {
        assert_eq!(
            instruction_url("https://portal.example/", 7),
            "https://portal.example/short-instruction/7"
        );
    }

    #[test]
    fn each_code_is_drawn_once_and_the_kept_ones_are_bounded() {
        let codes = QrCodes::with_capacity("https://portal.example/", 4);
        let first = codes.png(7).unwrap();
        assert_eq!(
            first,
            png("https://portal.example/short-instruction/7").unwrap()
        );
        assert_eq!(codes.drawn.len(), 1);
        assert_eq!(codes.png(7).unwrap(), first, "the kept one");
        assert_eq!(codes.drawn.len(), 1, "not drawn again");
        for id in 0..100 {
            codes.png(id).unwrap();
        }
        assert!(codes.drawn.len() <= 4, "{} kept", codes.drawn.len());
    }

    #[test]
    fn the_png_is_a_square_with_the_codes_modules() {
        let text = "https://portal.example/short-instruction/7";
        let png = png(text).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut pixels).unwrap();
        assert_eq!(frame.width, frame.height);
        let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M).unwrap();
        let modules = code.width();
        assert_eq!(frame.width as usize, (modules + 2 * QUIET_ZONE) * SCALE);
        // Every module's centre pixel has the module's colour.
        let side = frame.width as usize;
        for (index, color) in code.to_colors().iter().enumerate() {
            let y = (index / modules + QUIET_ZONE) * SCALE + SCALE / 2;
            let x = (index % modules + QUIET_ZONE) * SCALE + SCALE / 2;
            let expected = if *color == Color::Dark { 0 } else { 255 };
            assert_eq!(pixels[y * side + x], expected, "module {index}");
        }
        assert_eq!(pixels[0], 255, "quiet zone");
    }
}
