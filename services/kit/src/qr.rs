//! QR codes drawn as PNG from the code's module matrix (black on white, with
//! the quiet zone of four modules the standard asks for), without the `image`
//! crate: the wiki's instruction labels and auth's authenticator enrolment.

use qrcode::{Color, EcLevel, QrCode};

use crate::ServiceError;

/// Pixels per module: a typical URL gives 33 modules, about 400 px in all,
/// the size the pages show.
const SCALE: usize = 10;
const QUIET_ZONE: usize = 4;

/// A PNG of a QR code (error correction M) that reads as `text`.
pub fn png(text: &str) -> Result<Vec<u8>, ServiceError> {
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
