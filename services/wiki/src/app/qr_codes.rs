//! The QR codes of this portal's instructions, kept once drawn.
//!
//! A code depends on nothing but the public URL (fixed for the process), the
//! model id and, on a unit's label, the unit id, so each is drawn once and
//! kept in a bounded cache: every model read carries its model's, and a label
//! sheet one per unit.

use std::sync::Arc;

use portal_kit::ServiceError;
use quick_cache::sync::Cache;

use crate::domain::qr;

/// How many models' codes are kept: a PNG is a few KB, so a few MB at most.
const KEPT: usize = 1024;

/// The QR codes of this portal's instructions, each drawn once per process.
pub struct QrCodes {
    public_url: String,
    /// By model, and unit for a unit's label.
    drawn: Cache<(i64, Option<i64>), Arc<[u8]>>,
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

    /// What model `model_id`'s code opens: its instruction, for unit
    /// `unit_id` on that unit's label.
    pub fn url(&self, model_id: i64, unit_id: Option<i64>) -> String {
        qr::instruction_url(&self.public_url, model_id, unit_id)
    }

    /// The PNG of the code of [`url`](Self::url). Two first reads at once may
    /// both draw it, rather than one wait on the other's thread.
    pub fn png(&self, model_id: i64, unit_id: Option<i64>) -> Result<Vec<u8>, ServiceError> {
        let key = (model_id, unit_id);
        if let Some(drawn) = self.drawn.get(&key) {
            return Ok(drawn.to_vec());
        }
        let drawn = qr::png(&self.url(model_id, unit_id))?;
        self.drawn.insert(key, Arc::from(drawn.as_slice()));
        Ok(drawn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_drawn_once_and_the_kept_ones_are_bounded() {
        let codes = QrCodes::with_capacity("https://portal.example/", 4);
        let first = codes.png(7, None).unwrap();
        assert_eq!(
            first,
            qr::png("https://portal.example/short-instruction/7").unwrap()
        );
        assert_eq!(codes.drawn.len(), 1);
        assert_eq!(codes.png(7, None).unwrap(), first, "the kept one");
        assert_eq!(codes.drawn.len(), 1, "not drawn again");
        let label = codes.png(7, Some(12)).unwrap();
        assert_eq!(
            label,
            qr::png("https://portal.example/short-instruction/7?unit=12").unwrap(),
            "a unit's label has a code of its own"
        );
        assert_eq!(codes.drawn.len(), 2);
        for id in 0..100 {
            codes.png(id, None).unwrap();
        }
        assert!(codes.drawn.len() <= 4, "{} kept", codes.drawn.len());
    }
}
