//! QR codes of instructions: `PORTAL_PUBLIC_URL/short-instruction/{model id}`
//! (a unit's label adds `?unit={unit id}`) as a PNG, drawn from the code's module matrix (black on white, with the quiet
//! zone of four modules the standard asks for). The drawn ones are kept by
//! [`crate::app::qr_codes`].

pub use portal_kit::qr::png;

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
}
