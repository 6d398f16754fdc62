//! QR codes of instructions: `PORTAL_PUBLIC_URL/short-instruction/{model id}`
//! (a unit's label adds `?unit={unit id}`) as a PNG, drawn from the code's module matrix (black on white, with the quiet
//! zone of four modules the standard asks for). The drawn ones are kept by
//! [`crate::app::qr_codes`].

use portal_kit::ServiceError;
use qrcode::{Color, EcLevel, QrCode};

/// Pixels per module: a typical URL gives 33 modules, about 400 px in all,
/// the size the model page shows.
const SCALE: usize = 10;
const QUIET_ZONE: usize = 4;

/// The public page of a model's instruction; for a unit's label, the same
/// page for that unit (`?unit=`), so what a scan opens knows which device it
/// stands beside. A label printed before units were named opens the model's.
pub fn instruction_url(public_url: &str, model_id: i64, unit_id: Option<i64>) -> String {
    let page = format!(
        "{}/short-instruction/{model_id}",
        public_url.trim_end_matches('/')
    );
    match unit_id {
        Some(unit_id) => format!("{page}?unit={unit_id}"),
        None => page,
    }
}

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
    fn the_url_is_the_public_page_of_the_model_or_of_one_unit_of_it() {
        assert_eq!(
            instruction_url("https://portal.example/", 7, None),
            "https://portal.example/short-instruction/7"
        );
        assert_eq!(
            instruction_url("https://portal.example", 7, Some(12)),
            "https://portal.example/short-instruction/7?unit=12"
        );
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
